/* The reference run of gptchar (spec 14.8) through the library's step
 * function, and the intermediates of step 1 through the loss's tap, whose
 * real values the RealRun cases use. */
#include <stddef.h>
#include <string.h>

#include "mv.h"
#include "run_gptchar.h"

float gc_hist[GC_CKPTS][IT_GC_NPARAMS]; /* parameters at steps 0, 100, ..., 500 */
uint32_t gc_loss[IT_GC_STEPS + 1];
char gc_digest[IT_GC_STEPS + 1][65];
float gc_state[GC_WINDOWS][3][IT_GC_NPARAMS]; /* params, m, v after the window starts */
float gc_grad1[IT_GC_NPARAMS]; /* the step-1 gradient, before clipping */
uint32_t gc_x1[IT_GC_ROWS], gc_y1[IT_GC_ROWS];
gc_taps gc_step1;

/* the intermediates the RealRun cases use: the tap's name, whether only
 * block 0's (layer == 0) is kept, and where it goes */
static const struct {
    const char *what;
    int block0;
    size_t slot;
} KEPT[] = {
    {"x0", 0, offsetof(gc_taps, x0)},     {"ln1", 1, offsetof(gc_taps, ln1)},
    {"q", 1, offsetof(gc_taps, q)},       {"k", 1, offsetof(gc_taps, k)},
    {"v", 1, offsetof(gc_taps, v)},       {"o", 1, offsetof(gc_taps, o)},
    {"xmid", 1, offsetof(gc_taps, xmid)}, {"h", 1, offsetof(gc_taps, h)},
    {"lnf", 0, offsetof(gc_taps, lnf)},   {"dlogits", 0, offsetof(gc_taps, dlogits)},
    {"dx0", 0, offsetof(gc_taps, dx0)},
};

static void keep(void *ctx, const char *what, int layer, const float *data, size_t n)
{
    float **slot = NULL;
    for (size_t i = 0; i < sizeof KEPT / sizeof KEPT[0] && !slot; i++)
        if ((!KEPT[i].block0 || layer == 0) && strcmp(what, KEPT[i].what) == 0)
            slot = (float **)(void *)((char *)ctx + KEPT[i].slot);
    if (!slot)
        return;
    *slot = malloc(n * sizeof(float));
    if (!*slot)
        die("out of memory");
    memcpy(*slot, data, n * sizeof(float));
}

const char *gc_trace_digest(uint32_t step) { return gc_digest[step]; }

void gc_train(void)
{
    static it_gptchar_state s;
    const it_gptchar_recipe r = {IT_GC_SEED};
    unsigned char bytes[256];
    int tok[256];
    require(it_gptchar_vocab(bytes, tok) == IT_GC_VOCAB, "the corpus does not have %d distinct bytes", IT_GC_VOCAB);
    it_gptchar_start(&r, &s);
    memcpy(gc_hist[0], s.params, sizeof s.params);
    it_params_digest(s.params, IT_GC_NPARAMS, gc_digest[0]);
    /* step 1's intermediates, and its gradient, from the same parameters */
    it_gptchar_batch(IT_GC_SEED, 1, gc_x1, gc_y1);
    it_gptchar_loss_grad_tap(s.params, gc_x1, gc_y1, IT_GC_SEQS, gc_grad1, keep, &gc_step1);
    double t0 = now();
    int w = 0;
    for (uint32_t t = 1; t <= IT_GC_STEPS; t++) {
        it_status st = it_gptchar_step(&r, &s);
        if (st != IT_OK)
            die("gptchar: the reference failed at step %u: %s", (unsigned)t, it_status_name(st));
        if (t == 1) /* spec 14.6's vector: step 1 is clipped */
            require(s.last_norm > 1.0f && memcmp(s.grads, gc_grad1, sizeof gc_grad1) != 0,
                    "step 1: norm %08x, the gradient was not clipped", (unsigned)U(s.last_norm));
        gc_loss[t] = U(s.last_loss);
        it_params_digest(s.params, IT_GC_NPARAMS, gc_digest[t]);
        if (t % 100 == 0)
            memcpy(gc_hist[t / 100], s.params, sizeof s.params);
        if (w < GC_WINDOWS && t == it_profile_gptchar.windows[w + 1].from) { /* the table's resumed windows */
            memcpy(gc_state[w][0], s.params, sizeof s.params);
            memcpy(gc_state[w][1], s.m, sizeof s.m);
            memcpy(gc_state[w][2], s.v, sizeof s.v);
            w++;
        }
    }
    fprintf(stderr, "make_vectors: gptchar run of %d steps in %.0f s\n", IT_GC_STEPS, now() - t0);
}
