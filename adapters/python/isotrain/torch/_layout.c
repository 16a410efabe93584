/* _layout.c — the layout of every C struct isotrain.torch mirrors in
 * ctypes, as this build of the library compiled it, linked into
 * build/shared/<isa>/libisotrain.so beside the library
 * (mk/torch-conforming.mk). ctypes trusts its own field list: a field the
 * C side gained, lost or moved makes the library write past the Python
 * buffer (a recipe's sha256 did: "double free or corruption" in every
 * train --recipe). _lib.check_layout compares each mirror with this
 * table when the package is imported and refuses a mismatch by name. */
#include <stddef.h>

#include "isotrain.h"
#include "isotrain_gpt.h"

typedef struct {
    const char *type, *field; /* field "": the struct itself (its sizeof) */
    size_t offset, size;
} itt_layout_row;

#define STRUCT(T) {#T, "", 0, sizeof(T)}
#define FIELD(T, F) {#T, #F, offsetof(T, F), sizeof(((T *)0)->F)}

static const itt_layout_row rows[] = {
    STRUCT(it_fpenv_report),
    FIELD(it_fpenv_report, ftz),
    FIELD(it_fpenv_report, daz),
    FIELD(it_fpenv_report, rounding),
    STRUCT(it_adamw_consts),
    FIELD(it_adamw_consts, lr),
    FIELD(it_adamw_consts, beta1),
    FIELD(it_adamw_consts, beta2),
    FIELD(it_adamw_consts, eps),
    FIELD(it_adamw_consts, decay),
    FIELD(it_adamw_consts, one_minus_beta1),
    FIELD(it_adamw_consts, one_minus_beta2),
    STRUCT(it_adamw_clock),
    FIELD(it_adamw_clock, beta1_pow),
    FIELD(it_adamw_clock, beta2_pow),
    FIELD(it_adamw_clock, t),
    STRUCT(it_gpt_shape),
    FIELD(it_gpt_shape, blocks),
    FIELD(it_gpt_shape, d_model),
    FIELD(it_gpt_shape, heads),
    FIELD(it_gpt_shape, mlp),
    FIELD(it_gpt_shape, context),
    FIELD(it_gpt_shape, batch),
    FIELD(it_gpt_shape, vocab),
    STRUCT(it_gpt_derived),
    FIELD(it_gpt_derived, head_width),
    FIELD(it_gpt_derived, rows),
    FIELD(it_gpt_derived, attn_scale_bits),
    FIELD(it_gpt_derived, loss_scale_bits),
    FIELD(it_gpt_derived, init_wte_bits),
    FIELD(it_gpt_derived, init_wpe_bits),
    FIELD(it_gpt_derived, init_d_bits),
    FIELD(it_gpt_derived, init_f_bits),
    FIELD(it_gpt_derived, boff),
    FIELD(it_gpt_derived, ntensors),
    FIELD(it_gpt_derived, block_len),
    FIELD(it_gpt_derived, off_h0),
    FIELD(it_gpt_derived, off_lnf_w),
    FIELD(it_gpt_derived, nparams),
    STRUCT(it_gpt_recipe),
    FIELD(it_gpt_recipe, name),
    FIELD(it_gpt_recipe, shape),
    FIELD(it_gpt_recipe, d),
    FIELD(it_gpt_recipe, steps),
    FIELD(it_gpt_recipe, warmup),
    FIELD(it_gpt_recipe, schedule_length),
    FIELD(it_gpt_recipe, lr_bits),
    FIELD(it_gpt_recipe, beta1_bits),
    FIELD(it_gpt_recipe, beta2_bits),
    FIELD(it_gpt_recipe, eps_bits),
    FIELD(it_gpt_recipe, wd_bits),
    FIELD(it_gpt_recipe, clip_bits),
    FIELD(it_gpt_recipe, seed),
    FIELD(it_gpt_recipe, sampling_stream),
    FIELD(it_gpt_recipe, checkpoint_steps),
    FIELD(it_gpt_recipe, n_checkpoint_steps),
    FIELD(it_gpt_recipe, corpus),
    FIELD(it_gpt_recipe, corpus_len),
    FIELD(it_gpt_recipe, corpus_sha256),
    FIELD(it_gpt_recipe, vocab_bytes),
    FIELD(it_gpt_recipe, token_of),
    FIELD(it_gpt_recipe, sha256),
};

/* Row i of the table: 1 with its type, field ("" for the struct), offset
 * and size; 0 past the end. */
int itt_layout(size_t i, const char **type, const char **field, size_t *offset, size_t *size)
{
    if (i >= sizeof rows / sizeof rows[0])
        return 0;
    *type = rows[i].type;
    *field = rows[i].field;
    *offset = rows[i].offset;
    *size = rows[i].size;
    return 1;
}
