/* make_vectors: writes the golden vector set vectors/vX.Y.Z/ exactly as
 * vectors/FORMAT.md describes it, from the reference library's bits.
 *
 *   make_vectors OUTDIR           (OUTDIR must not exist yet; `make vectors` uses it)
 *   make_vectors --quick OUTDIR   development only: leaves out the Chunk and
 *                                 Exhaustive sweeps (seconds instead of
 *                                 minutes); never commit its output
 *
 * Every case exists for a reason its comment states. Claims a case rests on
 * ("another summation order gives other bits", "a fused multiply-add would
 * differ", "this is a tie") are checked here with independent arithmetic,
 * and the generation fails if one does not hold: a vector that no longer
 * separates what it was chosen to separate is worse than none.
 *
 * The output is a pure function of the reference's bits: no time, host,
 * path or thread timing reaches a file. The slow part is the exp/log sweep
 * over all 2^32 inputs: two threads, one per function, each computing its
 * 256 chunk digests and the total digest in one pass. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <errno.h>
#include <float.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "isotrain.h"
#include "wire.h"

/* The claims below are checked with binary32 arithmetic in C; excess
 * precision (x87) would make the checks lie. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "make_vectors needs FLT_EVAL_METHOD == 0 (binary32 arithmetic in binary32; use SSE math)"
#endif

/* The strings of the set this tool generates, pinned: the set is
 * vectors/v1.0.0 and must regenerate byte-identically (spec §12.2) while the
 * reference moves on to spec 1.1.0, which moved no bit of it. A new set is a
 * new vector version, chosen here on purpose, never inherited from IT_*. */
/* Each file carries the version that introduced it: v1.1.0 holds v1.0.0's
 * files byte for byte (their strings stay "1.0.0") and adds addmod113's. */
static const char *SPEC_VERSION = "1.0.0", *VECTOR_VERSION = "1.0.0", *GENERATOR = "isotrain make_vectors 1.0.0";

enum { V = IT_MLP13K_VOCAB, D = IT_MLP13K_EMBED, H = IT_MLP13K_HIDDEN, NP = IT_MLP13K_NPARAMS, B = IT_MLP13K_BATCH };
enum { STEPS = IT_MLP13K_STEPS };

/* ---- failure --------------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("make_vectors: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* A claim a vector rests on; false stops the generation with the reason. */
#define require(cond, ...)                                                                                  \
    do {                                                                                                    \
        if (!(cond)) {                                                                                      \
            fprintf(stderr, "make_vectors: claim failed at %s:%d: %s\n  ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                                   \
            fputc('\n', stderr);                                                                            \
            exit(1);                                                                                        \
        }                                                                                                   \
    } while (0)

/* ---- binary32 helpers ------------------------------------------------------------ */

static float F(uint32_t bits) { return it_f32_from_bits(bits); }
static uint32_t U(float f) { return it_f32_bits(f); }
static int is_nan(float f) { return (U(f) & 0x7fffffffu) > 0x7f800000u; }
static int is_inf(float f) { return (U(f) & 0x7fffffffu) == 0x7f800000u; }
static int is_subnormal(float f) { return (U(f) & 0x7f800000u) == 0 && (U(f) & 0x007fffffu) != 0; }

/* Same bits, or both NaN (iut-protocol P6). */
static int same(float a, float b) { return U(a) == U(b) || (is_nan(a) && is_nan(b)); }

/* The next binary32 value toward +inf / -inf (finite x). */
static float next_up(float x)
{
    uint32_t u = U(x);
    if ((u & 0x7fffffffu) == 0)
        return F(1);
    return (u >> 31) ? F(u - 1) : F(u + 1);
}
static float next_down(float x) { return -next_up(-x); }

/* The exact value `exact` (a binary64 holding more bits than binary32) lies
 * exactly halfway between two binary32 neighbours. */
static int is_tie(double exact)
{
    float r = (float)exact;
    if ((double)r == exact)
        return 0;
    float other = exact > (double)r ? next_up(r) : next_down(r);
    return exact - (double)r == (double)other - exact;
}

/* a + b exactly, in binary64 (checked). */
static double exact_sum(float a, float b)
{
    double s = (double)a + (double)b, bb = s - (double)a;
    double err = ((double)a - (s - bb)) + ((double)b - bb);
    require(err == 0.0, "the binary64 sum %a + %a is not exact", (double)a, (double)b);
    return s;
}

/* What a fused multiply-add acc + a*b returns, computed without fmaf: the
 * product of two binary32 values is exact in binary64, and the cases are
 * chosen so the binary64 sum is exact too (checked); one rounding to
 * binary32 is then the fused result. */
static float fused(float acc, float a, float b)
{
    double p = (double)a * (double)b;
    double s = (double)acc + p, bb = s - (double)acc;
    double err = ((double)acc - (s - bb)) + (p - bb);
    require(err == 0.0, "fused(%a, %a, %a): the binary64 sum is not exact", (double)acc, (double)a, (double)b);
    return (float)s;
}

/* Summation orders other than the spec's, for the OrderSensitive claims. */
static float sum_ascending(const float *t, size_t n)
{
    float acc = 0.0f;
    for (size_t i = 0; i < n; i++)
        acc = acc + t[i];
    return acc;
}
static float sum_descending(const float *t, size_t n)
{
    float acc = 0.0f;
    for (size_t i = n; i > 0; i--)
        acc = acc + t[i - 1];
    return acc;
}
static float sum_pairwise(const float *t, size_t n)
{
    if (n == 1)
        return t[0];
    return sum_pairwise(t, n / 2) + sum_pairwise(t + n / 2, n - n / 2);
}

/* ---- output files and the manifest ------------------------------------------------- */

static const char *outdir;

typedef struct {
    char path[64];
    size_t size;
    char sha256[65];
} manifest_entry;
static manifest_entry manifest[96];
static size_t n_manifest;

static void make_dir(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", outdir, *rel ? "/" : "", rel);
    if (mkdir(path, 0777) != 0)
        die("cannot create directory %s: %s", path, strerror(errno));
}

static void emit(const char *rel, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, rel);
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create %s: %s", path, strerror(errno));
    if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
        die("cannot write %s: %s", path, strerror(errno));
    if (strcmp(rel, "MANIFEST.json") == 0)
        return;
    if (n_manifest == sizeof manifest / sizeof manifest[0] || strlen(rel) >= sizeof manifest[0].path)
        die("internal: manifest table too small for %s", rel);
    manifest_entry *m = &manifest[n_manifest++];
    strcpy(m->path, rel);
    m->size = len;
    unsigned char d[32];
    it_sha256(data, len, d);
    it_hex(d, 32, m->sha256);
}

/* cJSON's formatted printer, plus a final newline. */
static void emit_json(const char *rel, cJSON *root)
{
    char *text = cJSON_Print(root);
    if (!text)
        die("out of memory printing %s", rel);
    size_t n = strlen(text);
    char *with_nl = malloc(n + 2);
    if (!with_nl)
        die("out of memory");
    memcpy(with_nl, text, n);
    with_nl[n] = '\n';
    emit(rel, with_nl, n + 1);
    free(with_nl);
    cJSON_free(text);
    cJSON_Delete(root);
}

static cJSON *checked(cJSON *item)
{
    if (!item)
        die("out of memory building JSON");
    return item;
}

static void add_str(cJSON *obj, const char *key, const char *s) { checked(cJSON_AddStringToObject(obj, key, s)); }
static void add_num(cJSON *obj, const char *key, double v) { checked(cJSON_AddNumberToObject(obj, key, v)); }

/* ---- op vector groups (FORMAT.md section 2) --------------------------------------- */

enum {
    SPECIAL, SUBNORMAL, ORDER, FMA, TIE, OVERFLOW, UNDERFLOW, NAN_, EDGE, TYPICAL, QUICK, CHUNK, EXHAUSTIVE, MODEL,
    N_FLAGS
};
#define FL(x) (1u << (x))

static const struct {
    const char *name, *note;
} FLAGS[N_FLAGS] = {
    {"SpecialValue", "An input or output is an infinity or a NaN, or a signed zero that is the point of the case: "
                     "the IEEE 754 special-value rules, and where a sign of zero comes from."},
    {"Subnormal", "A subnormal input, output or intermediate (the comment says which). Subnormals are kept "
                  "(spec 2.2): flush-to-zero or denormals-are-zero gives other bits here."},
    {"OrderSensitive", "The result depends on the order of a sum. The spec writes one order (ascending index from "
                       "+0, bias after the dot product, positions ascending); make_vectors checked that another "
                       "order (reversed, pairwise or bias-first) gives other bits."},
    {"FmaSensitive", "A fused multiply-add (or any contraction of a*b+c) gives other bits; spec 2.1 forbids it. "
                     "make_vectors checked the fused result with exact binary64 arithmetic."},
    {"Tie", "An exact tie between two binary32 neighbours, broken to even (checked by make_vectors)."},
    {"Overflow", "A result or intermediate overflows to infinity, or would in an unshifted or naive formulation "
                 "(the comment says which)."},
    {"Underflow", "A result or intermediate underflows to zero or into the subnormal range, or sits at that "
                  "threshold."},
    {"NaN", "An output is NaN. NaNs are compared by class, not payload or sign (iut-protocol P6)."},
    {"Edge", "At a boundary: the last input before a result changes, a threshold of the spec's sequence, a "
             "domain limit, an extreme index."},
    {"Typical", "Ordinary values taken from the real mlp13k training run (the comment names the step, position "
                "and tensor)."},
    {"Quick", "A sweep of 2^20 consecutive inputs over an interesting range; run by default."},
    {"Chunk", "One of the 256 sweeps of 2^24 consecutive inputs that cover all 2^32; run with --exhaustive."},
    {"Exhaustive", "All 2^32 inputs in one digest; run with --exhaustive."},
    {"Model", "Values the addmod113 model computes (spec 13.5): the parameters of a step of the reference run "
              "and the activations of one of its pairs (the comment says which)."},
};

typedef struct {
    const char *name, *clause;
    cJSON *tests;
    unsigned used;
    int n;
} group;

typedef struct {
    char comment[700];
    const char *op;
    unsigned flags;
    cJSON *in, *out;
} tcase;

static int group_counts_n;
static struct {
    const char *name;
    int n;
} group_counts[32];

static void group_begin(group *g, const char *name, const char *clause)
{
    g->name = name;
    g->clause = clause;
    g->tests = checked(cJSON_CreateArray());
    g->used = 0;
    g->n = 0;
}

static void group_end(group *g)
{
    cJSON *root = checked(cJSON_CreateObject());
    add_str(root, "schema", "isotrain-op-vectors-v1");
    add_str(root, "spec_version", SPEC_VERSION);
    add_str(root, "vector_version", VECTOR_VERSION);
    add_str(root, "group", g->name);
    add_str(root, "spec_clause", g->clause);
    add_str(root, "generator", GENERATOR);
    cJSON *notes = checked(cJSON_AddObjectToObject(root, "notes"));
    for (int f = 0; f < N_FLAGS; f++)
        if (g->used & FL(f))
            add_str(notes, FLAGS[f].name, FLAGS[f].note);
    add_num(root, "number_of_tests", g->n);
    cJSON_AddItemToObject(root, "tests", g->tests);
    char rel[64];
    snprintf(rel, sizeof rel, "ops/%s.json", g->name);
    emit_json(rel, root);
    group_counts[group_counts_n].name = g->name;
    group_counts[group_counts_n++].n = g->n;
}

static void tc_vbegin(tcase *c, const char *op, unsigned flags, const char *fmt, va_list ap)
{
    vsnprintf(c->comment, sizeof c->comment, fmt, ap);
    c->op = op;
    c->flags = flags;
    c->in = checked(cJSON_CreateObject());
    c->out = checked(cJSON_CreateObject());
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void tc_begin(tcase *c, const char *op, unsigned flags, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(c, op, flags, fmt, ap);
    va_end(ap);
}

static void tc_end(group *g, tcase *c)
{
    require(c->comment[0] != '\0', "case %d of %s has no comment", g->n + 1, g->name);
    cJSON *t = checked(cJSON_CreateObject());
    add_num(t, "tc_id", ++g->n);
    add_str(t, "comment", c->comment);
    cJSON *flags = checked(cJSON_AddArrayToObject(t, "flags"));
    for (int f = 0; f < N_FLAGS; f++)
        if (c->flags & FL(f))
            cJSON_AddItemToArray(flags, checked(cJSON_CreateString(FLAGS[f].name)));
    add_str(t, "op", c->op);
    cJSON_AddItemToObject(t, "inputs", c->in);
    cJSON_AddItemToObject(t, "outputs", c->out);
    cJSON_AddItemToArray(g->tests, t);
    g->used |= c->flags;
}

/* Values in the P4 encodings, through the CLI's own encoder. */
static void put_wire(cJSON *obj, const char *key, wire_buf *b)
{
    if (b->failed || !b->p)
        die("out of memory encoding %s", key);
    add_str(obj, key, b->p);
    wire_buf_free(b);
}

/* f32[n]; flags what the values are (so a NaN output is always marked). */
static void tc_f32(tcase *c, int output, const char *key, const float *v, size_t n)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_put_f32s(&b, v, n);
    put_wire(output ? c->out : c->in, key, &b);
    for (size_t i = 0; i < n; i++) {
        if (is_nan(v[i]))
            c->flags |= FL(SPECIAL) | (output ? FL(NAN_) : 0);
        else if (is_inf(v[i]))
            c->flags |= FL(SPECIAL);
        else if (is_subnormal(v[i]))
            c->flags |= FL(SUBNORMAL);
    }
}
static void in_f32(tcase *c, const char *key, const float *v, size_t n) { tc_f32(c, 0, key, v, n); }
static void out_f32(tcase *c, const char *key, const float *v, size_t n) { tc_f32(c, 1, key, v, n); }
static void in_f1(tcase *c, const char *key, float v) { tc_f32(c, 0, key, &v, 1); }
static void out_f1(tcase *c, const char *key, float v) { tc_f32(c, 1, key, &v, 1); }

static void tc_u32(tcase *c, int output, const char *key, const uint32_t *v, size_t n)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_put_hex32s(&b, v, n);
    put_wire(output ? c->out : c->in, key, &b);
}

static void tc_ints(tcase *c, int output, const char *key, const uint32_t *v, size_t n)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_put_ints(&b, v, n);
    put_wire(output ? c->out : c->in, key, &b);
}

static void in_int(tcase *c, const char *key, uint64_t v)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_put_int(&b, v);
    put_wire(c->in, key, &b);
}

static void in_u64(tcase *c, const char *key, uint64_t v)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_put_u64(&b, v);
    put_wire(c->in, key, &b);
}

static void bytes_to_ints(const unsigned char *s, size_t n, uint32_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = s[i];
}

/* ---- the real training run ---------------------------------------------------------- */

static it_mlp13k_recipe recipe;
static float hist[STEPS + 1][NP];       /* parameters after t updates */
static uint32_t loss_bits[STEPS + 1];   /* loss of step t's batch (t >= 1) */
static char digests[STEPS + 1][65];
static unsigned char batch_x[STEPS + 2][B], batch_y[STEPS + 2][B];

static void train(void)
{
    static it_mlp13k_state s;
    it_mlp13k_start(&recipe, &s);
    memcpy(hist[0], s.params, sizeof hist[0]);
    it_params_digest(s.params, NP, digests[0]);
    for (uint32_t t = 1; t <= STEPS; t++) {
        it_status st = it_mlp13k_step(&recipe, &s);
        if (st != IT_OK)
            die("the reference failed at step %u: %s", (unsigned)t, it_status_name(st));
        memcpy(hist[t], s.params, sizeof hist[t]);
        loss_bits[t] = U(s.last_loss);
        it_params_digest(s.params, NP, digests[t]);
    }
    for (uint32_t t = 1; t <= STEPS + 1; t++)
        it_mlp13k_batch(&recipe, t, batch_x[t], batch_y[t]);
}

/* One position of spec 11.6 rebuilt from the public API in the library's
 * order, keeping every intermediate so the op vectors can use real values.
 * rebuild_loss_grad() checks the rebuild against it_mlp13k_loss_grad bit
 * for bit, so these intermediates are the reference's. */
typedef struct {
    float e[D], z1[H], h[H], z2[V], probs[V], m, S, loss;
    float dz2[V], dh[H], dz1[H], de[D];
} position;

static const float *T_E(const float *p) { return p + IT_MLP13K_OFF_EMBED; }
static const float *T_W1(const float *p) { return p + IT_MLP13K_OFF_W1; }
static const float *T_B1(const float *p) { return p + IT_MLP13K_OFF_B1; }
static const float *T_W2(const float *p) { return p + IT_MLP13K_OFF_W2; }
static const float *T_B2(const float *p) { return p + IT_MLP13K_OFF_B2; }

