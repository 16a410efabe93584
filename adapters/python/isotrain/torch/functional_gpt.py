"""The layers of spec 1.2 (§5.13-§5.20, profile gptchar §14) as autograd
functions: layer_norm, gelu, causal_attention, fan_out, tie (the tied
embedding), and the clauses they are made of on plain tensors (for the IUT's
`ops` verb: *_forward / *_backward). Re-exported by isotrain.torch.functional.

As everywhere in isotrain.torch, every float a function returns is written by
the reference library into a tensor's storage; torch only allocates and
views. LayerNorm and causal attention have no batched entry point in
isotrain.h: the row loops of _rows.c (linked into the same .so) call it per
row (LayerNorm) or per sequence (attention), in ascending order, which is
also the order in which §5.15 accumulates the gain and bias gradients; one
ctypes call per layer.

fan_out and tie exist because autograd adds a tensor's gradients itself
(aten.add, and for three or more consumers in an order of its own) while the
spec fixes the order: §14.6 9d/9h (the stream's gradient first), 9g
((dq ⊕ dk) ⊕ dv) and §5.20 (the output side's SUM, then the embedding rows
scattered into it).
"""

import numpy as np
import torch

from ._check import f32, grad as _grad, indices
from ._lib import lib



def _empty(shape):
    return torch.empty(tuple(shape), dtype=torch.float32)


def _zeros(shape):
    return torch.zeros(tuple(shape), dtype=torch.float32)


def _rows(x, n, name, fn):
    f32(x, name, fn)
    if x.dim() < 1 or x.shape[-1] != n:
        raise ValueError("%s: '%s' has shape %s; its last dimension must be %d" % (fn, name, tuple(x.shape), n))
    return x.numel() // n


# ---- §5.13 residual add ---------------------------------------------------------------

def residual_add_forward(x, branch):
    """§5.13: x ⊕ branch elementwise (x the stream), a new tensor."""
    fn = "isotrain.torch.functional.residual_add_forward"
    f32(x, "x", fn)
    f32(branch, "branch", fn)
    if x.shape != branch.shape:
        raise ValueError("%s: 'branch' has shape %s, 'x' %s" % (fn, tuple(branch.shape), tuple(x.shape)))
    y = _empty(x.shape)
    lib.it_residual_add(x.data_ptr(), branch.data_ptr(), x.numel(), y.data_ptr())
    return y


# ---- §5.14, §5.15 LayerNorm ------------------------------------------------------------

def layer_norm_forward(x, weight, bias, eps, want_mean=True):
    """§5.14 on every row of x (..., n): (y, xhat, mean, rstd); eps a binary32
    value. want_mean=False: mean is None, and the rows go through the
    kernel set in one call (_rows.c), the training path."""
    fn = "isotrain.torch.functional.layer_norm"
    n = weight.numel()
    rows = _rows(x, n, "input", fn)
    f32(weight, "weight", fn)
    f32(bias, "bias", fn)
    if bias.numel() != n:
        raise ValueError("%s: 'bias' has %d elements, 'weight' %d" % (fn, bias.numel(), n))
    y, xhat = _empty(x.shape), _empty(x.shape)
    mean, rstd = _empty((rows,)) if want_mean else None, _empty((rows,))
    lib.itt_rows_layernorm_forward(rows, n, x.data_ptr(), weight.data_ptr(), bias.data_ptr(), eps, y.data_ptr(),
                                   xhat.data_ptr(), mean.data_ptr() if want_mean else None, rstd.data_ptr())
    return y, xhat, mean, rstd


def layer_norm_backward_(xhat, rstd, weight, dy, dw, db):
    """§5.15 on every row in ascending order: CONTINUES dw, db (one term per
    row) and returns dx (written)."""
    n = weight.numel()
    rows = xhat.numel() // n
    dx = _empty(xhat.shape)
    lib.itt_rows_layernorm_backward(rows, n, xhat.data_ptr(), rstd.data_ptr(), weight.data_ptr(), dy.data_ptr(),
                                    dw.data_ptr(), db.data_ptr(), dx.data_ptr())
    return dx


