/* isotrain_gpt.h — the GPT family (spec §16, 1.3.0): gptchar's model at
 * any size a recipe gives.
 *
 * A recipe (spec/recipe.schema.json) names the sizes, the schedule, the
 * optimizer's constants as binary32 bit patterns and a corpus by its
 * SHA-256; it_gpt_derive is the ONE place the constants that depend on the
 * sizes are rounded (§16.3), so the spec's rules have one implementation
 * and gptchar (§14) is this family at its values. */
#ifndef ISOTRAIN_GPT_H
#define ISOTRAIN_GPT_H

#include <stddef.h>
#include <stdint.h>

#include "isotrain.h"
#include "isotrain_profile.h"

/* §16.2: the sizes. The vocabulary is the corpus's (its distinct bytes). */
typedef struct {
    uint32_t blocks, d_model, heads, mlp, context, batch, vocab;
} it_gpt_shape;

/* §16.2's ranges (checked by it_gpt_derive and the recipe reader) */
enum {
    IT_GPT_MAX_BLOCKS = 64,
    IT_GPT_MAX_D = 2048,
    IT_GPT_MAX_MLP = 8192,
    IT_GPT_MAX_CONTEXT = 2048,
    IT_GPT_MAX_BATCH = 4096,
    IT_GPT_MAX_ROWS = 1 << 20,     /* batch x context */
    IT_GPT_MAX_PARAMS = 1 << 28,   /* a checkpoint of at most 1 GiB */
    IT_GPT_MAX_SCHEDULE = (1 << 24) - 1, /* f32(t) exact (§7.4) */
    IT_GPT_MAX_CHECKPOINTS = 4096
};
#define IT_GPT_MAX_CORPUS ((size_t)1 << 30)

/* §16.3: everything that follows from the sizes. */
typedef struct {
    uint32_t head_width;      /* d_model / heads */
    uint32_t rows;            /* R = batch x context */
    uint32_t attn_scale_bits; /* c = RN(1 / RN(sqrt(f32(head_width)))) */
    uint32_t loss_scale_bits; /* s = RN(1 / f32(R)) */
    uint32_t init_wte_bits, init_wpe_bits; /* 2^-5, 2^-6 */
    uint32_t init_d_bits;     /* RN(1 / RN(sqrt(f32(d_model)))): q, k, v, o, fc */
    uint32_t init_f_bits;     /* RN(1 / RN(sqrt(f32(mlp)))): proj */
    size_t boff[16];          /* the first element of a block's tensor j, from the block's start */
    size_t ntensors;          /* 2 + 16 blocks + 2 */
    size_t block_len;         /* elements of one block */
    size_t off_h0, off_lnf_w; /* first elements of block 0 and of lnf_w */
    size_t nparams;
} it_gpt_derived;

/* a block's tensors, in checkpoint order (§14.2's 2 + 16l + j) */
enum {
    IT_GPT_LN1_W, IT_GPT_LN1_B, IT_GPT_Q_W, IT_GPT_Q_B, IT_GPT_K_W, IT_GPT_K_B, IT_GPT_V_W, IT_GPT_V_B,
    IT_GPT_O_W, IT_GPT_O_B, IT_GPT_LN2_W, IT_GPT_LN2_B, IT_GPT_FC_W, IT_GPT_FC_B, IT_GPT_PROJ_W, IT_GPT_PROJ_B
};

/* gptchar's sizes (§14.1): the family's member at §14's values */
extern const it_gpt_shape it_gpt_shape_gptchar;

/* Checks the sizes' ranges and the rules between them (heads divides
 * d_model, batch x context, the parameter count) and derives the rest.
 * Returns 0, or non-zero with "field: what was expected" in err. */
int it_gpt_derive(const it_gpt_shape *s, it_gpt_derived *d, char *err, size_t cap);

/* §16.4: the tensors in checkpoint order (names, offsets, shapes, init and
 * decay columns): the table gptchar's row holds, made at run time. */
typedef struct {
    it_tensor_info *t;
    size_t n;
    char (*names)[24];
} it_gpt_tensors;
int it_gpt_tensors_make(const it_gpt_shape *s, const it_gpt_derived *d, it_gpt_tensors *out);
void it_gpt_tensors_free(it_gpt_tensors *t);

/* §16.1: a recipe, read from its JSON file. Floats are binary32 bits. */
typedef struct {
    char name[33];
    it_gpt_shape shape;
    it_gpt_derived d;
    uint32_t steps, warmup, schedule_length;
    uint32_t lr_bits, beta1_bits, beta2_bits, eps_bits, wd_bits, clip_bits;
    uint64_t seed;
    uint32_t sampling_stream;
    uint32_t *checkpoint_steps;
    size_t n_checkpoint_steps;
    unsigned char *corpus; /* the corpus's bytes */
    size_t corpus_len;
    unsigned char corpus_sha256[32];
    unsigned char vocab_bytes[256]; /* token v is vocab_bytes[v] */
    int token_of[256];              /* -1 for a byte not in the corpus */
    /* the document's bytes as read: what a receipt's "recipe sha256" names,
     * and what the ranks of a job compare (a field the row does not keep,
     * heads or sampling_stream, is in it) */
    unsigned char sha256[32];
} it_gpt_recipe;

/* Reads and checks the recipe at path (its corpus path is relative to the
 * recipe's directory). Returns 0, or non-zero with "PATH: FIELD: what was
 * expected" in err; *r is then empty (nothing to free). */
int it_gpt_recipe_load(const char *path, it_gpt_recipe *r, char *err, size_t cap);
/* The same on a document in memory; dir is where its corpus path starts,
 * name what the messages call the document. */
int it_gpt_recipe_parse(const char *text, size_t len, const char *name, const char *dir, it_gpt_recipe *r,
                        char *err, size_t cap);
void it_gpt_recipe_free(it_gpt_recipe *r);

/* §16.5: the B sequences of T tokens of step t (1-based), x and y B*T each. */
void it_gpt_batch(const unsigned char *corpus, size_t n, const int token_of[256], uint32_t T, uint32_t B,
                  uint32_t stream, uint64_t seed, uint32_t step, uint32_t *x, uint32_t *y);

/* The workspace of a member's loss and gradient (gptchar.c; for gptchar
 * it is it_gptchar_work_new's): the it_gptchar_* entry points taking a
 * workspace compute the member it was made for. */
it_gptchar_work *it_gpt_work_new(const it_gpt_shape *sh, const it_gpt_derived *dv, size_t max_seqs);

/* §16.5: a recipe's row of the profile table, for the run loop
 * (isotrain_profile.h; run.c trains it as any row). The recipe must outlive
 * it. */
typedef struct {
    it_profile p; /* first: the run loop's row */
    const it_gpt_recipe *r;
    it_gpt_tensors tensors;
} it_gpt_profile;
int it_gpt_profile_make(const it_gpt_recipe *r, it_gpt_profile *out);
/* spec §16.5, iut-protocol.md P7: the length of the runner's fresh-seed run
 * of a member, min(steps, warmup + 3) (the row's fresh_steps) */
uint32_t it_gpt_fresh_steps(const it_gpt_recipe *r);
void it_gpt_profile_free(it_gpt_profile *g);

#endif