static void run_position(const float *params, unsigned x, unsigned y, float scale, position *P, float *grads)
{
    it_embedding_forward(T_E(params), D, x, P->e);
    it_linear_forward(T_W1(params), T_B1(params), P->e, D, H, P->z1);
    it_tanh_forward(P->z1, H, P->h);
    it_linear_forward(T_W2(params), T_B2(params), P->h, H, V, P->z2);
    P->loss = it_softmax_xent_forward(P->z2, V, y, P->probs);
    /* spec 5.4's denominator, kept for the log vectors */
    float m = P->z2[0], S = 0.0f;
    for (int k = 1; k < V; k++)
        if (P->z2[k] > m)
            m = P->z2[k];
    for (int k = 0; k < V; k++)
        S = S + it_expf(P->z2[k] - m);
    P->m = m;
    P->S = S;
    require(same(P->loss, it_logf(S) - (P->z2[y] - m)), "softmax rebuild: loss %08x", (unsigned)U(P->loss));
    it_softmax_xent_backward(P->probs, V, y, scale, P->dz2);
    it_linear_backward(T_W2(params), P->h, P->dz2, H, V, grads + IT_MLP13K_OFF_W2, grads + IT_MLP13K_OFF_B2, P->dh);
    it_tanh_backward(P->h, P->dh, H, P->dz1);
    it_linear_backward(T_W1(params), P->e, P->dz1, D, H, grads + IT_MLP13K_OFF_W1, grads + IT_MLP13K_OFF_B1, P->de);
    it_embedding_backward(grads + IT_MLP13K_OFF_EMBED, D, x, P->de);
}

/* Runs positions [0, upto) of a batch of m into grads (zeroed first);
 * returns the loss sum. pos (m entries) may be NULL. */
static float run_positions(const float *params, const unsigned char *xs, const unsigned char *ys, size_t m,
                           size_t upto, float *grads, position *pos)
{
    static position scratch;
    const float scale = 1.0f / (float)m;
    float loss_sum = 0.0f;
    for (size_t i = 0; i < NP; i++)
        grads[i] = 0.0f;
    for (size_t p = 0; p < upto; p++) {
        position *P = pos ? &pos[p] : &scratch;
        run_position(params, xs[p], ys[p], scale, P, grads);
        loss_sum = loss_sum + P->loss;
    }
    return loss_sum;
}

/* The whole batch, checked against the library. Returns the loss sum. */
static float rebuild_loss_grad(const float *params, const unsigned char *xs, const unsigned char *ys, size_t m,
                               position *pos, float *grads)
{
    static float lib_grads[NP];
    float loss_sum = run_positions(params, xs, ys, m, m, grads, pos);
    float lib_loss = it_mlp13k_loss_grad(params, xs, ys, m, lib_grads);
    require(U(lib_loss) == U(loss_sum * (1.0f / (float)m)),
            "rebuilt loss %08x, it_mlp13k_loss_grad %08x: update make_vectors' rebuild of spec 11.6",
            (unsigned)U(loss_sum * (1.0f / (float)m)), (unsigned)U(lib_loss));
    for (size_t i = 0; i < NP; i++)
        require(U(lib_grads[i]) == U(grads[i]), "rebuilt gradient %zu differs from it_mlp13k_loss_grad", i);
    return loss_sum;
}

/* Real intermediates: the step-(t+1) batch at the state after t updates. */
static position pos_init[B], pos_100[B], pos_200[B];
static float grads_init[NP], grads_100[NP];

static void rebuild_states(void)
{
    static float g200[NP];
    rebuild_loss_grad(hist[0], batch_x[1], batch_y[1], B, pos_init, grads_init);
    rebuild_loss_grad(hist[100], batch_x[101], batch_y[101], B, pos_100, grads_100);
    /* step 200's batch at the state after 199 updates: the last gradient */
    rebuild_loss_grad(hist[199], batch_x[200], batch_y[200], B, pos_200, g200);
    require(U(pos_init[0].loss) != 0, "sanity");
}

/* ---- monotone thresholds, found with the reference's own functions ----------------------- */

/* The smallest b in (lo, hi] with pred(b), for pred false at lo and true at
 * hi and monotone in between. */