class _LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b, eps):
        y, xhat, _, rstd = layer_norm_forward(x, w, b, eps, want_mean=False)
        ctx.save_for_backward(xhat, rstd, w)
        return y

    @staticmethod
    def backward(ctx, dy):
        xhat, rstd, w = ctx.saved_tensors
        dw, db = _zeros(w.shape), _zeros(w.shape)
        dx = layer_norm_backward_(xhat, rstd, w, _grad(dy), dw, db)
        return dx, dw, db, None


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """torch.nn.functional.layer_norm over the last dimension with a gain and
    a bias (spec §5.14/§5.15; eps rounded to binary32 once)."""
    fn = "isotrain.torch.functional.layer_norm"
    shape = tuple(normalized_shape) if not isinstance(normalized_shape, int) else (normalized_shape,)
    if len(shape) != 1 or weight is None or bias is None:
        raise NotImplementedError("%s: only a normalization over the last dimension with a gain and a bias "
                                  "(elementwise_affine=True, bias=True) has a spec clause (§5.14); got "
                                  "normalized_shape=%s, weight %s, bias %s"
                                  % (fn, shape, weight is not None, bias is not None))
    if tuple(weight.shape) != shape or tuple(bias.shape) != shape:
        raise ValueError("%s: weight %s and bias %s must have shape %s"
                         % (fn, tuple(weight.shape), tuple(bias.shape), shape))
    _rows(input, shape[0], "input", fn)
    return _LayerNorm.apply(input, weight, bias, float(np.float32(eps)))


# ---- §5.16, §5.17 GELU, tanh form ---------------------------------------------------------

def gelu_forward(x):
    f32(x, "input", "isotrain.torch.functional.gelu")
    y = _empty(x.shape)
    lib.it_gelu_forward(x.data_ptr(), x.numel(), y.data_ptr())
    return y


def gelu_backward(x, dy):
    dx = _empty(x.shape)
    lib.it_gelu_backward(x.data_ptr(), dy.data_ptr(), x.numel(), dx.data_ptr())
    return dx


class _Gelu(torch.autograd.Function):
    """Keeps tanh(u(x)) from the forward for the backward (_rows.c: the
    kernel set's, the same bits as recomputing it, half the exp calls)."""

    @staticmethod
    def forward(ctx, x):
        f32(x, "input", "isotrain.torch.functional.gelu")
        y, t = _empty(x.shape), _empty(x.shape)
        lib.itt_gelu_forward_keep(x.data_ptr(), x.numel(), y.data_ptr(), t.data_ptr())
        ctx.save_for_backward(x, t)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, t = ctx.saved_tensors
        dy = _grad(dy)
        dx = _empty(x.shape)
        lib.itt_gelu_backward_kept(x.data_ptr(), t.data_ptr(), dy.data_ptr(), x.numel(), dx.data_ptr())
        return dx


def gelu(input, approximate="tanh"):
    """torch.nn.functional.gelu(approximate='tanh'): spec §5.16/§5.17. The
    exact (erf) GELU has no spec clause and is refused."""
    if approximate != "tanh":
        raise NotImplementedError("isotrain.torch.functional.gelu: approximate=%r has no spec clause; only "
                                  "approximate='tanh' (spec §5.16)" % approximate)
    return _Gelu.apply(input)


# ---- §5.18, §5.19 causal attention ----------------------------------------------------------

def _attn_shapes(q, k, v, heads, fn):
    for name, t in (("q", q), ("k", k), ("v", v)):
        f32(t, name, fn)
        if t.dim() != 3 or t.shape != q.shape:
            raise ValueError("%s: '%s' has shape %s; q, k, v must all be (N, T, heads*width), q is %s"
                             % (fn, name, tuple(t.shape), tuple(q.shape)))
    n, t, e = q.shape
    if heads < 1 or e % heads:
        raise ValueError("%s: %d heads do not divide the row of %d elements" % (fn, heads, e))
    return n, t, e, e // heads


def causal_attention_forward(q, k, v, heads, scale):
    """§5.18 for each of the N sequences of (N, T, heads*width) q, k, v:
    (w (N, T, heads, T) with +0 at the masked keys, z (N, T, heads*width))."""
    n, t, e, dh = _attn_shapes(q, k, v, heads, "isotrain.torch.functional.causal_attention")
    w, z, wp = _empty((n, t, heads, t)), _empty(q.shape), _empty((heads * t,))
    lib.itt_seqs_causal_attention_forward(n, t, heads, dh, scale, q.data_ptr(), k.data_ptr(), v.data_ptr(),
                                          w.data_ptr(), z.data_ptr(), wp.data_ptr())
    return w, z


def causal_attention_backward(q, k, v, w, dz, heads, scale):
    """§5.19 per sequence: (dq, dk, dv), written."""
    n, t, e, dh = _attn_shapes(q, k, v, heads, "isotrain.torch.functional.causal_attention")
    dq, dk, dv = _empty(q.shape), _empty(q.shape), _empty(q.shape)
    wp, dkp, dvp = _empty((heads * t,)), _empty((t * e,)), _empty((t * e,))
    lib.itt_seqs_causal_attention_backward(n, t, heads, dh, scale, *(x.data_ptr() for x in (q, k, v, w, dz, dq, dk, dv,
                                                                                           wp, dkp, dvp)))
    return dq, dk, dv


