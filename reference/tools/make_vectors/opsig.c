/* The inputs and outputs of every op of spec/iut-protocol.md P5, in the
 * order the vectors list them: op_case() refuses a case that does not match,
 * so a group cannot write a key the protocol does not have. A profile's new
 * ops add rows here. */
#include <string.h>

#include "mv.h"

static const struct {
    const char *op, *in, *out;
} SIG[] = {
    /* spec 1.0.0 */
    {"exp", "x:f32", "y:f32"},
    {"log", "x:f32", "y:f32"},
    {"tanh", "x:f32", "y:f32"},
    {"dot", "a:f32 b:f32", "y:f32"},
    {"linear_forward", "in:int out:int w:f32 b:f32 x:f32", "y:f32"},
    {"linear_backward", "in:int out:int w:f32 x:f32 dy:f32 dw:f32 db:f32", "dw:f32 db:f32 dx:f32"},
    {"softmax_xent_forward", "z:f32 target:int", "probs:f32 loss:f32"},
    {"softmax_xent_backward", "probs:f32 target:int scale:f32", "dz:f32"},
    {"tanh_backward", "y:f32 dy:f32", "dx:f32"},
    {"embedding_forward", "dim:int e:f32 token:int", "out:f32"},
    {"embedding_backward", "dim:int de:f32 tokens:int[] dout:f32", "de:f32"},
    {"sgd", "p:f32 g:f32 lr:f32", "p:f32"},
    {"philox", "ctr:u32 key:u32", "out:u32"},
    {"rng_u32", "seed:u64 stream:int index:u64 count:int", "r:u32"},
    {"u32_to_symmetric", "r:u32", "y:f32"},
    {"u32_below", "r:u32 n:int", "k:u32"},
    {"mlp13k_init", "tensor:name", "values:f32"},
    {"mlp13k_batch", "step:int", "x:int[] y:int[]"},
    {"mlp13k_loss_grad", "params:f32 x:int[] y:int[]", "loss:f32 grads:f32"},
    {"sweep", "fn:name lo:u32 count:int", "sha256:sha256"},
    /* spec 1.1.0 */
    {"sqrt", "x:f32", "y:f32"},
    {"relu_forward", "x:f32", "y:f32"},
    {"relu_backward", "x:f32 dy:f32", "dx:f32"},
    {"attention_forward", "heads:int width:int c:f32 q:f32 k:f32 v:f32", "w:f32 z:f32"},
    {"attention_backward", "heads:int width:int c:f32 q:f32 k:f32 v:f32 w:f32 dz:f32", "dq:f32 dk:f32 dv:f32"},
    {"adamw", "p:f32 g:f32 m:f32 v:f32 t:int hyper:f32", "p:f32 m:f32 v:f32"},
    {"addmod113_perm", "seed:u64", "perm:u32"},
    {"addmod113_init", "tensor:name", "values:f32"},
    {"addmod113_loss_grad", "params:f32 pairs:u32", "loss:f32 grads:f32"},
    /* spec 1.2.0 */
    {"residual_add", "x:f32 y:f32", "z:f32"},
    {"layernorm_forward", "n:int x:f32 w:f32 b:f32 eps:f32", "y:f32 mean:f32 rstd:f32"},
    {"layernorm_backward", "n:int x:f32 w:f32 eps:f32 dy:f32 dw:f32 db:f32", "dw:f32 db:f32 dx:f32"},
    {"gelu_forward", "x:f32", "y:f32"},
    {"gelu_backward", "x:f32 dy:f32", "dx:f32"},
    {"causal_attention_forward", "heads:int width:int c:f32 q:f32 k:f32 v:f32", "w:f32 z:f32"},
    {"causal_attention_backward", "heads:int width:int c:f32 q:f32 k:f32 v:f32 w:f32 dz:f32", "dq:f32 dk:f32 dv:f32"},
    {"tied_embedding_grad", "dim:int f:f32 dlogits:f32 tokens:int[] dx:f32", "de:f32"},
    {"clip_grad_norm", "g:f32 max_norm:f32 eps:f32", "g:f32 norm:f32"},
    {"lr_schedule", "step:int warmup:int total:int lr_max:f32", "lr:f32"},
    {"gptchar_init", "tensor:name", "values:f32"},
    {"gptchar_batch", "step:int", "x:int[] y:int[]"},
    {"gptchar_loss_grad", "params:f32 x:int[] y:int[]", "loss:f32 grads:f32"},
};

const char *op_signature(const char *op, int output)
{
    for (size_t i = 0; i < sizeof SIG / sizeof SIG[0]; i++)
        if (strcmp(SIG[i].op, op) == 0)
            return output ? SIG[i].out : SIG[i].in;
    return NULL;
}