static uint32_t first_true(uint32_t lo, uint32_t hi, int (*pred)(uint32_t))
{
    require(!pred(lo) && pred(hi), "bisection bracket [%08x, %08x] does not straddle the threshold", (unsigned)lo,
            (unsigned)hi);
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pred(mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* predicates over bit patterns; "neg" ones take the magnitude of a negative x */
static int exp_is_inf(uint32_t b) { return is_inf(it_expf(F(b))); }
static int exp_pos_not_one(uint32_t b) { return U(it_expf(F(b))) != 0x3f800000u; }
static int exp_neg_not_one(uint32_t m) { return U(it_expf(F(m | 0x80000000u))) != 0x3f800000u; }
static int exp_neg_subnormal(uint32_t m) { return U(it_expf(F(m | 0x80000000u))) < 0x00800000u; }
static int exp_neg_zero(uint32_t m) { return U(it_expf(F(m | 0x80000000u))) == 0; }
static int tanh_is_one(uint32_t b) { return U(it_tanhf(F(b))) == 0x3f800000u; }

/* ---- sweeps (iut-protocol P5.1) ------------------------------------------------------------- */

enum { SWEEP_BLOCK = 4096 };

static void sweep_bytes(float (*f)(float), uint64_t first, size_t m, unsigned char *bytes)
{
    for (size_t k = 0; k < m; k++) {
        uint32_t u = U(f(F((uint32_t)(first + k))));
        if ((u & 0x7fffffffu) > 0x7f800000u)
            u = 0x7fc00000u;
        bytes[4 * k] = (unsigned char)u;
        bytes[4 * k + 1] = (unsigned char)(u >> 8);
        bytes[4 * k + 2] = (unsigned char)(u >> 16);
        bytes[4 * k + 3] = (unsigned char)(u >> 24);
    }
}

static void sweep_range(float (*f)(float), uint32_t lo, uint64_t count, char hex[65])
{
    static unsigned char bytes[4 * SWEEP_BLOCK];
    it_sha256_ctx c;
    it_sha256_init(&c);
    for (uint64_t done = 0; done < count; done += SWEEP_BLOCK) {
        size_t m = count - done < SWEEP_BLOCK ? (size_t)(count - done) : SWEEP_BLOCK;
        sweep_bytes(f, (uint64_t)lo + done, m, bytes);
        it_sha256_update(&c, bytes, 4 * m);
    }
    unsigned char d[32];
    it_sha256_final(&c, d);
    it_hex(d, 32, hex);
}

typedef struct {
    float (*f)(float);
    const char *name;
    char chunk[256][65];
    char total[65];
    double seconds;
} full_sweep;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* All 2^32 inputs once: each block feeds its chunk's digest and the total. */
static void *full_sweep_run(void *arg)
{
    full_sweep *s = arg;
    double t0 = now();
    unsigned char *bytes = malloc(4 * SWEEP_BLOCK);
    if (!bytes)
        die("out of memory");
    it_sha256_ctx total;
    it_sha256_init(&total);
    for (uint64_t c = 0; c < 256; c++) {
        it_sha256_ctx chunk;
        it_sha256_init(&chunk);
        for (uint64_t i = c << 24; i < (c + 1) << 24; i += SWEEP_BLOCK) {
            sweep_bytes(s->f, i, SWEEP_BLOCK, bytes);
            it_sha256_update(&chunk, bytes, 4 * SWEEP_BLOCK);
            it_sha256_update(&total, bytes, 4 * SWEEP_BLOCK);
        }
        unsigned char d[32];
        it_sha256_final(&chunk, d);
        it_hex(d, 32, s->chunk[c]);
    }
    unsigned char d[32];
    it_sha256_final(&total, d);
    it_hex(d, 32, s->total);
    free(bytes);
    s->seconds = now() - t0;
    return NULL;
}

/* ---- group: exp (spec 3.2) ------------------------------------------------------------------ */

/* One elementwise case (exp, log, tanh); returns y[0]. */
static float unary_v(group *g, const char *op, float (*f)(float), const float *x, size_t n, unsigned flags,
                     const char *fmt, va_list ap)
{
    tcase c;
    tc_vbegin(&c, op, flags, fmt, ap);
    float *y = malloc(n * sizeof *y);
    if (!y)
        die("out of memory");
    for (size_t i = 0; i < n; i++)
        y[i] = f(x[i]);
    in_f32(&c, "x", x, n);
    out_f32(&c, "y", y, n);
    tc_end(g, &c);
    float y0 = y[0];
    free(y);
    return y0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static float unary(group *g, const char *op, float (*f)(float), const float *x, size_t n, unsigned flags,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    float y = unary_v(g, op, f, x, n, flags, fmt, ap);
    va_end(ap);
    return y;
}

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static float unary1(group *g, const char *op, float (*f)(float), uint32_t xbits, unsigned flags, const char *fmt,
                    ...)
{
    float x = F(xbits);
    va_list ap;
    va_start(ap, fmt);
    float y = unary_v(g, op, f, &x, 1, flags, fmt, ap);
    va_end(ap);
    return y;
}

/* The 256 arguments spec 5.4 hands to exp for one real position: z[k] - max. */
static void softmax_args(const position *P, float *out)
{
    for (int k = 0; k < V; k++)
        out[k] = P->z2[k] - P->m;
}

static void gen_exp(void)
{
    group g;
    group_begin(&g, "exp", "3.2");
    float y, args[V];

    y = unary1(&g, "exp", it_expf, 0x00000000u, FL(SPECIAL), "exp(+0) is exactly 1");
    require(U(y) == 0x3f800000u, "exp(+0) = %08x", (unsigned)U(y));
    y = unary1(&g, "exp", it_expf, 0x80000000u, FL(SPECIAL), "exp(-0) is exactly 1");
    require(U(y) == 0x3f800000u, "exp(-0) = %08x", (unsigned)U(y));
    y = unary1(&g, "exp", it_expf, 0x7f800000u, FL(SPECIAL), "exp(+inf) = +inf");
    require(U(y) == 0x7f800000u, "exp(+inf)");
    y = unary1(&g, "exp", it_expf, 0xff800000u, FL(SPECIAL), "exp(-inf) = +0");
    require(U(y) == 0, "exp(-inf) = %08x", (unsigned)U(y));
    y = unary1(&g, "exp", it_expf, 0x7fc00000u, 0, "exp of a quiet NaN is NaN (compared by class)");
    require(is_nan(y), "exp(NaN)");
    y = unary1(&g, "exp", it_expf, 0x7f800001u, 0, "exp of a signalling NaN is NaN (compared by class)");
    require(is_nan(y), "exp(sNaN)");
    y = unary1(&g, "exp", it_expf, 0xffc00000u, 0, "exp of a negative NaN is NaN (compared by class)");
    require(is_nan(y), "exp(-NaN)");
    y = unary1(&g, "exp", it_expf, 0x00000001u, 0, "exp of the smallest subnormal, 2^-149, rounds to 1");
    require(U(y) == 0x3f800000u, "exp(2^-149)");
    y = unary1(&g, "exp", it_expf, 0x80000001u, 0, "exp(-2^-149) = 1 - 2^-149 rounds to 1");
    require(U(y) == 0x3f800000u, "exp(-2^-149)");

    uint32_t p1 = first_true(0, 0x3f800000u, exp_pos_not_one);
    y = unary1(&g, "exp", it_expf, p1 - 1, FL(EDGE), "the largest x whose exp rounds down to 1 (positive side)");
    require(U(y) == 0x3f800000u, "exp(%08x)", (unsigned)(p1 - 1));
    y = unary1(&g, "exp", it_expf, p1, FL(EDGE), "the smallest positive x whose exp rounds up to 1 + 2^-23");
    require(U(y) == 0x3f800001u, "exp(%08x) = %08x", (unsigned)p1, (unsigned)U(y));
    uint32_t n1 = first_true(0, 0x3f800000u, exp_neg_not_one);
    y = unary1(&g, "exp", it_expf, (n1 - 1) | 0x80000000u, FL(EDGE),
               "the negative x of largest magnitude whose exp still rounds to 1");
    require(U(y) == 0x3f800000u, "exp(-%08x)", (unsigned)(n1 - 1));
    y = unary1(&g, "exp", it_expf, n1 | 0x80000000u, FL(EDGE),
               "the negative x of smallest magnitude whose exp rounds to 1 - 2^-24");
    require(U(y) == 0x3f7fffffu, "exp(-%08x) = %08x", (unsigned)n1, (unsigned)U(y));

    y = unary1(&g, "exp", it_expf, 0x3f800000u, 0, "exp(1) is e rounded to nearest: 0x402df854");
    require(U(y) == 0x402df854u, "exp(1) = %08x", (unsigned)U(y));
    unary1(&g, "exp", it_expf, 0xbf800000u, 0, "exp(-1) = 1/e rounded once (not 1/RN(e))");
    unary1(&g, "exp", it_expf, 0x3f317218u, 0, "exp at RN(ln 2): a result just above 2");
    unary1(&g, "exp", it_expf, 0x3f000000u, 0, "exp(0.5)");
    unary1(&g, "exp", it_expf, 0x41200000u, 0, "exp(10)");
    unary1(&g, "exp", it_expf, 0xc1200000u, 0, "exp(-10), the kind of argument softmax produces");
    unary1(&g, "exp", it_expf, 0xc1858000u, 0, "exp(-16.6875): near 2^-24, the size where a softmax term stops "
                                                  "changing a sum of 1");

    uint32_t ovf = first_true(0x42000000u, 0x7f7fffffu, exp_is_inf);
    y = unary1(&g, "exp", it_expf, ovf - 1, FL(EDGE), "the largest x with a finite exp (overflow threshold, found "
                                                        "by bisection with the reference)");
    require(!is_inf(y) && U(y) >= 0x7f000000u, "exp(%08x) = %08x", (unsigned)(ovf - 1), (unsigned)U(y));
    y = unary1(&g, "exp", it_expf, ovf, FL(EDGE) | FL(OVERFLOW), "the smallest x whose exp overflows to +inf");
    require(U(y) == 0x7f800000u, "exp(%08x)", (unsigned)ovf);
    unary1(&g, "exp", it_expf, 0x42b20000u, FL(OVERFLOW), "exp(89) overflows to +inf");
    unary1(&g, "exp", it_expf, 0x7f7fffffu, FL(OVERFLOW), "exp of the largest finite binary32 overflows to +inf");

    uint32_t sub = first_true(0x3f800000u, 0x7f7fffffu, exp_neg_subnormal);
    y = unary1(&g, "exp", it_expf, (sub - 1) | 0x80000000u, FL(EDGE),
               "the most negative x whose exp is still normal (found by bisection)");
    require(U(y) >= 0x00800000u, "exp(-%08x)", (unsigned)(sub - 1));
    y = unary1(&g, "exp", it_expf, sub | 0x80000000u, FL(EDGE) | FL(UNDERFLOW),
               "the largest x whose exp is subnormal: gradual underflow starts here");
    require(is_subnormal(y), "exp(-%08x) = %08x", (unsigned)sub, (unsigned)U(y));
    const float deep[3] = {-90.0f, -100.0f, -103.0f};
    for (int i = 0; i < 3; i++) {
        y = unary(&g, "exp", it_expf, &deep[i], 1, FL(UNDERFLOW), "exp(%g) is subnormal: an FTZ build returns 0",
                  (double)deep[i]);
        require(is_subnormal(y), "exp(%g)", (double)deep[i]);
    }
    uint32_t zero = first_true(0x3f800000u, 0x7f7fffffu, exp_neg_zero);
    y = unary1(&g, "exp", it_expf, (zero - 1) | 0x80000000u, FL(EDGE) | FL(UNDERFLOW),
               "the most negative x whose exp is not 0: the result is the smallest subnormal 2^-149");
    require(U(y) == 1, "exp(-%08x) = %08x", (unsigned)(zero - 1), (unsigned)U(y));
    y = unary1(&g, "exp", it_expf, zero | 0x80000000u, FL(EDGE) | FL(UNDERFLOW),
               "the largest x whose exp underflows to +0 (below half of 2^-149)");
    require(U(y) == 0, "exp(-%08x) = %08x", (unsigned)zero, (unsigned)U(y));
    unary1(&g, "exp", it_expf, 0xc2d00000u, FL(UNDERFLOW), "exp(-104) underflows to +0");
    unary1(&g, "exp", it_expf, 0xff7fffffu, FL(UNDERFLOW), "exp of the most negative finite binary32 is +0");

    softmax_args(&pos_init[0], args);
    unary(&g, "exp", it_expf, args, V, FL(TYPICAL),
          "the 256 arguments z[k] - max softmax passes to exp: step 1, position 0, initial parameters");
    softmax_args(&pos_100[0], args);
    unary(&g, "exp", it_expf, args, V, FL(TYPICAL),
          "the 256 arguments z[k] - max softmax passes to exp: step 101, position 0, parameters after 100 steps");
    softmax_args(&pos_200[7], args);
    unary(&g, "exp", it_expf, args, V, FL(TYPICAL),
          "the 256 arguments z[k] - max softmax passes to exp: step 200, position 7, parameters after 199 steps");
    group_end(&g);
}

/* ---- group: log (spec 3.3) ------------------------------------------------------------------- */

static void gen_log(void)
{
    group g;
    group_begin(&g, "log", "3.3");
    float y, sums[B];

    y = unary1(&g, "log", it_logf, 0x00000000u, FL(SPECIAL), "log(+0) = -inf");
    require(U(y) == 0xff800000u, "log(+0) = %08x", (unsigned)U(y));
    y = unary1(&g, "log", it_logf, 0x80000000u, FL(SPECIAL), "log(-0) = -inf (not NaN: -0 is a zero)");
    require(U(y) == 0xff800000u, "log(-0) = %08x", (unsigned)U(y));
    y = unary1(&g, "log", it_logf, 0x3f800000u, FL(SPECIAL), "log(1) = +0 exactly (not -0)");
    require(U(y) == 0, "log(1) = %08x", (unsigned)U(y));
    y = unary1(&g, "log", it_logf, 0x7f800000u, FL(SPECIAL), "log(+inf) = +inf");
    require(U(y) == 0x7f800000u, "log(+inf)");
    y = unary1(&g, "log", it_logf, 0xff800000u, 0, "log(-inf) is NaN");
    require(is_nan(y), "log(-inf)");
    y = unary1(&g, "log", it_logf, 0xbf800000u, 0, "log(-1) is NaN");
    require(is_nan(y), "log(-1)");
    y = unary1(&g, "log", it_logf, 0x80000001u, 0, "log of the negative subnormal -2^-149 is NaN");
    require(is_nan(y), "log(-2^-149)");
    y = unary1(&g, "log", it_logf, 0x7fc00000u, 0, "log of a quiet NaN is NaN (compared by class)");
    require(is_nan(y), "log(NaN)");
    y = unary1(&g, "log", it_logf, 0x7f800001u, 0, "log of a signalling NaN is NaN (compared by class)");
    require(is_nan(y), "log(sNaN)");

    unary1(&g, "log", it_logf, 0x00000001u, FL(EDGE), "log of the smallest subnormal, 2^-149: the most negative "
                                                        "finite log");
    unary1(&g, "log", it_logf, 0x00000003u, 0, "log(3 * 2^-149), a subnormal with an odd significand");
    unary1(&g, "log", it_logf, 0x007fffffu, FL(EDGE), "log of the largest subnormal");
    unary1(&g, "log", it_logf, 0x00800000u, FL(EDGE), "log of the smallest normal, 2^-126");
    unary1(&g, "log", it_logf, 0x7f7fffffu, FL(EDGE), "log of the largest finite binary32: the largest log");
    unary1(&g, "log", it_logf, 0x3f7fffffu, FL(EDGE), "log(1 - 2^-24), just below 1: the result is about -2^-24, "
                                                        "where a formula through 1 + x loses every bit");
    unary1(&g, "log", it_logf, 0x3f800001u, FL(EDGE), "log(1 + 2^-23), just above 1: the result is about 2^-23");
    unary1(&g, "log", it_logf, 0x3f7ff000u, 0, "log(1 - 2^-12)");
    unary1(&g, "log", it_logf, 0x3f801000u, 0, "log(1 + 2^-11)");
    y = unary1(&g, "log", it_logf, 0x40000000u, 0, "log(2) is ln 2 rounded to nearest: 0x3f317218");
    require(U(y) == 0x3f317218u, "log(2) = %08x", (unsigned)U(y));
    unary1(&g, "log", it_logf, 0x3f000000u, 0, "log(0.5) = -RN(ln 2)");
    unary1(&g, "log", it_logf, 0x402df854u, 0, "log(RN(e)): close to, but not necessarily, 1");
    unary1(&g, "log", it_logf, 0x41200000u, 0, "log(10)");
    unary1(&g, "log", it_logf, 0x43800000u, 0, "log(256): the loss of a uniform softmax over 256 bytes");
    unary1(&g, "log", it_logf, 0x3f8ccccdu, 0, "log(RN(1.1))");

    for (int p = 0; p < B; p++)
        sums[p] = pos_init[p].S;
    unary(&g, "log", it_logf, sums, B, FL(TYPICAL),
          "the 64 softmax denominators S of step 1 (initial parameters), positions 0..63");
    for (int p = 0; p < B; p++)
        sums[p] = pos_100[p].S;
    unary(&g, "log", it_logf, sums, B, FL(TYPICAL),
          "the 64 softmax denominators S of step 101 (parameters after 100 steps), positions 0..63");
    group_end(&g);
}

/* ---- group: tanh (spec 3.4) ------------------------------------------------------------------ */

static void gen_tanh(void)
{
    group g;
    group_begin(&g, "tanh", "3.4");
    float y, z[4 * H];

    y = unary1(&g, "tanh", it_tanhf, 0x00000000u, FL(SPECIAL), "tanh(+0) = +0");
    require(U(y) == 0, "tanh(+0)");
    y = unary1(&g, "tanh", it_tanhf, 0x80000000u, FL(SPECIAL), "tanh(-0) = -0: the sign of zero survives");
    require(U(y) == 0x80000000u, "tanh(-0) = %08x", (unsigned)U(y));
    y = unary1(&g, "tanh", it_tanhf, 0x7f800000u, FL(SPECIAL), "tanh(+inf) = 1");
    require(U(y) == 0x3f800000u, "tanh(+inf)");
    y = unary1(&g, "tanh", it_tanhf, 0xff800000u, FL(SPECIAL), "tanh(-inf) = -1");
    require(U(y) == 0xbf800000u, "tanh(-inf)");
    y = unary1(&g, "tanh", it_tanhf, 0x7fc00000u, 0, "tanh(NaN) is NaN (compared by class)");
    require(is_nan(y), "tanh(NaN)");
    y = unary1(&g, "tanh", it_tanhf, 0x00000001u, 0, "tanh(2^-149) = 2^-149: below 2^-12 tanh returns x");
    require(U(y) == 1, "tanh(2^-149)");
    y = unary1(&g, "tanh", it_tanhf, 0x80000001u, 0, "tanh(-2^-149) = -2^-149");
    require(U(y) == 0x80000001u, "tanh(-2^-149)");

    y = unary1(&g, "tanh", it_tanhf, 0x397fffffu, FL(EDGE),
               "the largest x below 2^-12: returned unchanged, the sequence's small-argument branch");
    require(U(y) == 0x397fffffu, "tanh(0x397fffff) = %08x", (unsigned)U(y));
    y = unary1(&g, "tanh", it_tanhf, 0xb97fffffu, FL(EDGE), "the negative twin: -x just above -2^-12 is returned "
                                                             "unchanged");
    require(U(y) == 0xb97fffffu, "tanh(0xb97fffff)");
    unary1(&g, "tanh", it_tanhf, 0x39800000u, FL(EDGE),
           "x = 2^-12 exactly: the first input through (1 - e)/(1 + e) with e = exp(-2x)");
    unary1(&g, "tanh", it_tanhf, 0xb9800000u, FL(EDGE), "x = -2^-12: through the formula, sign applied last");
    unary1(&g, "tanh", it_tanhf, 0x39800001u, FL(EDGE), "just above 2^-12");
    unary1(&g, "tanh", it_tanhf, 0x3a000000u, 0, "tanh(2^-11): small, 1 - e cancels heavily");
    unary1(&g, "tanh", it_tanhf, 0x3f000000u, 0, "tanh(0.5)");
    unary1(&g, "tanh", it_tanhf, 0x3f800000u, 0, "tanh(1)");
    unary1(&g, "tanh", it_tanhf, 0xbf800000u, 0, "tanh(-1) = -tanh(1) by the sequence's symmetry");
    unary1(&g, "tanh", it_tanhf, 0x40000000u, 0, "tanh(2)");

    uint32_t one = first_true(0x3f800000u, 0x7f800000u, tanh_is_one);
    y = unary1(&g, "tanh", it_tanhf, one - 1, FL(EDGE), "the largest x whose tanh is below 1 (found by bisection)");
    require(U(y) < 0x3f800000u, "tanh(%08x) = %08x", (unsigned)(one - 1), (unsigned)U(y));
    y = unary1(&g, "tanh", it_tanhf, one, FL(EDGE), "the smallest x whose tanh is exactly 1");
    require(U(y) == 0x3f800000u, "tanh(%08x)", (unsigned)one);
    y = unary1(&g, "tanh", it_tanhf, one | 0x80000000u, FL(EDGE), "its negative: tanh is exactly -1");
    require(U(y) == 0xbf800000u, "tanh(-%08x)", (unsigned)one);

    require(is_subnormal(it_expf(-88.0f)), "exp(-88) is not subnormal");
    unary1(&g, "tanh", it_tanhf, 0x42300000u, FL(SUBNORMAL),
           "tanh(44): the intermediate e = exp(-88) is subnormal; 1 - e and 1 + e round to 1");
    require(U(it_expf(-104.0f)) == 0, "exp(-104) is not 0");
    unary1(&g, "tanh", it_tanhf, 0x42500000u, FL(UNDERFLOW), "tanh(52): e = exp(-104) underflows to 0");
    require(is_inf(F(0x7f000000u) + F(0x7f000000u)), "2^127 + 2^127 does not overflow");
    unary1(&g, "tanh", it_tanhf, 0x7f000000u, FL(OVERFLOW),
           "tanh(2^127): -(a + a) overflows to -inf inside the sequence, exp(-inf) = 0, result 1");
    unary1(&g, "tanh", it_tanhf, 0xff7fffffu, FL(OVERFLOW), "tanh of the most negative finite value is -1");

    for (int p = 0; p < 4; p++)
        memcpy(z + p * H, pos_init[p].z1, sizeof pos_init[p].z1);
    unary(&g, "tanh", it_tanhf, z, 4 * H, FL(TYPICAL),
          "the hidden pre-activations of step 1, positions 0..3, initial parameters (4 x 32 values)");
    for (int p = 0; p < 4; p++)
        memcpy(z + p * H, pos_100[p].z1, sizeof pos_100[p].z1);
    unary(&g, "tanh", it_tanhf, z, 4 * H, FL(TYPICAL),
          "the hidden pre-activations of step 101, positions 0..3, parameters after 100 steps (4 x 32 values)");
    group_end(&g);
}

/* ---- group: dot (spec 4.2) ---------------------------------------------------------------------- */

static const float T4[4] = {1e8f, 1.0f, -1e8f, 1.0f}; /* ascending 1, reversed 0, pairwise 0 */
static const float ONES[8] = {1, 1, 1, 1, 1, 1, 1, 1};

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static float dot_case(group *g, const float *a, const float *b, size_t n, unsigned flags, const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "dot", flags, fmt, ap);
    va_end(ap);
    float y = it_dot(a, b, n);
    in_f32(&c, "a", a, n);
    in_f32(&c, "b", b, n);
    out_f1(&c, "y", y);
    tc_end(g, &c);
    return y;
}

/* The (1 + 2^-12)^2 family: RN((1+2^-12)^2) = 1 + 2^-11 (a tie, to even),
 * so -(1 + 2^-11) + that is +0 while a fused a*b + acc keeps 2^-24. */
#define ONE_P12 0x3f800800u /* 1 + 2^-12 */
#define ONE_P11 0x3f801000u /* 1 + 2^-11 */

static void gen_dot(void)
{
    group g;
    group_begin(&g, "dot", "4.2");
    float y;

    require(U(sum_descending(T4, 4)) == 0 && U(sum_pairwise(T4, 4)) == 0 && U(sum_ascending(T4, 4)) == 0x3f800000u,
            "[1e8, 1, -1e8, 1] does not separate the orders");
    y = dot_case(&g, T4, ONES, 4, FL(ORDER),
                 "[1e8, 1, -1e8, 1] . [1, 1, 1, 1]: ascending from +0 gives 1; reversed or pairwise gives 0");
    require(U(y) == 0x3f800000u, "dot(T4) = %08x", (unsigned)U(y));
    const float t_rev[4] = {1.0f, 1e8f, 1.0f, -1e8f};
    require(U(sum_ascending(t_rev, 4)) == 0 && U(sum_descending(t_rev, 4)) == 0x3f800000u,
            "[1, 1e8, 1, -1e8] does not separate ascending from descending");
    dot_case(&g, t_rev, ONES, 4, FL(ORDER),
             "[1, 1e8, 1, -1e8] . ones: ascending gives 0, descending gives 1 (pins the direction)");
    const float neg0[2] = {-0.0f, -0.0f};
    require(U((-0.0f + -0.0f)) == 0x80000000u, "sanity");
    y = dot_case(&g, neg0, ONES, 2, FL(SPECIAL),
                 "[-0, -0] . [1, 1] = +0: the sum starts from +0 (starting from the first product gives -0)");
    require(U(y) == 0, "dot(-0,-0) = %08x", (unsigned)U(y));
    const float m1[1] = {-1.0f}, z1[1] = {0.0f};
    y = dot_case(&g, m1, z1, 1, FL(SPECIAL), "[-1] . [0]: the product is -0, and +0 + -0 = +0");
    require(U(y) == 0 && U(m1[0] * z1[0]) == 0x80000000u, "dot([-1],[0])");

    const float fa[2] = {-1.0f, F(ONE_P12)}, fb[2] = {F(ONE_P11), F(ONE_P12)};
    float acc = 0.0f + fa[0] * fb[0];
    require(is_tie((double)fa[1] * (double)fb[1]), "(1+2^-12)^2 is not a tie");
    float fz = fused(acc, fa[1], fb[1]);
    y = dot_case(&g, fa, fb, 2, FL(FMA) | FL(TIE),
                 "[-1, 1+2^-12] . [1+2^-11, 1+2^-12]: (1+2^-12)^2 = 1+2^-11+2^-24 ties to 1+2^-11 and cancels to "
                 "+0; fused into the sum the 2^-24 survives (%08x)",
                 (unsigned)U(fz));
    require(U(y) == 0 && !same(fz, y), "FMA claim: unfused %08x fused %08x", (unsigned)U(y), (unsigned)U(fz));

    const float tie_dn[2] = {1.0f, 0x1p-24f}, tie_up[2] = {F(0x3f800001u), 0x1p-24f};
    require(is_tie(exact_sum(tie_dn[0], tie_dn[1])) && is_tie(exact_sum(tie_up[0], tie_up[1])), "tie claims");
    y = dot_case(&g, tie_dn, ONES, 2, FL(TIE), "1 + 2^-24 is a tie: to even gives 1");
    require(U(y) == 0x3f800000u, "tie down");
    y = dot_case(&g, tie_up, ONES, 2, FL(TIE), "(1 + 2^-23) + 2^-24 is a tie: to even gives 1 + 2^-22");
    require(U(y) == 0x3f800002u, "tie up = %08x", (unsigned)U(y));

    const float s70[1] = {0x1p-70f};
    y = dot_case(&g, s70, s70, 1, FL(SUBNORMAL), "2^-70 * 2^-70 = 2^-140, a subnormal product kept exactly");
    require(U(y) == 0x00000200u, "2^-140 = %08x", (unsigned)U(y));
    const float s75[1] = {0x1p-75f};
    require(is_tie((double)s75[0] * (double)s75[0]), "2^-150 is not a tie");
    y = dot_case(&g, s75, s75, 1, FL(UNDERFLOW) | FL(TIE),
                 "2^-75 * 2^-75 = 2^-150, halfway between +0 and 2^-149: ties to even gives +0");
    require(U(y) == 0, "2^-150");
    const float s75b[1] = {0x1.8p-75f};
    y = dot_case(&g, s75b, s75, 1, FL(UNDERFLOW), "1.5*2^-75 * 2^-75 = 1.5*2^-150 rounds up to 2^-149");
    require(U(y) == 1, "1.5*2^-150 = %08x", (unsigned)U(y));
    const float subs[3] = {F(1), F(1), F(1)};
    y = dot_case(&g, subs, ONES, 3, 0, "three subnormals 2^-149 sum exactly to 3*2^-149");
    require(U(y) == 3, "3*2^-149");

    const float big[3] = {3e38f, 3e38f, -3e38f};
    require(is_inf(sum_ascending(big, 3)) && !is_inf(sum_descending(big, 3)), "overflow order claim");
    y = dot_case(&g, big, ONES, 3, FL(OVERFLOW) | FL(ORDER),
                 "[3e38, 3e38, -3e38] . ones: ascending overflows to +inf and stays; descending gives 3e38");
    require(U(y) == 0x7f800000u, "overflow");
    const float infs[2] = {F(0x7f800000u), F(0xff800000u)};
    dot_case(&g, infs, ONES, 2, 0, "+inf + -inf is NaN");
    const float inf1[1] = {F(0x7f800000u)};
    dot_case(&g, inf1, z1, 1, 0, "inf * 0 is NaN");
    const float nan3[3] = {1.0f, F(0x7fc00000u), 1.0f};
    dot_case(&g, nan3, ONES, 3, 0, "a NaN term makes the sum NaN");

    dot_case(&g, T_W1(hist[0]), pos_init[0].e, D, FL(TYPICAL),
             "row 0 of w1 . the embedding of the first input byte: step 1, position 0, initial parameters");
    dot_case(&g, T_W2(hist[100]) + (size_t)batch_y[101][0] * H, pos_100[0].h, H, FL(TYPICAL),
             "the w2 row of the target byte . the hidden activations: step 101, position 0, after 100 steps");
    group_end(&g);
}

/* ---- group: linear (spec 5.2 forward, 5.7 backward) --------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 9, 10)))
#endif
static void linfwd_case(group *g, const float *w, const float *b, const float *x, size_t in, size_t out,
                        const float *expect, unsigned flags, const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "linear_forward", flags, fmt, ap);
    va_end(ap);
    float *y = malloc(out * sizeof *y);
    if (!y)
        die("out of memory");
    it_linear_forward(w, b, x, in, out, y);
    if (expect)
        for (size_t o = 0; o < out; o++)
            require(same(y[o], expect[o]), "linear_forward output %zu: %08x, expected %08x", o, (unsigned)U(y[o]),
                    (unsigned)U(expect[o]));
    in_int(&c, "in", in);
    in_int(&c, "out", out);
    in_f32(&c, "w", w, in * out);
    in_f32(&c, "b", b, out);
    in_f32(&c, "x", x, in);
    out_f32(&c, "y", y, out);
    tc_end(g, &c);
    free(y);
}

#if defined(__GNUC__)
__attribute__((format(printf, 11, 12)))
#endif
static void linbwd_case(group *g, const float *w, const float *x, const float *dy, const float *dw0,
                        const float *db0, size_t in, size_t out, const float *expect_dx, unsigned flags,
                        const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "linear_backward", flags, fmt, ap);
    va_end(ap);
    float *dw = malloc(in * out * sizeof *dw), *db = malloc(out * sizeof *db), *dx = malloc(in * sizeof *dx);
    if (!dw || !db || !dx)
        die("out of memory");
    memcpy(dw, dw0, in * out * sizeof *dw);
    memcpy(db, db0, out * sizeof *db);
    it_linear_backward(w, x, dy, in, out, dw, db, dx);
    if (expect_dx)
        for (size_t i = 0; i < in; i++)
            require(same(dx[i], expect_dx[i]), "linear_backward dx[%zu]: %08x, expected %08x", i,
                    (unsigned)U(dx[i]), (unsigned)U(expect_dx[i]));
    in_int(&c, "in", in);
    in_int(&c, "out", out);
    in_f32(&c, "w", w, in * out);
    in_f32(&c, "x", x, in);
    in_f32(&c, "dy", dy, out);
    in_f32(&c, "dw", dw0, in * out);
    in_f32(&c, "db", db0, out);
    out_f32(&c, "dw", dw, in * out);
    out_f32(&c, "db", db, out);
    out_f32(&c, "dx", dx, in);
    tc_end(g, &c);
    free(dw);
    free(db);
    free(dx);
}

static void gen_linear(void)
{
    group g;
    group_begin(&g, "linear", "5");
    static float grads[NP];

    /* forward */
    {
        const float w[2] = {1e8f, -1e8f}, x[2] = {1, 1}, b[1] = {1}, want[1] = {1};
        float bias_first = (b[0] + w[0] * x[0]) + w[1] * x[1];
        require(U(bias_first) == 0, "bias-first claim");
        linfwd_case(&g, w, b, x, 2, 1, want, FL(ORDER),
                    "w = [1e8, -1e8], x = [1, 1], b = 1: the bias joins after the dot product, giving 1; starting "
                    "the sum from the bias gives 0");
    }
    {
        const float b[1] = {0}, want[1] = {1};
        linfwd_case(&g, T4, b, ONES, 4, 1, want, FL(ORDER),
                    "one row [1e8, 1, -1e8, 1], x = ones: the row's dot product ascends (reversed gives 0)");
    }
    {
        const float w[1] = {-1.0f}, x[1] = {0.0f}, b[1] = {-0.0f}, want[1] = {0.0f};
        float bias_first = b[0] + w[0] * x[0];
        require(U(bias_first) == 0x80000000u, "bias-first -0 claim");
        linfwd_case(&g, w, b, x, 1, 1, want, FL(SPECIAL) | FL(ORDER),
                    "w = [-1], x = [0], b = -0: (+0 + -0) + -0 = +0; starting from the bias gives -0");
    }
    {
        const float w[2] = {-1.0f, F(ONE_P12)}, x[2] = {F(ONE_P11), F(ONE_P12)}, b[1] = {0}, want[1] = {0};
        float fz = fused(w[0] * x[0], w[1], x[1]);
        require(U(fz) != 0, "FMA claim");
        linfwd_case(&g, w, b, x, 2, 1, want, FL(FMA) | FL(TIE),
                    "w = [-1, 1+2^-12], x = [1+2^-11, 1+2^-12], b = 0: the rounded product cancels to +0; a fused "
                    "product-add gives 2^-24");
    }
    {
        const float w[6] = {1, 2, 3, 4, 5, 6}, x[3] = {1, 10, 100}, b[2] = {0.5f, -0.5f}, want[2] = {321.5f, 653.5f};
        linfwd_case(&g, w, b, x, 3, 2, want, 0,
                    "w is out x in, row-major: w[o][i] = w[o*in + i] (a transposed reading gives other values)");
    }
    {
        const float w[1] = {0x1p-70f}, x[1] = {0x1p-70f}, b[1] = {0x1p-149f};
        linfwd_case(&g, w, b, x, 1, 1, NULL, 0, "2^-70 * 2^-70 + 2^-149: a subnormal dot product plus a subnormal "
                                                "bias, 2^-140 + 2^-149 exactly");
    }
    linfwd_case(&g, T_W1(hist[0]), T_B1(hist[0]), pos_init[0].e, D, H, pos_init[0].z1, FL(TYPICAL),
                "layer 1 (16 -> 32) at step 1, position 0, initial parameters (b1 is all zeros)");
    linfwd_case(&g, T_W1(hist[100]), T_B1(hist[100]), pos_100[0].e, D, H, pos_100[0].z1, FL(TYPICAL),
                "layer 1 (16 -> 32) at step 101, position 0, parameters after 100 steps");
    linfwd_case(&g, T_W2(hist[100]), T_B2(hist[100]), pos_100[0].h, H, V, pos_100[0].z2, FL(TYPICAL),
                "layer 2 (32 -> 256) at step 101, position 0, parameters after 100 steps");

    /* backward */
    {
        const float x[1] = {1}, dw[4] = {0}, db[4] = {0}, want[1] = {1};
        float rev = ((T4[3] + T4[2]) + T4[1]) + T4[0];
        require(U(rev) == 0, "dx order claim");
        linbwd_case(&g, T4, x, ONES, dw, db, 1, 4, want, FL(ORDER),
                    "one input, four outputs, w column [1e8, 1, -1e8, 1], dy = ones: dx ascends over outputs "
                    "from +0 (1; reversed gives 0)");
    }
    {
        const float w[1] = {0}, x[1] = {F(ONE_P12)}, dy[1] = {F(ONE_P12)}, dw[1] = {-F(ONE_P11)}, db[1] = {1};
        float fz = fused(dw[0], dy[0], x[0]);
        require(U(fz) != 0 && U(dw[0] + dy[0] * x[0]) == 0, "accumulation FMA claim");
        linbwd_case(&g, w, x, dy, dw, db, 1, 1, NULL, FL(FMA) | FL(TIE),
                    "dw = -(1+2^-11) accumulates dy*x = RN((1+2^-12)^2) = 1+2^-11: +0; a fused accumulate gives "
                    "2^-24. db accumulates from the given 1");
    }
    {
        const float w[1] = {1}, x[1] = {1}, dy[1] = {0x1p-24f}, dw[1] = {1}, db[1] = {F(0x3f800001u)};
        require(is_tie(exact_sum(dw[0], dy[0])) && is_tie(exact_sum(db[0], dy[0])), "accumulate tie claim");
        linbwd_case(&g, w, x, dy, dw, db, 1, 1, NULL, FL(TIE),
                    "accumulating 2^-24 into 1 (dw) and into 1+2^-23 (db): both ties, to even 1 and 1+2^-22");
    }
    {
        const float w[1] = {0.5f}, x[1] = {0x1p-70f}, dy[1] = {0x1p-70f}, dw[1] = {0}, db[1] = {0};
        linbwd_case(&g, w, x, dy, dw, db, 1, 1, NULL, 0,
                    "dy = x = 2^-70: the weight gradient 2^-140 is subnormal and kept");
    }
    {
        const float w[1] = {0}, x[1] = {0}, dy[1] = {-1}, dw[1] = {-0.0f}, db[1] = {-0.0f}, want[1] = {0};
        require(U(w[0] * dy[0]) == 0x80000000u, "dx -0 claim");
        linbwd_case(&g, w, x, dy, dw, db, 1, 1, want, FL(SPECIAL),
                    "signed zeros: dw = -0 + (-1 * 0) stays -0; dx = +0 + (0 * -1) is +0 (the sum starts from +0, "
                    "not from the first term, -0)");
    }
    {
        /* layer 2 at step 101, position 5: dw2/db2 hold positions 0..4 */
        run_positions(hist[100], batch_x[101], batch_y[101], B, 5, grads, NULL);
        const position *P = &pos_100[5];
        linbwd_case(&g, T_W2(hist[100]), P->h, P->dz2, grads + IT_MLP13K_OFF_W2, grads + IT_MLP13K_OFF_B2, H, V,
                    P->dh, FL(TYPICAL),
                    "layer 2 backward at step 101, position 5, after 100 steps: dw and db arrive holding the sums of "
                    "positions 0..4");
    }
    {
        run_positions(hist[0], batch_x[1], batch_y[1], B, 3, grads, NULL);
        const position *P = &pos_init[3];
        linbwd_case(&g, T_W1(hist[0]), P->e, P->dz1, grads + IT_MLP13K_OFF_W1, grads + IT_MLP13K_OFF_B1, D, H,
                    P->de, FL(TYPICAL),
                    "layer 1 backward at step 1, position 3, initial parameters: dw and db hold positions 0..2");
    }
    group_end(&g);
}

/* ---- group: softmax_xent (spec 5.4 forward, 5.5 backward) ------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static float sxf_case(group *g, const float *z, size_t n, unsigned target, unsigned flags, const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "softmax_xent_forward", flags, fmt, ap);
    va_end(ap);
    float *probs = malloc(n * sizeof *probs);
    if (!probs)
        die("out of memory");
    float loss = it_softmax_xent_forward(z, n, target, probs);
    in_f32(&c, "z", z, n);
    in_int(&c, "target", target);
    out_f32(&c, "probs", probs, n);
    out_f1(&c, "loss", loss);
    tc_end(g, &c);
    free(probs);
    return loss;
}

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static void sxb_case(group *g, const float *probs, size_t n, unsigned target, float scale, unsigned flags,
                     const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "softmax_xent_backward", flags, fmt, ap);
    va_end(ap);
    float *dz = malloc(n * sizeof *dz);
    if (!dz)
        die("out of memory");
    it_softmax_xent_backward(probs, n, target, scale, dz);
    in_f32(&c, "probs", probs, n);
    in_int(&c, "target", target);
    in_f1(&c, "scale", scale);
    out_f32(&c, "dz", dz, n);
    tc_end(g, &c);
    free(dz);
}

static void gen_softmax_xent(void)
{
    group g;
    group_begin(&g, "softmax_xent", "5");
    float loss;

    {
        const float z[3] = {0.0f, -16.7f, -16.7f};
        float e[3];
        for (int k = 0; k < 3; k++)
            e[k] = it_expf(z[k] - 0.0f);
        require(U(sum_ascending(e, 3)) == 0x3f800000u && U(sum_descending(e, 3)) == 0x3f800001u,
                "dominated denominator claim: ascending %08x descending %08x", (unsigned)U(sum_ascending(e, 3)),
                (unsigned)U(sum_descending(e, 3)));
        loss = sxf_case(&g, z, 3, 0, FL(ORDER),
                        "z = [0, -16.7, -16.7]: each e^-16.7 is under half an ulp of 1, so the ascending "
                        "denominator stays 1 (loss +0); summed in reverse it is 1 + 2^-23");
        require(U(loss) == 0, "loss = %08x", (unsigned)U(loss));
    }
    {
        const float z[3] = {100.0f, 0.0f, -100.0f};
        require(is_inf(it_expf(100.0f)), "exp(100) does not overflow");
        sxf_case(&g, z, 3, 1, FL(OVERFLOW) | FL(UNDERFLOW),
                 "z = [100, 0, -100], target 1: exp(100) overflows unless the maximum is subtracted first; "
                 "p[1] = e^-100 is subnormal, p[2] = e^-200 is 0");
    }
    {
        const float z[3] = {1.0f, 3.0f, 2.0f};
        sxf_case(&g, z, 3, 2, 0, "z = [1, 3, 2], target 2: the maximum is not the first logit");
    }
    {
        const float z[2] = {5.0f, 5.0f};
        loss = sxf_case(&g, z, 2, 0, 0, "z = [5, 5]: a tied maximum, p = [0.5, 0.5], loss = log 2");
        require(U(loss) == 0x3f317218u, "loss = %08x", (unsigned)U(loss));
    }
    {
        const float z[2] = {0.0f, -104.0f};
        float p[2];
        it_softmax_xent_forward(z, 2, 1, p);
        require(U(p[1]) == 0 && is_inf(-it_logf(p[1])), "-log p claim");
        loss = sxf_case(&g, z, 2, 1, FL(UNDERFLOW) | FL(EDGE),
                        "z = [0, -104], target 1: p[1] underflows to 0, yet the loss log S - (z[t] - m) = 104 is "
                        "finite (-log p[t] would be +inf)");
        require(U(loss) == U(104.0f), "loss = %08x", (unsigned)U(loss));
    }
    {
        const float z[2] = {0.0f, F(0xff800000u)};
        loss = sxf_case(&g, z, 2, 1, 0, "z = [0, -inf], target 1: p = [1, 0] and the loss is +inf");
        require(U(loss) == 0x7f800000u, "loss = %08x", (unsigned)U(loss));
        sxf_case(&g, z, 2, 0, 0, "z = [0, -inf], target 0: a -inf logit contributes exp(-inf) = 0; loss +0");
    }
    {
        const float z[2] = {F(0x7f800000u), 0.0f};
        sxf_case(&g, z, 2, 1, 0, "z = [+inf, 0]: inf - inf = NaN, every output is NaN");
    }
    {
        const float z[3] = {1.0f, F(0x7fc00000u), 0.0f};
        sxf_case(&g, z, 3, 0, 0, "z = [1, NaN, 0]: a NaN logit makes the denominator and every output NaN");
    }
    {
        const float z[1] = {3.0f};
        loss = sxf_case(&g, z, 1, 0, FL(EDGE), "a single logit: p = [1], loss = +0");
        require(U(loss) == 0, "loss");
    }
    {
        float z[V];
        for (int k = 0; k < V; k++)
            z[k] = 0.0f;
        loss = sxf_case(&g, z, V, 7, 0, "256 equal logits: S = 256 exactly, every p = 2^-8, loss = RN(log 256)");
        require(U(loss) == U(it_logf(256.0f)), "uniform loss");
    }
    loss = sxf_case(&g, pos_init[0].z2, V, batch_y[1][0], FL(TYPICAL),
                    "the 256 logits of step 1, position 0, initial parameters (b2 = 0), its real target");
    require(U(loss) == U(pos_init[0].loss), "typical loss");
    sxf_case(&g, pos_100[0].z2, V, batch_y[101][0], FL(TYPICAL),
             "the 256 logits of step 101, position 0, after 100 steps, its real target");
    sxf_case(&g, pos_200[7].z2, V, batch_y[200][7], FL(TYPICAL),
             "the 256 logits of step 200, position 7, after 199 steps, its real target");

    /* backward */
    sxb_case(&g, pos_100[0].probs, V, batch_y[101][0], 1.0f / 64.0f, FL(TYPICAL),
             "the probabilities of step 101, position 0, with scale 1/64 (the profile's batch)");
    sxb_case(&g, pos_init[3].probs, V, batch_y[1][3], 1.0f / 64.0f, FL(TYPICAL),
             "the probabilities of step 1, position 3, initial parameters, scale 1/64");
    {
        const float p[3] = {1.0f, 0.0f, 0.0f};
        sxb_case(&g, p, 3, 0, 1.0f / 64.0f, FL(SPECIAL), "p[target] = 1: (1 - 1) * scale = +0");
    }
    {
        const float p[2] = {0x1p-25f, F(0x33c00000u)}; /* 2^-25, 1.5*2^-24 */
        require(is_tie(exact_sum(p[0], -1.0f)) && is_tie(exact_sum(p[1], -1.0f)), "p - 1 tie claim");
        sxb_case(&g, p, 2, 0, 1.0f, FL(TIE),
                 "target p = 2^-25: p - 1 is a tie, to even -1; scale 1");
        sxb_case(&g, p, 2, 1, 1.0f, FL(TIE),
                 "target p = 1.5*2^-24: p - 1 is a tie, to even -(1 - 2^-23); scale 1");
    }
    {
        const float p[4] = {0x1p-126f, 0x1p-140f, 0x1p-149f, 1.0f};
        require(U(p[2] * (1.0f / 64.0f)) == 0, "underflow claim");
        sxb_case(&g, p, 4, 3, 1.0f / 64.0f, FL(SUBNORMAL) | FL(UNDERFLOW),
                 "tiny probabilities times 1/64: 2^-132 and 2^-146 are subnormal, 2^-155 underflows to 0");
    }
    {
        const float p[3] = {0.5f, 0.25f, 0.25f};
        sxb_case(&g, p, 3, 1, 1.0f / 3.0f, 0, "scale RN(1/3), inexact: each product rounds once");
    }
    {
        const float p[3] = {0.5f, F(0x7fc00000u), 0.5f};
        sxb_case(&g, p, 3, 0, 1.0f / 64.0f, 0, "a NaN probability gives a NaN gradient in its place only");
    }
    group_end(&g);
}