class _CausalAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, heads, scale):
        w, z = causal_attention_forward(q, k, v, heads, scale)
        ctx.save_for_backward(q, k, v, w)
        ctx.heads, ctx.scale = heads, scale
        return z

    @staticmethod
    def backward(ctx, dz):
        q, k, v, w = ctx.saved_tensors
        dq, dk, dv = causal_attention_backward(q, k, v, w, _grad(dz), ctx.heads, ctx.scale)
        return dq, dk, dv, None, None


def causal_attention(q, k, v, num_heads, scale=None):
    """Causal multi-head self-attention, spec §5.18/§5.19: q, k, v (N, T,
    num_heads*width) position-major with the heads side by side in a row (head
    h's width elements at h*width), output z in the same layout. scale:
    default RN(1/sqrt(width)) (a binary32 value)."""
    from .functional import default_attention_scale
    if scale is None:
        scale = default_attention_scale(q.shape[-1] // num_heads)
    return _CausalAttention.apply(q, k, v, num_heads, float(np.float32(scale)))


# ---- fan-out: one tensor, several consumers, their gradients added in order --------------

def _sum_in_order(grads):
    """((g0 ⊕ g1) ⊕ g2) ⊕ ..., the gradients that exist, a new tensor."""
    gs = [_grad(g) for g in grads if g is not None]
    if not gs:
        return None
    acc = gs[0].clone() if len(gs) > 1 else gs[0]
    for g in gs[1:]:
        lib.it_residual_add(acc.data_ptr(), g.data_ptr(), acc.numel(), acc.data_ptr())
    return acc


class _FanOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.set_materialize_grads(False)
        return tuple(x.view_as(x) for _ in range(k))

    @staticmethod
    def backward(ctx, *grads):
        return _sum_in_order(grads), None


def fan_out(x, k):
    """k aliases of x for k consumers; the backward adds their gradients in
    the order of the outputs: ((g0 ⊕ g1) ⊕ g2) ... (spec §14.6 9d, 9g, 9h),
    with the library, where autograd would add them itself."""
    f32(x, "input", "isotrain.torch.functional.fan_out")
    if k < 2:
        raise ValueError("isotrain.torch.functional.fan_out: k=%d (at least 2 consumers)" % k)
    return _FanOut.apply(x, k)


# ---- §5.20 tied embedding -------------------------------------------------------------------

def tied_embedding_grad(f, dlogits, tokens, dx, vocab):
    """§5.20: dE (vocab x dim) from +0: the output side's SUM over rows of
    dlogits ⊗ f, then every row's dx scattered into row tokens[r], rows
    ascending: the two steps tie()'s backward takes (linear_grad_params_,
    embedding_grad_)."""
    from .functional import embedding_grad_, linear_grad_params_
    de = _zeros((vocab, f.shape[-1]))
    linear_grad_params_(de, None, dlogits, f)
    embedding_grad_(de, tokens, dx)
    return de


class _TieState:
    """What the embedding side's backward hands to the tie: its tokens and the
    gradient of its output (dx⁰ of §14.6), to be scattered after the output side."""

    def __init__(self):
        self.tok, self.dx = None, None


class _TiedEmbedding(torch.autograd.Function):
    @staticmethod
    def forward(ctx, w, tok, shape, state):
        from .functional import _Embedding
        ctx.tok, ctx.state = tok, state
        return _Embedding.forward(ctx, w, tok, shape)

    @staticmethod
    def backward(ctx, dy):
        ctx.state.tok, ctx.state.dx = ctx.tok, _grad(dy)
        return None, None, None, None


class _Tie(torch.autograd.Function):
    @staticmethod
    def forward(ctx, w, state):
        ctx.state = state
        ctx.set_materialize_grads(False)
        return w.view_as(w), w.view_as(w)

    @staticmethod
    def backward(ctx, g_embedding, g_output):
        from .functional import _embedding_grad
        st = ctx.state
        g = g_output
        if g is None:
            g = _zeros(ctx.state.shape)
        else:
            g = _grad(g)
        if st.dx is not None:
            _embedding_grad(g, st.tok, st.dx)  # §5.20: the rows continue the output side's SUM
        st.tok, st.dx = None, None
        return g, None


def tie(weight):
    """(embed, head): two aliases of a tied V x D matrix. `embed` goes to
    tied_embedding(tokens, embed, handle), `head` to the output projection
    (linear(x, head)); the backward forms the output side's gradient first and
    scatters the embedding rows into it (§5.20). Returns (embed, head, handle)."""
    f32(weight, "weight", "isotrain.torch.functional.tie")
    state = _TieState()
    state.shape = tuple(weight.shape)
    e, h = _Tie.apply(weight, state)
    return e, h, state


def tied_embedding(input, weight, handle):
    """embedding() of the `embed` alias of tie(): its gradient goes to the tie."""
    tok, shape = indices(input, weight.shape[0], "input", "isotrain.torch.functional.tied_embedding")
    return _TiedEmbedding.apply(weight, tok, shape, handle)
