/* The GPT family's sizes (spec §16.2), the constants they fix (§16.3) and
 * its tensor table (§16.4). Every constant that depends on a size is
 * rounded here and nowhere else: two correctly rounded operations where
 * the spec says two, so a head width of 6 gives the spec's scale and not
 * RN(1/sqrt(6)) rounded once from a wider format (they differ by an ulp). */
#include <stdio.h>
#include <stdlib.h>

#include "isotrain_gpt.h"
#include "isotrain_profile.h"

/* RN(1 ⊘ RN(sqrt(f32(n)))), n < 2^24 so f32(n) is exact */
static uint32_t inv_sqrt_bits(uint32_t n)
{
    const float r = it_sqrtf((float)n);
    return it_f32_bits(1.0f / r);
}

/* one block's tensors (§14.2's rows 2 + 16l + k): rows, cols, kind */
enum { SZ_D, SZ_F, SZ_1 };
static const struct {
    const char *suffix;
    int rows, cols;
    int init; /* 0: +0, 1: one, 2: uniform b_D, 3: uniform b_F */
} BLOCK[16] = {
    {"ln1_w", SZ_D, SZ_1, 1}, {"ln1_b", SZ_D, SZ_1, 0}, {"q_w", SZ_D, SZ_D, 2},    {"q_b", SZ_D, SZ_1, 0},
    {"k_w", SZ_D, SZ_D, 2},   {"k_b", SZ_D, SZ_1, 0},   {"v_w", SZ_D, SZ_D, 2},    {"v_b", SZ_D, SZ_1, 0},
    {"o_w", SZ_D, SZ_D, 2},   {"o_b", SZ_D, SZ_1, 0},   {"ln2_w", SZ_D, SZ_1, 1},  {"ln2_b", SZ_D, SZ_1, 0},
    {"fc_w", SZ_F, SZ_D, 2},  {"fc_b", SZ_F, SZ_1, 0},  {"proj_w", SZ_D, SZ_F, 3}, {"proj_b", SZ_D, SZ_1, 0},
};

const it_gpt_shape it_gpt_shape_gptchar = {IT_GC_LAYERS, IT_GC_D, IT_GC_HEADS, IT_GC_MLP,
                                           IT_GC_CTX,    IT_GC_SEQS, IT_GC_VOCAB};

typedef struct {
    const char *field;
    uint32_t lo, hi;
} size_range;

int it_gpt_derive(const it_gpt_shape *s, it_gpt_derived *d, char *err, size_t cap)
{
    const size_range ranges[] = {
        {"blocks", 1, IT_GPT_MAX_BLOCKS},   {"d_model", 1, IT_GPT_MAX_D},
        {"heads", 1, IT_GPT_MAX_D},         {"mlp", 1, IT_GPT_MAX_MLP},
        {"context", 1, IT_GPT_MAX_CONTEXT}, {"batch", 1, IT_GPT_MAX_BATCH},
        {"vocabulary", 2, 256},
    };
    const uint32_t v[] = {s->blocks, s->d_model, s->heads, s->mlp, s->context, s->batch, s->vocab};
    for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++)
        if (v[k] < ranges[k].lo || v[k] > ranges[k].hi)
            return it_errf(err, cap, 1, "%s: %u is out of range; expected an integer in [%u, %u]", ranges[k].field,
                           (unsigned)v[k], (unsigned)ranges[k].lo, (unsigned)ranges[k].hi);
    if (s->d_model % s->heads != 0)
        return it_errf(err, cap, 1, "heads: %u does not divide d_model %u; expected a divisor of d_model",
                       (unsigned)s->heads, (unsigned)s->d_model);
    const uint64_t rows = (uint64_t)s->batch * s->context;
    if (rows > IT_GPT_MAX_ROWS)
        return it_errf(err, cap, 1, "batch: %u sequences of %u positions are %llu rows; expected at most %u rows",
                       (unsigned)s->batch, (unsigned)s->context, (unsigned long long)rows, (unsigned)IT_GPT_MAX_ROWS);
    const uint64_t D = s->d_model, F = s->mlp;
    const uint64_t block = 4 * D * D + 2 * D * F + 9 * D + F;
    const uint64_t off_h0 = (uint64_t)s->vocab * D + (uint64_t)s->context * D;
    const uint64_t nparams = off_h0 + s->blocks * block + 2 * D;
    if (nparams > IT_GPT_MAX_PARAMS)
        return it_errf(err, cap, 1,
                       "blocks: the shape has %llu parameters; expected at most %u (fewer blocks, a smaller "
                       "d_model or mlp)",
                       (unsigned long long)nparams, (unsigned)IT_GPT_MAX_PARAMS);
    d->head_width = s->d_model / s->heads;
    d->rows = (uint32_t)rows;
    d->attn_scale_bits = inv_sqrt_bits(d->head_width);
    d->loss_scale_bits = it_f32_bits(1.0f / (float)d->rows);
    d->init_wte_bits = 0x3d000000u; /* 2^-5 */
    d->init_wpe_bits = 0x3c800000u; /* 2^-6 */
    d->init_d_bits = inv_sqrt_bits(s->d_model);
    d->init_f_bits = inv_sqrt_bits(s->mlp);
    const size_t dim[3] = {s->d_model, s->mlp, 1};
    size_t o = 0;
    for (int j = 0; j < 16; j++) {
        d->boff[j] = o;
        o += dim[BLOCK[j].rows] * dim[BLOCK[j].cols];
    }
    d->ntensors = 2 + 16 * (size_t)s->blocks + 2;
    d->block_len = (size_t)block;
    d->off_h0 = (size_t)off_h0;
    d->off_lnf_w = (size_t)(off_h0 + s->blocks * block);
    d->nparams = (size_t)nparams;
    return 0;
}