/* ---- group: tanh_backward (spec 5.6) ------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void tb_case(group *g, const float *y, const float *dy, size_t n, unsigned flags, const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "tanh_backward", flags, fmt, ap);
    va_end(ap);
    float *dx = malloc(n * sizeof *dx);
    if (!dx)
        die("out of memory");
    it_tanh_backward(y, dy, n, dx);
    in_f32(&c, "y", y, n);
    in_f32(&c, "dy", dy, n);
    out_f32(&c, "dx", dx, n);
    tc_end(g, &c);
    free(dx);
}

static void gen_tanh_backward(void)
{
    group g;
    group_begin(&g, "tanh_backward", "5.6");
    {
        const float y[2] = {1.0f, -1.0f}, dy[2] = {-2.0f, 3.0f};
        tb_case(&g, y, dy, 2, FL(SPECIAL), "y = +-1: the slope 1 - y*y is +0, and dy * +0 carries dy's sign (-0, +0)");
    }
    {
        const float y[2] = {0.0f, -0.0f}, dy[2] = {0.75f, -0.75f};
        tb_case(&g, y, dy, 2, 0, "y = +-0: the slope is exactly 1");
    }
    {
        const float y[1] = {F(0x3f7ffffeu)}, dy[1] = {1.0f};
        float unfused = 1.0f - y[0] * y[0];
        float fz = fused(1.0f, -y[0], y[0]);
        require(!same(unfused, fz), "tanh_backward FMA claim");
        tb_case(&g, y, dy, 1, FL(FMA),
                "y = 1 - 2^-23: y*y rounds to 1 - 2^-22 and the slope is 2^-22; fused, 1 - y*y is 2^-22 - 2^-46");
    }
    {
        /* y = 0.5 + 2^-13: y*y = 0.25 + 2^-13 + 2^-26, exactly half an ulp (2^-25) above 0.25 + 2^-13 */
        const float y[1] = {F(0x3f000800u)}, dy[1] = {1.0f};
        require(is_tie((double)y[0] * (double)y[0]) && U(y[0] * y[0]) == 0x3e801000u, "y*y tie claim");
        float fz = fused(1.0f, -y[0], y[0]);
        tb_case(&g, y, dy, 1, FL(TIE) | (same(1.0f - y[0] * y[0], fz) ? 0 : FL(FMA)),
                "y = 0.5 + 2^-13: y*y = 0.25 + 2^-13 + 2^-26 is an exact tie, to even 0.25 + 2^-13, then the "
                "slope 0.75 - 2^-13");
    }
    {
        const float y[2] = {0x1p-70f, 0x1p-80f}, dy[2] = {1.0f, 1.0f};
        require(is_subnormal(y[0] * y[0]) && U(y[1] * y[1]) == 0, "tiny y claims");
        tb_case(&g, y, dy, 2, FL(SUBNORMAL) | FL(UNDERFLOW),
                "y = 2^-70: y*y = 2^-140 is a subnormal intermediate; y = 2^-80: y*y underflows to 0. Slopes 1");
    }
    {
        const float y[1] = {0.5f}, dy[1] = {0x1p-148f};
        require(is_tie((double)dy[0] * 0.75), "subnormal tie claim");
        tb_case(&g, y, dy, 1, FL(TIE),
                "y = 0.5, dy = 2^-148: 0.75 * 2^-148 = 1.5*2^-149 is a subnormal tie, to even 2^-148");
    }
    {
        const float y[2] = {0.5f, 1.0f}, dy[2] = {F(0x7fc00000u), F(0x7f800000u)};
        tb_case(&g, y, dy, 2, 0, "dy = NaN gives NaN; dy = +inf with y = 1 is inf * 0 = NaN");
    }
    tb_case(&g, pos_100[0].h, pos_100[0].dh, H, FL(TYPICAL),
            "the hidden activations and their gradient at step 101, position 0, after 100 steps");
    tb_case(&g, pos_init[0].h, pos_init[0].dh, H, FL(TYPICAL),
            "the hidden activations and their gradient at step 1, position 0, initial parameters");
    group_end(&g);
}

/* ---- group: embedding (spec 5.1 forward, 5.8 backward) ---------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static void ef_case(group *g, const float *e, size_t rows, size_t dim, unsigned token, unsigned flags,
                    const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "embedding_forward", flags, fmt, ap);
    va_end(ap);
    float *out = malloc(dim * sizeof *out);
    if (!out)
        die("out of memory");
    it_embedding_forward(e, dim, token, out);
    in_int(&c, "dim", dim);
    in_f32(&c, "e", e, rows * dim);
    in_int(&c, "token", token);
    out_f32(&c, "out", out, dim);
    tc_end(g, &c);
    free(out);
}

#if defined(__GNUC__)
__attribute__((format(printf, 9, 10)))
#endif
static void eb_case(group *g, const float *de0, size_t rows, size_t dim, const unsigned char *tokens, size_t m,
                    const float *dout, unsigned flags, const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "embedding_backward", flags, fmt, ap);
    va_end(ap);
    float *de = malloc(rows * dim * sizeof *de);
    uint32_t *tk = malloc(m * sizeof *tk);
    if (!de || !tk)
        die("out of memory");
    memcpy(de, de0, rows * dim * sizeof *de);
    for (size_t p = 0; p < m; p++)
        it_embedding_backward(de, dim, tokens[p], dout + p * dim);
    bytes_to_ints(tokens, m, tk);
    in_int(&c, "dim", dim);
    in_f32(&c, "de", de0, rows * dim);
    tc_ints(&c, 0, "tokens", tk, m);
    in_f32(&c, "dout", dout, m * dim);
    out_f32(&c, "de", de, rows * dim);
    tc_end(g, &c);
    free(de);
    free(tk);
}

static void gen_embedding(void)
{
    group g;
    group_begin(&g, "embedding", "5");
    static float zeros[V * D], dout[B * D];

    ef_case(&g, T_E(hist[0]), V, D, batch_x[1][0], FL(TYPICAL),
            "the initial embedding table, the first input byte of step 1 (%u)", (unsigned)batch_x[1][0]);
    ef_case(&g, T_E(hist[100]), V, D, 0, FL(EDGE), "row 0 of the table after 100 steps");
    ef_case(&g, T_E(hist[100]), V, D, V - 1, FL(EDGE), "the last row (255) of the table after 100 steps");
    {
        const float e[8] = {1, 2, 3, 4, -0.0f, 0x1p-149f, F(0x7f800000u), F(0x7fc00000u)};
        ef_case(&g, e, 2, 4, 1, 0, "a lookup is a copy: -0, a subnormal, +inf and NaN come out as they went in "
                                   "(an x + 0 'copy' turns -0 into +0)");
    }

    {
        const unsigned char tk[4] = {3, 3, 3, 3};
        require(U(sum_descending(T4, 4)) == 0 && U(sum_pairwise(T4, 4)) == 0, "scatter order claim");
        eb_case(&g, zeros, 4, 1, tk, 4, T4, FL(ORDER),
                "four positions of token 3 with terms [1e8, 1, -1e8, 1]: added in position order the row is 1; "
                "reversed or pairwise it is 0");
    }
    {
        const unsigned char tk[4] = {2, 0, 2, 2};
        const float d[8] = {1, 1, 7, 7, 1e8f, 1, -1e8f, -1};
        const float col0[3] = {1, 1e8f, -1e8f};
        require(U(sum_ascending(col0, 3)) == 0 && U(sum_descending(col0, 3)) == 0x3f800000u, "claim");
        eb_case(&g, zeros, 3, 2, tk, 4, d, FL(ORDER),
                "tokens [2, 0, 2, 2], dim 2: row 2 column 0 gets 1, 1e8, -1e8 in position order (0); the reverse "
                "gives 1. Other rows are untouched");
    }
    {
        const unsigned char tk[2] = {0, 0};
        const float de[1] = {-1e8f}, d[2] = {1e8f, 1};
        require(U((d[0] + d[1]) + de[0]) == 0, "start claim");
        eb_case(&g, de, 1, 1, tk, 2, d, FL(ORDER),
                "de = -1e8 is the start value: (-1e8 + 1e8) + 1 = 1; summing the terms first gives 0");
    }
    {
        const unsigned char tk[1] = {0};
        const float de[2] = {-0.0f, 0.0f}, d[2] = {-0.0f, -0.0f};
        eb_case(&g, de, 1, 2, tk, 1, d, FL(SPECIAL), "signed zeros: -0 + -0 = -0, +0 + -0 = +0");
    }
    {
        const unsigned char tk[2] = {1, 1};
        const float de[2] = {0, 0}, d[2] = {0x1p-149f, 0x1p-149f};
        eb_case(&g, de, 2, 1, tk, 2, d, 0, "subnormal terms add exactly: 2^-149 + 2^-149 = 2^-148");
    }
    for (int p = 0; p < B; p++)
        memcpy(dout + p * D, pos_init[p].de, sizeof pos_init[p].de);
    {
        static float de[V * D];
        memcpy(de, zeros, sizeof de);
        for (int p = 0; p < B; p++)
            it_embedding_backward(de, D, batch_x[1][p], dout + p * D);
        for (int i = 0; i < V * D; i++)
            require(U(de[i]) == U(grads_init[IT_MLP13K_OFF_EMBED + i]), "embedding gradient rebuild");
    }
    eb_case(&g, zeros, V, D, batch_x[1], B, dout, FL(TYPICAL),
            "the whole embedding gradient of step 1 (initial parameters): 64 positions scattered into zeros, "
            "equal to the embed part of that step's gradient");
    for (int p = 0; p < B; p++)
        memcpy(dout + p * D, pos_100[p].de, sizeof pos_100[p].de);
    eb_case(&g, zeros, V, D, batch_x[101], B, dout, FL(TYPICAL),
            "the whole embedding gradient of step 101 (after 100 steps)");
    group_end(&g);
}

/* ---- group: sgd (spec 7.1) ------------------------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static void sgd_case(group *g, const float *p0, const float *gr, size_t n, float lr, unsigned flags,
                     const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "sgd", flags, fmt, ap);
    va_end(ap);
    float *p = malloc(n * sizeof *p);
    if (!p)
        die("out of memory");
    memcpy(p, p0, n * sizeof *p);
    it_sgd_update(p, gr, n, lr);
    in_f32(&c, "p", p0, n);
    in_f32(&c, "g", gr, n);
    in_f1(&c, "lr", lr);
    out_f32(&c, "p", p, n);
    tc_end(g, &c);
    free(p);
}

static void gen_sgd(void)
{
    group g;
    group_begin(&g, "sgd", "7.1");
    {
        static float p[NP];
        memcpy(p, hist[0], sizeof p);
        it_sgd_update(p, grads_init, NP, recipe.lr);
        require(memcmp(p, hist[1], sizeof p) == 0, "the step-1 update does not reproduce the step-1 parameters");
    }
    sgd_case(&g, hist[0], grads_init, NP, recipe.lr, FL(TYPICAL),
             "the whole first update of mlp13k: the 13,088 initial parameters, their step-1 gradient, lr 0.5");
    sgd_case(&g, T_B2(hist[100]), grads_100 + IT_MLP13K_OFF_B2, V, recipe.lr, FL(TYPICAL),
             "b2 after 100 steps with its step-101 gradient, lr 0.5");
    {
        const float p[1] = {F(ONE_P11)}, gr[1] = {F(ONE_P12)};
        float lr = F(ONE_P12);
        float fz = fused(p[0], -lr, gr[0]);
        require(U(p[0] - lr * gr[0]) == 0 && U(fz) != 0, "sgd FMA claim");
        sgd_case(&g, p, gr, 1, lr, FL(FMA) | FL(TIE),
                 "p = 1+2^-11, g = lr = 1+2^-12: lr*g ties to 1+2^-11 and p - that is +0; fused, -2^-24");
    }
    {
        const float p[1] = {0x1p-126f}, gr[1] = {0x1p-126f};
        sgd_case(&g, p, gr, 1, 0.5f, FL(SUBNORMAL),
                 "p = g = 2^-126, lr 0.5: lr*g = 2^-127 is subnormal and so is the new p, 2^-127");
    }
    {
        const float p[2] = {0.0f, 0x1p-149f}, gr[2] = {0x1p-149f, F(3)};
        require(is_tie(0.5 * (double)gr[0]) && is_tie(0.5 * (double)gr[1]), "sgd subnormal tie claim");
        sgd_case(&g, p, gr, 2, 0.5f, FL(TIE) | FL(UNDERFLOW),
                 "lr*g at the bottom of the subnormals: 0.5 * 2^-149 ties to +0 (p stays +0); 0.5 * 3*2^-149 ties "
                 "to 2^-148, and 2^-149 - 2^-148 = -2^-149");
    }
    {
        const float p[2] = {1.0f, F(0x3f800001u)}, gr[2] = {-0x1p-24f, -0x1p-24f};
        require(is_tie(exact_sum(p[0], 0x1p-24f)) && is_tie(exact_sum(p[1], 0x1p-24f)), "p - delta tie claim");
        sgd_case(&g, p, gr, 2, 1.0f, FL(TIE),
                 "p - lr*g with lr*g = -2^-24: 1 + 2^-24 ties to 1, (1 + 2^-23) + 2^-24 ties to 1 + 2^-22");
    }
    {
        const float p[4] = {0.0f, -0.0f, 0.0f, -0.0f}, gr[4] = {0.0f, 0.0f, -0.0f, -0.0f};
        sgd_case(&g, p, gr, 4, 0.5f, FL(SPECIAL),
                 "signed zeros: +0 - +0 = +0, -0 - +0 = -0, +0 - -0 = +0, -0 - -0 = +0");
    }
    {
        const float p[2] = {F(0xff7fffffu), F(0x7f7fffffu)}, gr[2] = {F(0x7f7fffffu), F(0xff7fffffu)};
        sgd_case(&g, p, gr, 2, 4.0f, FL(OVERFLOW),
                 "lr = 4 times the largest finite gradient overflows: p becomes -inf and +inf");
    }
    {
        const float p[2] = {1.0f, 1.0f}, gr[2] = {F(0x7fc00000u), 1.0f};
        sgd_case(&g, p, gr, 2, 0.5f, 0, "a NaN gradient makes that parameter NaN and leaves the next alone");
    }
    group_end(&g);
}

/* ---- group: philox (spec 6.1) ---------------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void philox_case(group *g, const uint32_t ctr[4], const uint32_t key[2], const uint32_t *want,
                        unsigned flags, const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "philox", flags, fmt, ap);
    va_end(ap);
    uint32_t out[4];
    it_philox4x32_10(ctr, key, out);
    if (want)
        for (int i = 0; i < 4; i++)
            require(out[i] == want[i], "philox lane %d: %08x, published %08x", i, (unsigned)out[i], (unsigned)want[i]);
    tc_u32(&c, 0, "ctr", ctr, 4);
    tc_u32(&c, 0, "key", key, 2);
    tc_u32(&c, 1, "out", out, 4);
    tc_end(g, &c);
}

static void gen_philox(void)
{
    group g;
    group_begin(&g, "philox", "6.1");
    {
        const uint32_t c[4] = {0, 0, 0, 0}, k[2] = {0, 0};
        const uint32_t w[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
        philox_case(&g, c, k, w, FL(EDGE), "Random123 known-answer test: counter and key all zeros");
    }
    {
        const uint32_t c[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, k[2] = {0xffffffffu, 0xffffffffu};
        const uint32_t w[4] = {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu};
        philox_case(&g, c, k, w, FL(EDGE), "Random123 known-answer test: counter and key all ones");
    }
    {
        const uint32_t c[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, k[2] = {0xa4093822u, 0x299f31d0u};
        const uint32_t w[4] = {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u};
        philox_case(&g, c, k, w, 0, "Random123 known-answer test: the digits of pi");
    }
    const uint32_t key[2] = {(uint32_t)recipe.seed, (uint32_t)(recipe.seed >> 32)};
    static const struct {
        uint32_t stream;
        const char *what;
    } streams[4] = {{0, "embed"}, {1, "w1"}, {3, "w2"}, {5, "batch sampling"}};
    for (int i = 0; i < 4; i++) {
        const uint32_t c[4] = {0, 0, streams[i].stream, 0};
        philox_case(&g, c, key, NULL, FL(TYPICAL), "the first block of stream %u (%s) under the mlp13k seed",
                    (unsigned)streams[i].stream, streams[i].what);
    }
    {
        const uint32_t c[4] = {0x12345678u, 0x00000001u, 5, 0};
        philox_case(&g, c, key, NULL, FL(EDGE),
                    "a block beyond 2^32: the counter's second word is the high half of the block number");
    }
    group_end(&g);
}

/* ---- group: rng (spec 6.2 addressing, 6.3 and 6.4 conversions) ------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static void rng_case(group *g, uint64_t seed, uint32_t stream, uint64_t index, size_t count, unsigned flags,
                     const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "rng_u32", flags, fmt, ap);
    va_end(ap);
    uint32_t r[64];
    require(count <= 64, "rng case too long");
    for (size_t i = 0; i < count; i++)
        r[i] = it_rng_u32(seed, stream, index + i);
    in_u64(&c, "seed", seed);
    in_int(&c, "stream", stream);
    in_u64(&c, "index", index);
    in_int(&c, "count", count);
    tc_u32(&c, 1, "r", r, count);
    tc_end(g, &c);
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void sym_case(group *g, const uint32_t *r, size_t n, unsigned flags, const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "u32_to_symmetric", flags, fmt, ap);
    va_end(ap);
    float y[64];
    require(n <= 64, "case too long");
    for (size_t i = 0; i < n; i++)
        y[i] = it_u32_to_symmetric(r[i]);
    tc_u32(&c, 0, "r", r, n);
    out_f32(&c, "y", y, n);
    tc_end(g, &c);
}

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void below_case(group *g, const uint32_t *r, size_t n, uint32_t bound, unsigned flags, const char *fmt, ...)
{
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "u32_below", flags, fmt, ap);
    va_end(ap);
    uint32_t k[64];
    require(n <= 64, "case too long");
    for (size_t i = 0; i < n; i++)
        k[i] = it_u32_below(r[i], bound);
    tc_u32(&c, 0, "r", r, n);
    in_int(&c, "n", bound);
    tc_u32(&c, 1, "k", k, n);
    tc_end(g, &c);
}

static void gen_rng(void)
{
    group g;
    group_begin(&g, "rng", "6");
    const uint64_t seed = recipe.seed;
    rng_case(&g, seed, 0, 0, 8, FL(TYPICAL), "words 0..7 of stream 0 (embed init): lanes 0..3 of blocks 0 and 1");
    rng_case(&g, seed, 5, 0, 64, FL(TYPICAL), "words 0..63 of stream 5: the sampling words of step 1");
    rng_case(&g, seed, 5, 64 * 199, 64, FL(TYPICAL), "words 12736..12799 of stream 5: the sampling words of step 200");
    rng_case(&g, seed, 1, 3, 2, FL(EDGE), "words 3 and 4: lane 3 of block 0, then lane 0 of block 1");
    rng_case(&g, seed, 2, ((uint64_t)1 << 34) - 2, 4, FL(EDGE),
             "words 2^34-2 .. 2^34+1: block 2^32-1 to block 2^32, where the counter's high word becomes 1");
    rng_case(&g, seed, 0, UINT64_MAX - 3, 4, FL(EDGE), "the last four words of a stream, index 2^64-4 .. 2^64-1");
    rng_case(&g, seed, UINT32_MAX, 0, 4, FL(EDGE), "stream 2^32-1: the stream number is the third counter word");
    rng_case(&g, 0, 0, 0, 4, FL(EDGE), "seed 0: the key is (0, 0)");
    rng_case(&g, UINT64_MAX, 7, 100, 4, FL(EDGE), "seed 2^64-1: both key words all ones");
    rng_case(&g, 0x0000000100000000ull, 0, 0, 4, FL(EDGE), "seed 2^32: only the key's second (high) word is set");

    {
        const uint32_t r[10] = {0x00000000u, 0x000000ffu, 0x00000100u, 0x7fffff00u, 0x7fffffffu,
                                0x80000000u, 0x800000ffu, 0x80000100u, 0xffffff00u, 0xffffffffu};
        require(U(it_u32_to_symmetric(0)) == 0xbf800000u && U(it_u32_to_symmetric(0x80000000u)) == 0 &&
                    U(it_u32_to_symmetric(0xffffffffu)) == 0x3f7ffffeu,
                "u32_to_symmetric edges");
        sym_case(&g, r, 10, FL(EDGE) | FL(SPECIAL),
                 "the edges of (r >> 8) * 2^-23 - 1: 0 -> -1, 2^31 -> +0 (not -0), 2^32-1 -> 1 - 2^-23; the low 8 "
                 "bits never matter");
    }
    {
        uint32_t r[64];
        for (int i = 0; i < 64; i++)
            r[i] = it_rng_u32(seed, 1, (uint64_t)i);
        sym_case(&g, r, 64, FL(TYPICAL), "the first 64 words of stream 1, which (times 1/4) become w1's first values");
    }
    {
        const uint32_t r[2] = {0x00000000u, 0xffffffffu};
        below_case(&g, r, 2, 1, FL(EDGE), "n = 1: every word maps to 0");
    }
    {
        const uint32_t r[4] = {0xffffffffu, 0x00000000u, 0x00000001u, 0x80000000u};
        below_case(&g, r, 4, UINT32_MAX, FL(EDGE), "n = 2^32-1: floor(r * n / 2^32) near both ends");
    }
    {
        const uint32_t r[5] = {0x55555555u, 0x55555556u, 0xaaaaaaaau, 0xaaaaaaabu, 0xffffffffu};
        int differs = 0;
        for (int i = 0; i < 5; i++)
            differs |= it_u32_below(r[i], 3) != r[i] % 3;
        require(differs, "multiply-shift and modulo agree on the n = 3 case");
        below_case(&g, r, 5, 3, FL(EDGE),
                   "n = 3 at the boundaries of multiply-shift: r * 3 / 2^32 steps at 0x55555556 and 0xaaaaaaab "
                   "(r mod 3 gives other values)");
    }
    {
        const uint32_t r[3] = {0xffffffffu, 0x00ffffffu, 0x01000000u};
        below_case(&g, r, 3, 256, FL(EDGE), "n = 256: the top byte of r");
    }
    {
        uint32_t r[64];
        const uint32_t pairs = (uint32_t)(recipe.corpus_len - 1);
        for (int i = 0; i < 64; i++) {
            r[i] = it_rng_u32(seed, 5, (uint64_t)i);
            require(recipe.corpus[it_u32_below(r[i], pairs)] == batch_x[1][i], "sampling rebuild, position %d", i);
        }
        below_case(&g, r, 64, pairs, FL(TYPICAL),
                   "the 64 sampling words of step 1 and n = corpus length - 1 (%u): the corpus offsets of step 1",
                   (unsigned)pairs);
    }
    group_end(&g);
}

/* ---- groups: init (11.4), batch (11.5), loss_grad (11.6) ------------------------------------------- */