int it_gpt_tensors_make(const it_gpt_shape *s, const it_gpt_derived *d, it_gpt_tensors *out)
{
    out->n = d->ntensors;
    out->t = calloc(out->n, sizeof *out->t);
    out->names = calloc(out->n, sizeof *out->names);
    if (!out->t || !out->names) {
        it_gpt_tensors_free(out);
        return 1;
    }
    const size_t dim[3] = {s->d_model, s->mlp, 1};
    const uint32_t bound[4] = {0, 0x3f800000u, d->init_d_bits, d->init_f_bits};
    size_t k = 0, off = 0;
#define ADD(nm, r, c, kind, bits, dec)                                                                           \
    do {                                                                                                        \
        out->t[k] = (it_tensor_info){out->names[k], off, (r), (c), (kind), (bits), (dec)};                     \
        off += (size_t)(r) * (c);                                                                               \
        k++;                                                                                                    \
    } while (0)
    snprintf(out->names[0], sizeof out->names[0], "wte");
    ADD("wte", s->vocab, s->d_model, IT_INIT_UNIFORM, d->init_wte_bits, 1);
    snprintf(out->names[1], sizeof out->names[1], "wpe");
    ADD("wpe", s->context, s->d_model, IT_INIT_UNIFORM, d->init_wpe_bits, 1);
    for (uint32_t l = 0; l < s->blocks; l++)
        for (int j = 0; j < 16; j++) {
            snprintf(out->names[k], sizeof out->names[k], "h%u_%s", (unsigned)l, BLOCK[j].suffix);
            const int in = BLOCK[j].init;
            ADD(0, dim[BLOCK[j].rows], dim[BLOCK[j].cols], in >= 2 ? IT_INIT_UNIFORM : IT_INIT_CONST, bound[in],
                in >= 2);
        }
    snprintf(out->names[k], sizeof out->names[k], "lnf_w");
    ADD("lnf_w", s->d_model, 1, IT_INIT_CONST, 0x3f800000u, 0);
    snprintf(out->names[k], sizeof out->names[k], "lnf_b");
    ADD("lnf_b", s->d_model, 1, IT_INIT_CONST, 0u, 0);
#undef ADD
    return off == d->nparams && k == d->ntensors ? 0 : 1;
}

void it_gpt_tensors_free(it_gpt_tensors *t)
{
    free(t->t);
    free(t->names);
    t->t = NULL;
    t->names = NULL;
    t->n = 0;
}