static void gen_init(void)
{
    group g;
    group_begin(&g, "init", "11.4");
    static const char *why[5] = {
        "stream 0, uniform in [-1, 1) times 1.0",
        "stream 1, uniform in [-1, 1) times 0.25 (1/sqrt(16), exact)",
        "all +0",
        "stream 3, uniform in [-1, 1) times RN(1/sqrt(32)) = 0x3e3504f3",
        "all +0",
    };
    for (int t = 0; t < 5; t++) {
        const it_tensor_info *ti = &it_mlp13k_tensors[t];
        tcase c;
        tc_begin(&c, "mlp13k_init", FL(TYPICAL), "initial %s (%zu x %zu): %s", ti->name, ti->rows, ti->cols, why[t]);
        add_str(c.in, "tensor", ti->name);
        out_f32(&c, "values", hist[0] + ti->offset, ti->rows * ti->cols);
        tc_end(&g, &c);
    }
    group_end(&g);
}

static void gen_batch(void)
{
    group g;
    group_begin(&g, "batch", "11.5");
    static const uint32_t steps[4] = {1, 2, 100, 200};
    for (int i = 0; i < 4; i++) {
        uint32_t t = steps[i], x[B], y[B];
        tcase c;
        tc_begin(&c, "mlp13k_batch", FL(TYPICAL), "the (input, target) bytes of step %u%s", (unsigned)t,
                 t == 1 ? " (the first batch; sampling words 0..63)" : t == 200 ? " (the last step of the profile)" : "");
        bytes_to_ints(batch_x[t], B, x);
        bytes_to_ints(batch_y[t], B, y);
        in_int(&c, "step", t);
        tc_ints(&c, 1, "x", x, B);
        tc_ints(&c, 1, "y", y, B);
        tc_end(&g, &c);
    }
    group_end(&g);
}

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static float lg_case(group *g, const float *params, const unsigned char *xs, const unsigned char *ys, size_t m,
                     unsigned flags, const char *fmt, ...)
{
    static float grads[NP];
    tcase c;
    va_list ap;
    va_start(ap, fmt);
    tc_vbegin(&c, "mlp13k_loss_grad", flags, fmt, ap);
    va_end(ap);
    float loss = it_mlp13k_loss_grad(params, xs, ys, m, grads);
    uint32_t x[B], y[B];
    require(m <= B, "batch too large");
    bytes_to_ints(xs, m, x);
    bytes_to_ints(ys, m, y);
    in_f32(&c, "params", params, NP);
    tc_ints(&c, 0, "x", x, m);
    tc_ints(&c, 0, "y", y, m);
    out_f1(&c, "loss", loss);
    out_f32(&c, "grads", grads, NP);
    tc_end(g, &c);
    return loss;
}

static void gen_loss_grad(void)
{
    group g;
    group_begin(&g, "loss_grad", "11.6");
    static float grads[NP];
    float loss = lg_case(&g, hist[0], batch_x[1], batch_y[1], B, FL(TYPICAL),
                         "the initial parameters and the step-1 batch: the first gradient of the profile");
    require(U(loss) == loss_bits[1], "loss_grad step 1 disagrees with the trace");
    loss = lg_case(&g, hist[5], batch_x[6], batch_y[6], B, FL(TYPICAL),
                   "the parameters after 5 steps and the step-6 batch");
    require(U(loss) == loss_bits[6], "loss_grad step 6 disagrees with the trace");
    /* batch size 3: scale RN(1/3) is inexact; pick the first 3 consecutive
     * positions of step 1 where loss_sum * RN(1/3) differs from loss_sum / 3 */
    for (int p = 0; p + 3 <= B; p++) {
        float sum = run_positions(hist[0], batch_x[1] + p, batch_y[1] + p, 3, 3, grads, NULL);
        if (U(sum * (1.0f / 3.0f)) == U(sum / 3.0f))
            continue;
        rebuild_loss_grad(hist[0], batch_x[1] + p, batch_y[1] + p, 3, NULL, grads);
        lg_case(&g, hist[0], batch_x[1] + p, batch_y[1] + p, 3, FL(EDGE),
                "batch size 3 (positions %d..%d of step 1, initial parameters): scale is RN(1/3), inexact, and the "
                "loss is loss_sum * RN(1/3), which here differs from loss_sum / 3",
                p, p + 2);
        group_end(&g);
        return;
    }
    die("no 3-position window of step 1 separates loss_sum * RN(1/3) from loss_sum / 3");
}

/* ---- group: sweep (iut-protocol P5.1 over spec 3.2, 3.3) -------------------------------------------- */

static int full_sweeps = 1;
static full_sweep sweeps[2] = {{it_expf, "exp", {{0}}, {0}, 0}, {it_logf, "log", {{0}}, {0}, 0}};

static void sweep_case(group *g, const char *fn, uint32_t lo, uint64_t count, const char *hex, unsigned flags,
                       const char *comment)
{
    tcase c;
    tc_begin(&c, "sweep", flags, "%s", comment);
    wire_buf b;
    add_str(c.in, "fn", fn);
    tc_u32(&c, 0, "lo", &lo, 1);
    in_int(&c, "count", count);
    wire_buf_init(&b);
    wire_put_str(&b, hex);
    put_wire(c.out, "sha256", &b);
    tc_end(g, &c);
}

/* What chunk c (inputs c*2^24 .. c*2^24 + 2^24-1) holds, for its comment. */
static void chunk_comment(const char *fn, unsigned c, char *out, size_t cap)
{
    const char *sign = (c >> 7) ? "-" : "+";
    unsigned e0 = (c & 0x7f) << 1; /* biased exponents e0 and e0 + 1 */
    char range[96];
    if (e0 == 0)
        snprintf(range, sizeof range, "%s0, the %s subnormals and |x| in [2^-126, 2^-125)", sign,
                 (c >> 7) ? "negative" : "positive");
    else if (e0 == 254)
        snprintf(range, sizeof range, "%sx with |x| in [2^127, 2^128), %sinf and the %sNaNs", sign, sign, sign);
    else
        snprintf(range, sizeof range, "%sx with |x| in [2^%d, 2^%d)", sign, (int)e0 - 127, (int)e0 + 2 - 127);
    snprintf(out, cap, "%s on inputs %08x..%08x (chunk %u of 256): %s", fn, c << 24, (c << 24) | 0xffffffu, c, range);
}

static void gen_sweep(void)
{
    group g;
    group_begin(&g, "sweep", "3");
    static const struct {
        int fn; /* 0 exp, 1 log */
        uint32_t lo;
        const char *why;
    } quick[] = {
        {0, 0x33800000u - 0x80000u, "exp around x = 2^-24: where exp(x) rises above 1"},
        {0, 0xb3000000u - 0x80000u, "exp around x = -2^-25: where exp(x) drops below 1"},
        {0, 0x3f800000u - 0x80000u, "exp around x = 1"},
        {0, 0xc1000000u, "exp on (-9, -8]: typical softmax arguments"},
        {0, 0xc2ae0000u - 0x80000u, "exp on (-91, -83]: across the normal/subnormal result boundary near -87.34"},
        {0, 0xc2cf0000u - 0x80000u,
         "exp on (-107.5, -99.5]: the last subnormal results and the underflow to 0 near -103.97"},
        {0, 0x42b17218u - 0x80000u, "exp around the overflow threshold 88.72"},
        {0, 0x7f800000u - 0x80000u, "exp on the largest finite values, +inf and the first 2^19 positive NaNs"},
        {1, 0x00000000u, "log on +0 and the 2^20 smallest positive subnormals"},
        {1, 0x80000000u, "log on -0 and the 2^20 smallest negative subnormals (NaN)"},
        {1, 0x00800000u - 0x80000u, "log around the smallest normal 2^-126"},
        {1, 0x3f800000u - 0x100000u, "log on [1 - 2^-4, 1): just below 1"},
        {1, 0x3f800000u, "log on [1, 1 + 2^-3): just above 1"},
        {1, 0x40000000u - 0x80000u, "log around 2"},
        {1, 0x41800000u, "log on [16, 18): typical softmax denominators"},
        {1, 0x7f800000u - 0x80000u, "log on the largest finite values, +inf and the first 2^19 positive NaNs"},
    };
    for (size_t i = 0; i < sizeof quick / sizeof quick[0]; i++) {
        char hex[65];
        full_sweep *s = &sweeps[quick[i].fn];
        sweep_range(s->f, quick[i].lo, (uint64_t)1 << 20, hex);
        sweep_case(&g, s->name, quick[i].lo, (uint64_t)1 << 20, hex, FL(QUICK), quick[i].why);
    }
    for (int f = 0; f < 2 && full_sweeps; f++)
        for (unsigned c = 0; c < 256; c++) {
            char comment[256];
            chunk_comment(sweeps[f].name, c, comment, sizeof comment);
            sweep_case(&g, sweeps[f].name, c << 24, (uint64_t)1 << 24, sweeps[f].chunk[c], FL(CHUNK), comment);
        }
    if (full_sweeps) {
        sweep_case(&g, "exp", 0, (uint64_t)1 << 32, sweeps[0].total, FL(EXHAUSTIVE),
                   "exp on all 2^32 binary32 inputs in one digest");
        sweep_case(&g, "log", 0, (uint64_t)1 << 32, sweeps[1].total, FL(EXHAUSTIVE),
                   "log on all 2^32 binary32 inputs in one digest");
    }
    group_end(&g);
}

/* ---- train/mlp13k.json and the checkpoints (FORMAT.md section 3) -------------------------------------- */

static void gen_train(void)
{
    static const uint32_t ck_steps[5] = {0, 50, 100, 150, 200};
    static unsigned char bytes[4 * NP];
    cJSON *root = checked(cJSON_CreateObject());
    add_str(root, "schema", "isotrain-train-vectors-v1");
    add_str(root, "spec_version", SPEC_VERSION);
    add_str(root, "vector_version", VECTOR_VERSION);
    add_str(root, "profile", "mlp13k");
    add_str(root, "spec_clause", "11");
    add_str(root, "generator", GENERATOR);
    add_num(root, "parameters", NP);
    cJSON *tensors = checked(cJSON_AddArrayToObject(root, "tensors"));
    size_t offset = 0;
    for (int t = 0; t < 5; t++) {
        const it_tensor_info *ti = &it_mlp13k_tensors[t];
        require(ti->offset == offset, "tensor %s is not contiguous", ti->name);
        cJSON *o = checked(cJSON_CreateObject());
        add_str(o, "name", ti->name);
        add_num(o, "rows", (double)ti->rows);
        add_num(o, "cols", (double)ti->cols);
        add_num(o, "offset", (double)ti->offset);
        cJSON_AddItemToArray(tensors, o);
        offset += ti->rows * ti->cols;
    }
    require(offset == NP, "tensors sum to %zu", offset);
    unsigned char d[32];
    char hex[65];
    it_sha256(recipe.corpus, recipe.corpus_len, d);
    it_hex(d, 32, hex);
    add_str(root, "corpus_sha256", hex);
    add_num(root, "steps", STEPS);
    cJSON *cks = checked(cJSON_AddArrayToObject(root, "checkpoint_steps"));
    for (int i = 0; i < 5; i++)
        cJSON_AddItemToArray(cks, checked(cJSON_CreateNumber(ck_steps[i])));
    cJSON *trace = checked(cJSON_AddArrayToObject(root, "trace"));
    for (uint32_t t = 0; t <= STEPS; t++) {
        cJSON *o = checked(cJSON_CreateObject());
        add_num(o, "step", t);
        if (t > 0) {
            char bits[9];
            snprintf(bits, sizeof bits, "%08x", (unsigned)loss_bits[t]);
            add_str(o, "loss", bits);
        }
        add_str(o, "digest", digests[t]);
        cJSON_AddItemToArray(trace, o);
    }
    cJSON *files = checked(cJSON_AddArrayToObject(root, "checkpoints"));
    for (int i = 0; i < 5; i++) {
        char rel[96], file[64];
        snprintf(file, sizeof file, "mlp13k/step-%06u.bin", (unsigned)ck_steps[i]);
        snprintf(rel, sizeof rel, "train/%s", file);
        it_store_f32le(hist[ck_steps[i]], NP, bytes);
        it_sha256(bytes, sizeof bytes, d);
        it_hex(d, 32, hex);
        require(strcmp(hex, digests[ck_steps[i]]) == 0, "checkpoint %u hashes to another digest than its trace",
                (unsigned)ck_steps[i]);
        emit(rel, bytes, sizeof bytes);
        cJSON *o = checked(cJSON_CreateObject());
        add_num(o, "step", ck_steps[i]);
        add_str(o, "file", file);
        add_str(o, "sha256", hex);
        cJSON_AddItemToArray(files, o);
    }
    emit_json("train/mlp13k.json", root);
}

/* ---- MANIFEST.json (FORMAT.md section 4) ---------------------------------------------------------------- */

static int by_path(const void *a, const void *b)
{
    return strcmp(((const manifest_entry *)a)->path, ((const manifest_entry *)b)->path);
}

static void gen_manifest(void)
{
    qsort(manifest, n_manifest, sizeof manifest[0], by_path);
    cJSON *root = checked(cJSON_CreateObject());
    add_str(root, "schema", "isotrain-manifest-v1");
    add_str(root, "spec_version", SPEC_VERSION);
    add_str(root, "vector_version", VECTOR_VERSION);
    add_str(root, "generator", GENERATOR);
    cJSON *files = checked(cJSON_AddArrayToObject(root, "files"));
    it_sha256_ctx listing;
    it_sha256_init(&listing);
    for (size_t i = 0; i < n_manifest; i++) {
        cJSON *o = checked(cJSON_CreateObject());
        add_str(o, "path", manifest[i].path);
        add_num(o, "size", (double)manifest[i].size);
        add_str(o, "sha256", manifest[i].sha256);
        cJSON_AddItemToArray(files, o);
        char line[256];
        int n = snprintf(line, sizeof line, "%s %zu %s\n", manifest[i].sha256, manifest[i].size, manifest[i].path);
        it_sha256_update(&listing, line, (size_t)n);
    }
    unsigned char d[32];
    char hex[65];
    it_sha256_final(&listing, d);
    it_hex(d, 32, hex);
    add_str(root, "manifest_digest", hex);
    emit_json("MANIFEST.json", root);
}

/* ==== vector set 1.1.0: profile addmod113 (spec 3.6, 5.9-5.12, 6.5, 7.2, 13) ================================ */

enum { AMP = IT_AM_NPARAMS, AMD = IT_AM_D, AMSTEPS = IT_AM_STEPS };

static float am_hist[4][AMP];   /* parameters at steps 0, 100, 200, 300 */
static uint32_t am_loss[AMSTEPS + 1];
static char am_digest[AMSTEPS + 1][65];
static uint32_t am_perm[IT_AM_PAIRS];

/* The reference run of spec 13.8, through the library's own loop pieces. */
static void am_train(void)
{
    static float grads[AMP], m[AMP], v[AMP], params[AMP];
    it_adamw_consts c = {F(0x3a83126f), F(0x3f666666), F(0x3f7ae148), F(0x322bcc77), F(0x3f7fbe77), F(0x3dccccd0),
                         F(0x3ca3d700)};
    it_adamw_clock k = {1.0f, 1.0f, 0};
    it_addmod113_permutation(IT_AM_SEED, am_perm);
    it_addmod113_init(IT_AM_SEED, params);
    memcpy(am_hist[0], params, sizeof params);
    it_params_digest(params, AMP, am_digest[0]);
    double t0 = now();
    for (uint32_t t = 1; t <= AMSTEPS; t++) {
        float loss = it_addmod113_loss_grad(params, am_perm, IT_AM_NTRAIN, grads, 2);
        require((U(loss) & 0x7f800000u) != 0x7f800000u, "addmod113 step %u: loss not finite", (unsigned)t);
        am_loss[t] = U(loss);
        float bc1, bc2;
        it_adamw_tick(&c, &k, &bc1, &bc2);
        it_adamw_update(&c, bc1, bc2, params, grads, m, v, AMP);
        it_params_digest(params, AMP, am_digest[t]);
        if (t % 100 == 0)
            memcpy(am_hist[t / 100], params, sizeof params);
    }
    fprintf(stderr, "make_vectors: addmod113 run of %d steps in %.0f s\n", AMSTEPS, now() - t0);
}

/* ---- group: sqrt (spec 3.6) ---- */
static void gen_sqrt(void)
{
    group g;
    group_begin(&g, "sqrt", "3.6");
    static const struct {
        uint32_t x;
        unsigned flags;
        const char *why;
    } cs[] = {
        {0x40800000u, FL(TYPICAL), "sqrt(4) = 2 exactly"},
        {0x40000000u, FL(TYPICAL), "sqrt(2), rounded"},
        {0x3f800001u, FL(EDGE), "1 + 2^-23: the root rounds back to 1 (RN(1 + 2^-24 - ...) = 1)"},
        {0x3f7fffffu, FL(EDGE), "1 - 2^-24: the root is just below 1"},
        {0x00000001u, FL(SUBNORMAL), "2^-149: a subnormal input (no DAZ); the result 2^-74.5 is normal"},
        {0x007fffffu, FL(SUBNORMAL), "the largest subnormal"},
        {0x00800000u, FL(EDGE), "2^-126, the smallest normal: 2^-63 exactly"},
        {0x7f7fffffu, FL(EDGE), "the largest finite input"},
        {0x00000000u, FL(SPECIAL), "sqrt(+0) = +0"},
        {0x80000000u, FL(SPECIAL), "sqrt(-0) = -0 (IEEE 754), not +0"},
        {0x7f800000u, FL(SPECIAL), "sqrt(+inf) = +inf"},
        {0xbf800000u, FL(SPECIAL) | FL(NAN_), "sqrt(-1) is NaN"},
        {0x80000001u, FL(SPECIAL) | FL(NAN_) | FL(SUBNORMAL), "a negative subnormal gives NaN (not -0: no DAZ)"},
        {0xff800000u, FL(SPECIAL) | FL(NAN_), "sqrt(-inf) is NaN"},
        {0x7fc00000u, FL(SPECIAL) | FL(NAN_), "NaN in, NaN out"},
        {0x322bcc77u, FL(TYPICAL), "AdamW's eps, RN(1e-8)"},
        {0x3b18dd30u, FL(TYPICAL), "1 - RN(0.98)^300 as the running product of spec 7.2 leaves it at step 300"},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        tcase c;
        tc_begin(&c, "sqrt", cs[i].flags, "%s", cs[i].why);
        in_f1(&c, "x", F(cs[i].x));
        out_f1(&c, "y", it_sqrtf(F(cs[i].x)));
        tc_end(&g, &c);
    }
    /* one array case over a stride of the positive finite range */
    enum { N = 1024 };
    float x[N], y[N];
    for (uint32_t i = 0; i < N; i++) {
        x[i] = F(i * 0x001fe000u + 0x00000003u);
        y[i] = it_sqrtf(x[i]);
    }
    tcase c;
    tc_begin(&c, "sqrt", FL(SUBNORMAL) | FL(TYPICAL), "1024 inputs spaced 0x001fe000 apart from 0x00000003: "
                                                       "subnormal to near the top of the finite range");
    in_f32(&c, "x", x, N);
    out_f32(&c, "y", y, N);
    tc_end(&g, &c);
    group_end(&g);
}

/* ---- group: relu (spec 5.9, 5.10) ---- */
static void gen_relu(void)
{
    group g;
    group_begin(&g, "relu", "5.9");
    const float x[7] = {F(0xbf800000), F(0x80000000), F(0x00000000), F(0x00000001), F(0x7fc00000), F(0x40400000),
                        F(0x80000001)};
    float y[7], dy[7], dx[7];
    it_relu_forward(x, 7, y);
    tcase c;
    tc_begin(&c, "relu_forward", FL(SPECIAL) | FL(SUBNORMAL) | FL(NAN_) | FL(EDGE),
             "-1, -0, +0, 2^-149, NaN, 3, -2^-149: -0 and negatives give +0 (never -0), a subnormal passes, "
             "NaN passes through (not laundered into 0 as max(x, 0) might)");
    in_f32(&c, "x", x, 7);
    out_f32(&c, "y", y, 7);
    tc_end(&g, &c);
    for (int i = 0; i < 7; i++)
        dy[i] = F(0xc0a00000); /* -5: a product dy*0 would be -0 */
    it_relu_backward(x, dy, 7, dx);
    tc_begin(&c, "relu_backward", FL(SPECIAL) | FL(EDGE) | FL(NAN_),
             "relu'(0) = 0: inputs -0 and +0 pass no gradient; dy = -5 everywhere, so the blocked elements must "
             "be +0 (a selection), where dy*0 would give -0; a NaN input passes no gradient (NaN > 0 is false)");
    in_f32(&c, "x", x, 7);
    in_f32(&c, "dy", dy, 7);
    out_f32(&c, "dx", dx, 7);
    tc_end(&g, &c);
    /* the pre-activations of training pair 0 at step 0, and a gradient from stream 12 */
    enum { NF = IT_AM_MLP };
    static float pre[NF], post[NF], d[NF], dd[NF];
    extern float am_pre0[];
    memcpy(pre, am_pre0, sizeof pre);
    it_relu_forward(pre, NF, post);
    tc_begin(&c, "relu_forward", FL(MODEL), "the 512 MLP pre-activations of training pair 0 (9507: 84 + 15) at step 0");
    in_f32(&c, "x", pre, NF);
    out_f32(&c, "y", post, NF);
    tc_end(&g, &c);
    for (int i = 0; i < NF; i++)
        d[i] = it_u32_to_symmetric(it_rng_u32(IT_AM_SEED, 12, (uint64_t)i));
    it_relu_backward(pre, d, NF, dd);
    tc_begin(&c, "relu_backward", FL(MODEL), "the same pre-activations, dy = u(word(seed, 12, i)) (spec 6.3)");
    in_f32(&c, "x", pre, NF);
    in_f32(&c, "dy", d, NF);
    out_f32(&c, "dx", dd, NF);
    tc_end(&g, &c);
    group_end(&g);
}

/* ---- group: attention (spec 5.11, 5.12) ---- */

/* spec 5.11 step 3 with the key positions summed in descending order: the
 * alternative the OrderSensitive flag is checked against */
static void attn_z_reversed(const float *w, const float *v, size_t T, size_t H, size_t dh, float *z)
{
    for (size_t h = 0; h < H; h++)
        for (size_t j = 0; j < dh; j++) {
            float acc = 0.0f;
            for (size_t t = T; t-- > 0;)
                acc = acc + w[h * T + t] * v[t * H * dh + h * dh + j];
            z[h * dh + j] = acc;
        }
}

static void attn_cases(group *g, const float *q, const float *k, const float *v, const float *dz, size_t T, size_t H,
                       size_t dh, float scale, unsigned flags, int want_order, const char *why)
{
    float w[64], z[256], zr[256], dq[256], dk[1024], dv[1024];
    it_attention_forward(q, k, v, T, H, dh, scale, w, z);
    if (want_order) {
        attn_z_reversed(w, v, T, H, dh, zr);
        require(memcmp(z, zr, sizeof(float) * H * dh) != 0, "attention case '%s': the order does not matter", why);
    }
    tcase c;
    tc_begin(&c, "attention_forward", flags, "%s", why);
    in_int(&c, "heads", H);
    in_int(&c, "width", dh);
    in_f1(&c, "c", scale);
    in_f32(&c, "q", q, H * dh);
    in_f32(&c, "k", k, T * H * dh);
    in_f32(&c, "v", v, T * H * dh);
    out_f32(&c, "w", w, H * T);
    out_f32(&c, "z", z, H * dh);
    tc_end(g, &c);
    it_attention_backward(q, k, v, w, dz, T, H, dh, scale, dq, dk, dv);
    tc_begin(&c, "attention_backward", flags & ~FL(ORDER), "%s; backward with the forward's weights", why);
    in_int(&c, "heads", H);
    in_int(&c, "width", dh);
    in_f1(&c, "c", scale);
    in_f32(&c, "q", q, H * dh);
    in_f32(&c, "k", k, T * H * dh);
    in_f32(&c, "v", v, T * H * dh);
    in_f32(&c, "w", w, H * T);
    in_f32(&c, "dz", dz, H * dh);
    out_f32(&c, "dq", dq, H * dh);
    out_f32(&c, "dk", dk, T * H * dh);
    out_f32(&c, "dv", dv, T * H * dh);
    tc_end(g, &c);
}

float am_pre0[IT_AM_MLP];
static float am_q0[AMD], am_k0[3 * AMD], am_v0[3 * AMD];

/* q, k, v and the MLP pre-activations of training pair 0 at step 0, from the
 * public layer functions (spec 13.5 steps 1-5) */
static void am_pair0(void)
{
    const float *P = am_hist[0];
    static const float zero[IT_AM_MLP];
    float x[3][AMD], w[12], z[AMD], att[AMD], r[AMD];
    unsigned tok[3] = {am_perm[0] / 113, am_perm[0] % 113, 113};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < AMD; i++)
            x[t][i] = P[IT_AM_OFF_WE + tok[t] * AMD + i] + P[IT_AM_OFF_WPOS + t * AMD + i];
    it_linear_forward(P + IT_AM_OFF_WQ, zero, x[2], AMD, AMD, am_q0);
    for (int t = 0; t < 3; t++) {
        it_linear_forward(P + IT_AM_OFF_WK, zero, x[t], AMD, AMD, am_k0 + t * AMD);
        it_linear_forward(P + IT_AM_OFF_WV, zero, x[t], AMD, AMD, am_v0 + t * AMD);
    }
    it_attention_forward(am_q0, am_k0, am_v0, 3, 4, 32, F(0x3e3504f3), w, z);
    it_linear_forward(P + IT_AM_OFF_WO, zero, z, AMD, AMD, att);
    for (int i = 0; i < AMD; i++)
        r[i] = x[2][i] + att[i];
    it_linear_forward(P + IT_AM_OFF_WIN, P + IT_AM_OFF_BIN, r, AMD, IT_AM_MLP, am_pre0);
}

static void gen_attention(void)
{
    group g;
    group_begin(&g, "attention", "5.11");
    const float q[2] = {1, 2}, k[6] = {1, 0, 0, 1, 1, 1}, v[6] = {1, 2, 3, 4, 5, 6}, dz[2] = {1, 0.5f};
    attn_cases(&g, q, k, v, dz, 3, 1, 2, F(0x3e3504f3), FL(TYPICAL), 0,
               "the vector of spec 5.11/5.12: one head of width 2 over 3 keys, c = RN(1/sqrt(32))");
    /* equal scores: w = 1/3 each; v's columns cancel in one order only */
    const float q0[2] = {0, 0}, v1[6] = {1e8f, 3, 1e8f, 3, 3, 3};
    const float dz1[2] = {1, -1};
    attn_cases(&g, q0, k, v1, dz1, 3, 1, 2, F(0x3e3504f3), FL(ORDER), 1,
               "q = 0 so every weight is RN(1/3); v[.][0] = 1e8, 1e8, 3: summing the keys in descending order "
               "gives other bits than ascending (spec 5.11 step 3)");
    /* a score far above the others: exp of the shifted scores underflows */
    const float qb[2] = {100, 0}, kb[6] = {1, 0, -1, 0, 0, 0}, vb[6] = {1, 2, 3, 4, 5, 6};
    attn_cases(&g, qb, kb, vb, dz, 3, 1, 2, F(0x3f800000), FL(UNDERFLOW), 0,
               "scores 100, -100, 0 with c = 1: without the shift by the maximum exp(100) overflows; "
               "exp(-200) underflows to +0, so key 1 gets weight +0 exactly");
    /* the model: pair 0 at step 0, four heads of 32 */
    float dzm[AMD];
    for (int i = 0; i < AMD; i++)
        dzm[i] = it_u32_to_symmetric(it_rng_u32(IT_AM_SEED, 13, (uint64_t)i));
    attn_cases(&g, am_q0, am_k0, am_v0, dzm, 3, 4, 32, F(0x3e3504f3), FL(MODEL), 0,
               "training pair 0 (9507: 84 + 15) at step 0: q of position 2, k and v of positions 0-2 (4 heads of "
               "32); dz = u(word(seed, 13, i))");
    group_end(&g);
}

/* ---- group: adamw (spec 7.2) ---- */
static void adamw_case(group *g, const float *p0, const float *gr, const float *m0, const float *v0, size_t n,
                       uint32_t t, unsigned flags, const char *why)
{
    static float p[512], m[512], v[512];
    const float hyper[5] = {F(0x3a83126f), F(0x3f666666), F(0x3f7ae148), F(0x322bcc77), F(0x3f7fbe77)};
    it_adamw_consts c = {hyper[0], hyper[1], hyper[2], hyper[3], hyper[4], F(0x3dccccd0), F(0x3ca3d700)};
    it_adamw_clock k = {1.0f, 1.0f, 0};
    float bc1 = 0, bc2 = 0;
    for (uint32_t s = 0; s < t; s++)
        it_adamw_tick(&c, &k, &bc1, &bc2);
    memcpy(p, p0, n * sizeof *p);
    memcpy(m, m0, n * sizeof *m);
    memcpy(v, v0, n * sizeof *v);
    it_adamw_update(&c, bc1, bc2, p, gr, m, v, n);
    tcase cs;
    tc_begin(&cs, "adamw", flags, "%s", why);
    in_f32(&cs, "p", p0, n);
    in_f32(&cs, "g", gr, n);
    in_f32(&cs, "m", m0, n);
    in_f32(&cs, "v", v0, n);
    in_int(&cs, "t", t);
    in_f32(&cs, "hyper", hyper, 5);
    out_f32(&cs, "p", p, n);
    out_f32(&cs, "m", m, n);
    out_f32(&cs, "v", v, n);
    tc_end(g, &cs);
}

static void gen_adamw(void)
{
    group g;
    group_begin(&g, "adamw", "7.2");
    const float p1 = 0.5f, g1 = 0.25f, z = 0.0f;
    adamw_case(&g, &p1, &g1, &z, &z, 1, 1, FL(TYPICAL),
               "step 1 of the spec 7.2 table: p = 0.5, g = 0.25, moments +0 (hyper = lr, beta1, beta2, eps, decay "
               "of spec 13.1)");
    /* the running product against RN(beta^t): find a step where they differ */
    uint32_t tdiff = 0;
    float prod = 1.0f;
    double exact = 1.0;
    for (uint32_t t = 1; t <= 300 && !tdiff; t++) {
        prod = prod * F(0x3f7ae148);
        exact = exact * (double)F(0x3f7ae148);
        if (U((float)exact) != U(prod))
            tdiff = t;
    }
    require(tdiff != 0, "beta2's running product equals RN(beta2^t) for every t <= 300");
    char why[300];
    const float pm[2] = {0.5f, -0.25f}, gm[2] = {0.01f, -0.02f}, mm[2] = {0.001f, -0.002f}, vm[2] = {1e-5f, 4e-5f};
    snprintf(why, sizeof why,
             "t = %u: the first step at which beta2's running product (spec 7.2) differs from RN(beta2^t); pow "
             "gives other bias corrections",
             (unsigned)tdiff);
    adamw_case(&g, pm, gm, mm, vm, 2, tdiff, FL(EDGE), why);
    const float ps = 1.0f, gs = 1e-6f;
    adamw_case(&g, &ps, &gs, &z, &z, 1, 1, FL(EDGE),
               "g = 1e-6 at step 1: sqrt(v_hat) = 1e-6, so eps = 1e-8 outside the root changes the step by 1%; "
               "inside it would give sqrt(1e-12 + 1e-8)");
    const float pd = 3.0f, gd = -0.5f;
    adamw_case(&g, &pd, &gd, &z, &z, 1, 1, FL(TYPICAL),
               "p = 3: decay first (3 * 0.999, then the step) differs from the step first, then the decay");
    const float pz = 0.125f, gz = F(0x00000001);
    adamw_case(&g, &pz, &gz, &z, &z, 1, 1, FL(SUBNORMAL) | FL(UNDERFLOW),
               "g = 2^-149: (1-beta1)*g rounds to +0, g*g underflows to +0, so v_hat = 0, sqrt = 0 and the "
               "denominator is eps alone");
    /* 512 elements of the real run: step 100's parameters and gradient-like values */
    static float pr[512], gr[512], mr[512], vr[512];
    for (int i = 0; i < 512; i++) {
        pr[i] = am_hist[1][IT_AM_OFF_WIN + i];
        gr[i] = it_u32_to_symmetric(it_rng_u32(IT_AM_SEED, 14, (uint64_t)i)) * 0.01f;
        mr[i] = gr[i] * 0.5f;
        vr[i] = gr[i] * gr[i];
    }
    adamw_case(&g, pr, gr, mr, vr, 512, 101, FL(MODEL),
               "W_in[0][0..127], W_in[1..3][*] at step 100 of the reference run, with g = 0.01 u(word(seed, 14, i)), "
               "m = g/2, v = g*g, at t = 101");
    group_end(&g);
}

/* ---- group: addmod113 (spec 13.3-13.5) ---- */
static void gen_am_profile(void)
{
    group g;
    group_begin(&g, "addmod113", "13");
    static const uint64_t seeds[3] = {IT_AM_SEED, 1, 0};
    static uint32_t perm[IT_AM_PAIRS];
    for (int i = 0; i < 3; i++) {
        it_addmod113_permutation(seeds[i], perm);
        tcase c;
        tc_begin(&c, "addmod113_perm", i ? FL(EDGE) : FL(TYPICAL),
                 "the permutation of spec 13.3 (6.5 on stream 11) under seed %llu%s", (unsigned long long)seeds[i],
                 i ? " (a fresh seed, spec 13.9)" : " (the profile's)");
        in_u64(&c, "seed", seeds[i]);
        tc_u32(&c, 1, "perm", perm, IT_AM_PAIRS);
        tc_end(&g, &c);
    }
    for (int t = 0; t < 11; t++) {
        const it_tensor_info *ti = &it_addmod113_tensors[t];
        tcase c;
        tc_begin(&c, "addmod113_init", FL(TYPICAL), "initial %s (%zu x %zu): %s", ti->name, ti->rows, ti->cols,
                 ti->cols == 1 ? "all +0"
                 : t == 10     ? "its stream, uniform in [-1, 1) times c_U = 0x3e261d5f"
                               : "its stream, uniform in [-1, 1) times c_D = 0x3e1cc471");
        add_str(c.in, "tensor", ti->name);
        out_f32(&c, "values", am_hist[0] + ti->offset, ti->rows * ti->cols);
        tc_end(&g, &c);
    }
    static float grads[AMP];
    static const struct {
        int hist, first, n;
        const char *why;
    } lg[2] = {{0, 0, 8, "the first 8 training pairs at step 0 (s = 1/8: spec 13.5's vector)"},
               {1, IT_AM_NTRAIN, 5, "the first 5 test pairs at step 100 (s = RN(1/5)): a trained model"}};
    for (int i = 0; i < 2; i++) {
        float loss = it_addmod113_loss_grad(am_hist[lg[i].hist], am_perm + lg[i].first, (size_t)lg[i].n, grads, 1);
        tcase c;
        tc_begin(&c, "addmod113_loss_grad", FL(MODEL), "%s", lg[i].why);
        in_f32(&c, "params", am_hist[lg[i].hist], AMP);
        tc_u32(&c, 0, "pairs", am_perm + lg[i].first, (size_t)lg[i].n);
        out_f1(&c, "loss", loss);
        out_f32(&c, "grads", grads, AMP);
        tc_end(&g, &c);
    }
    group_end(&g);
}

static void gen_am_train(void)
{
    static const uint32_t ck_steps[4] = {0, 100, 200, 300};
    static unsigned char bytes[4 * AMP];
    cJSON *root = checked(cJSON_CreateObject());
    add_str(root, "schema", "isotrain-train-vectors-v1");
    add_str(root, "spec_version", SPEC_VERSION);
    add_str(root, "vector_version", VECTOR_VERSION);
    add_str(root, "profile", "addmod113");
    add_str(root, "spec_clause", "13");
    add_str(root, "generator", GENERATOR);
    add_num(root, "parameters", AMP);
    cJSON *tensors = checked(cJSON_AddArrayToObject(root, "tensors"));
    for (int t = 0; t < 11; t++) {
        const it_tensor_info *ti = &it_addmod113_tensors[t];
        cJSON *o = checked(cJSON_CreateObject());
        add_str(o, "name", ti->name);
        add_num(o, "rows", (double)ti->rows);
        add_num(o, "cols", (double)ti->cols);
        add_num(o, "offset", (double)ti->offset);
        cJSON_AddItemToArray(tensors, o);
    }
    /* the profile's data: the 12,769 pair indices in permutation order (spec 13.3) */
    unsigned char pb[4 * IT_AM_PAIRS], d[32];
    char hex[65];
    for (int i = 0; i < IT_AM_PAIRS; i++)
        for (int b = 0; b < 4; b++)
            pb[4 * i + b] = (unsigned char)(am_perm[i] >> (8 * b));
    it_sha256(pb, sizeof pb, d);
    it_hex(d, 32, hex);
    add_str(root, "corpus_sha256", hex);
    add_num(root, "steps", AMSTEPS);
    cJSON *cks = checked(cJSON_AddArrayToObject(root, "checkpoint_steps"));
    for (int i = 0; i < 4; i++)
        cJSON_AddItemToArray(cks, checked(cJSON_CreateNumber(ck_steps[i])));
    cJSON *trace = checked(cJSON_AddArrayToObject(root, "trace"));
    for (uint32_t t = 0; t <= AMSTEPS; t++) {
        cJSON *o = checked(cJSON_CreateObject());
        add_num(o, "step", t);
        if (t > 0) {
            char bits[9];
            snprintf(bits, sizeof bits, "%08x", (unsigned)am_loss[t]);
            add_str(o, "loss", bits);
        }
        add_str(o, "digest", am_digest[t]);
        cJSON_AddItemToArray(trace, o);
    }
    cJSON *files = checked(cJSON_AddArrayToObject(root, "checkpoints"));
    for (int i = 0; i < 4; i++) {
        char rel[96], file[64];
        snprintf(file, sizeof file, "addmod113/step-%06u.bin", (unsigned)ck_steps[i]);
        snprintf(rel, sizeof rel, "train/%s", file);
        it_store_f32le(am_hist[i], AMP, bytes);
        it_sha256(bytes, sizeof bytes, d);
        it_hex(d, 32, hex);
        require(strcmp(hex, am_digest[ck_steps[i]]) == 0, "addmod113 checkpoint %u: digest mismatch",
                (unsigned)ck_steps[i]);
        emit(rel, bytes, sizeof bytes);
        cJSON *o = checked(cJSON_CreateObject());
        add_num(o, "step", ck_steps[i]);
        add_str(o, "file", file);
        add_str(o, "sha256", hex);
        cJSON_AddItemToArray(files, o);
    }
    emit_json("train/addmod113.json", root);
}

/* The 1.1.0 set: every file of the 1.0.0 set, byte for byte, then
 * addmod113's, then its own manifest. */
static void gen_set_1_1_0(const char *dir10, const char *dir11)
{
    manifest_entry prev[sizeof manifest / sizeof manifest[0]];
    size_t n_prev = n_manifest;
    memcpy(prev, manifest, sizeof prev);
    n_manifest = 0;
    outdir = dir11;
    make_dir("");
    make_dir("ops");
    make_dir("train");
    make_dir("train/mlp13k");
    make_dir("train/addmod113");
    for (size_t i = 0; i < n_prev; i++) {
        char path[8192];
        if (snprintf(path, sizeof path, "%s/%s", dir10, prev[i].path) >= (int)sizeof path)
            die("path too long under %s", dir10);
        FILE *f = fopen(path, "rb");
        if (!f)
            die("cannot reopen %s: %s", path, strerror(errno));
        unsigned char *buf = malloc(prev[i].size ? prev[i].size : 1);
        if (!buf || fread(buf, 1, prev[i].size, f) != prev[i].size)
            die("cannot read %s", path);
        fclose(f);
        emit(prev[i].path, buf, prev[i].size);
        free(buf);
    }
    SPEC_VERSION = "1.1.0";
    VECTOR_VERSION = "1.1.0";
    GENERATOR = "isotrain make_vectors 1.1.0";
    am_train();
    am_pair0();
    gen_sqrt();
    gen_relu();
    gen_attention();
    gen_adamw();
    gen_am_profile();
    gen_am_train();
    gen_manifest();
}

/* ---- main -------------------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    int quick = argc >= 3 && strcmp(argv[1], "--quick") == 0;
    if (argc != 2 + quick && argc != 3 + quick) {
        fprintf(stderr, "usage: make_vectors [--quick] OUTDIR [OUTDIR_1_1_0]   (each OUTDIR must not exist; the "
                        "first receives the 1.0.0 set, the second the 1.1.0 set)\n");
        return 2;
    }
    outdir = argv[1 + quick];
    const char *dir11 = argc == 3 + quick ? argv[2 + quick] : NULL;
    full_sweeps = !quick;
    double t0 = now();
    it_fpenv_report env;
    if (it_fpenv_probe(&env) != 0)
        die("subnormals are flushed in this process (ftz=%d daz=%d): the vectors would be wrong", env.ftz, env.daz);
    recipe = it_mlp13k_default_recipe();
    make_dir("");
    make_dir("ops");
    make_dir("train");
    make_dir("train/mlp13k");

    /* the two 2^32 sweeps run while everything else is built */
    pthread_t th[2];
    if (full_sweeps) {
        for (int f = 0; f < 2; f++)
            if (pthread_create(&th[f], NULL, full_sweep_run, &sweeps[f]) != 0)
                die("cannot start the %s sweep thread", sweeps[f].name);
        fprintf(stderr, "make_vectors: sweeping exp and log over all 2^32 inputs in two threads (minutes)...\n");
    } else
        fprintf(stderr, "make_vectors: --quick: no Chunk or Exhaustive sweeps; this set is NOT the vector set\n");

    train();
    rebuild_states();
    gen_exp();
    gen_log();
    gen_tanh();
    gen_dot();
    gen_linear();
    gen_softmax_xent();
    gen_tanh_backward();
    gen_embedding();
    gen_sgd();
    gen_philox();
    gen_rng();
    gen_init();
    gen_batch();
    gen_loss_grad();
    gen_train();

    if (full_sweeps)
        for (int f = 0; f < 2; f++)
            if (pthread_join(th[f], NULL) != 0)
                die("cannot join the %s sweep thread", sweeps[f].name);
    gen_sweep();
    gen_manifest();
    if (dir11)
        gen_set_1_1_0(argv[1 + quick], dir11);

    for (int i = 0; i < group_counts_n; i++)
        fprintf(stderr, "  ops/%-18s %4d cases\n", group_counts[i].name, group_counts[i].n);
    fprintf(stderr, "make_vectors: %zu files + MANIFEST.json in %s (sweeps: exp %.0f s, log %.0f s; total %.0f s)\n",
            n_manifest, outdir, sweeps[0].seconds, sweeps[1].seconds, now() - t0);
    return 0;
}
