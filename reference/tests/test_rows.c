/* The batched API of isotrain.h (it_rows_*, it_tensor_*; spec §4.1, §4.5,
 * §5, §7): every function against a naive loop written here from the
 * clause, on every kernel set this CPU runs and 1-4 threads, with shapes
 * that leave vector and tile tails and leading dimensions wider than the
 * rows; the resumable gradient sums split at every row; bad arguments
 * refused with nothing written; concurrent callers. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "testutil.h"

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

/* values whose sums depend on their order: magnitudes 2^-20 .. 2^20, a few
 * zeros of either sign and subnormals among them */
static void fill(float *x, size_t n, uint32_t seed)
{
    uint32_t s = seed;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = lcg(&s);
        float u = it_u32_to_symmetric(lcg(&s));
        int e = (int)(r >> 27) - 16; /* -16 .. 15 */
        float scale = 1.0f;
        for (; e > 0; e--)
            scale = scale * 2.0f;
        for (; e < 0; e++)
            scale = scale * 0.5f;
        x[i] = u * scale;
        if ((r & 0xff) == 1)
            x[i] = F(0x80000000u);
        if ((r & 0xff) == 2)
            x[i] = 0.0f;
        if ((r & 0xff) == 3)
            x[i] = F(0x00000abcu | (r & 0x80000000u));
    }
}

static float *alloc(size_t n, uint32_t seed)
{
    float *x = malloc(sizeof(float) * (n ? n : 1));
    cr_assert(x);
    fill(x, n, seed);
    return x;
}

static void assert_same(const float *got, const float *want, size_t n, const char *what, const char *set,
                        unsigned th)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t g = B(got[i]), w = B(want[i]);
        int nan = (w & 0x7fffffffu) > 0x7f800000u;
        cr_assert(nan ? (g & 0x7fffffffu) > 0x7f800000u : g == w,
                  "%s, set %s, %u threads: element %zu is 0x%08x, want 0x%08x", what, set, th, i, (unsigned)g,
                  (unsigned)w);
    }
}

static size_t sets(const char **names) { return it_kernels_available(names, 16); }

/* ---- products ---------------------------------------------------------------- */

typedef struct {
    size_t rows, in, out, pad;
} shape;

/* tails for every width and tile; k beyond one block of 256 (the sums
 * resumed across blocks, the bias after the last); several blocks of 128
 * columns and of 48 rows; wider rows */
static const shape SHAPES[] = {{1, 1, 1, 0},      {37, 19, 23, 0},   {37, 19, 23, 5},
                               {600, 40, 50, 3}, {70, 300, 33, 0},  {101, 530, 290, 1}};

static void naive_forward(const shape *s, const float *X, size_t ldx, const float *W, const float *b, float *Y,
                          size_t ldy)
{
    for (size_t r = 0; r < s->rows; r++)
        for (size_t o = 0; o < s->out; o++) {
            float acc = 0.0f;
            for (size_t i = 0; i < s->in; i++) {
                float prod = X[r * ldx + i] * W[o * s->in + i];
                acc = acc + prod;
            }
            Y[r * ldy + o] = b ? acc + b[o] : acc;
        }
}

Test(rows, linear_forward_and_input_gradient_equal_the_written_sums)
{
    const char *names[16];
    size_t ns = sets(names);
    for (size_t si = 0; si < sizeof SHAPES / sizeof SHAPES[0]; si++) {
        const shape *s = &SHAPES[si];
        size_t ldx = s->in + s->pad, ldy = s->out + s->pad, lddx = s->in + s->pad;
        float *X = alloc(s->rows * ldx, 1), *W = alloc(s->out * s->in, 2), *b = alloc(s->out, 3);
        float *want = alloc(s->rows * ldy, 4), *want_nb = alloc(s->rows * ldy, 4), *got = alloc(s->rows * ldy, 5);
        float *dY = alloc(s->rows * ldy, 6), *dXw = alloc(s->rows * lddx, 7), *dX = alloc(s->rows * lddx, 8);
        naive_forward(s, X, ldx, W, b, want, ldy);
        naive_forward(s, X, ldx, W, NULL, want_nb, ldy);
        for (size_t r = 0; r < s->rows; r++) /* dX[r][i] = SUM over o of dY[r][o] * W[o][i] */
            for (size_t i = 0; i < s->in; i++) {
                float acc = 0.0f;
                for (size_t o = 0; o < s->out; o++) {
                    float prod = dY[r * ldy + o] * W[o * s->in + i];
                    acc = acc + prod;
                }
                dXw[r * lddx + i] = acc;
            }
        for (int tile = 0; tile < 2; tile++) /* both tile shapes of the SIMD products (kernels.h) */
        for (size_t k = 0; k < ns; k++)
            for (unsigned th = 1; th <= 4; th++) {
                cr_assert_eq(it_gemm_tile_select(tile ? "narrow" : "wide"), 0);
                cr_assert_eq(it_kernels_select(names[k]), 0);
                memcpy(got, dY, sizeof(float) * s->rows * ldy); /* padding keeps whatever was there */
                cr_assert_eq(it_rows_linear_forward(s->rows, s->in, s->out, X, ldx, W, b, got, ldy, th), 0);
                for (size_t r = 0; r < s->rows; r++)
                    assert_same(got + r * ldy, want + r * ldy, s->out, "linear forward", names[k], th);
                cr_assert_eq(it_rows_linear_forward(s->rows, s->in, s->out, X, ldx, W, NULL, got, ldy, th), 0);
                for (size_t r = 0; r < s->rows; r++)
                    assert_same(got + r * ldy, want_nb + r * ldy, s->out, "linear forward, no bias", names[k], th);
                cr_assert_eq(it_rows_linear_backward_input(s->rows, s->in, s->out, dY, ldy, W, dX, lddx, th), 0);
                for (size_t r = 0; r < s->rows; r++)
                    assert_same(dX + r * lddx, dXw + r * lddx, s->in, "linear backward input", names[k], th);
            }
        free(X), free(W), free(b), free(want), free(want_nb), free(got), free(dY), free(dXw), free(dX);
    }
    it_kernels_select(NULL);
    it_gemm_tile_select(NULL);
}

/* dW[o][i] and db[o] continued over rows [r0, r1) in ascending order */
static void naive_params(const shape *s, size_t r0, size_t r1, const float *dY, size_t lddy, const float *X,
                         size_t ldx, float *dW, float *db)
{
    for (size_t r = r0; r < r1; r++)
        for (size_t o = 0; o < s->out; o++) {
            db[o] = db[o] + dY[r * lddy + o];
            for (size_t i = 0; i < s->in; i++) {
                float prod = dY[r * lddy + o] * X[r * ldx + i];
                dW[o * s->in + i] = dW[o * s->in + i] + prod;
            }
        }
}

Test(rows, parameter_gradients_continue_the_stored_partial_sums)
{
    const char *names[16];
    size_t ns = sets(names);
    for (size_t si = 0; si < sizeof SHAPES / sizeof SHAPES[0]; si++) {
        const shape *s = &SHAPES[si];
        size_t ldx = s->in + s->pad, lddy = s->out + s->pad, nw = s->out * s->in;
        float *X = alloc(s->rows * ldx, 11), *dY = alloc(s->rows * lddy, 12);
        float *dW0 = alloc(nw, 13), *db0 = alloc(s->out, 14); /* a partial sum already stored */
        float *dWw = alloc(nw, 0), *dbw = alloc(s->out, 0), *dW = alloc(nw, 0), *db = alloc(s->out, 0);
        memcpy(dWw, dW0, sizeof(float) * nw);
        memcpy(dbw, db0, sizeof(float) * s->out);
        naive_params(s, 0, s->rows, dY, lddy, X, ldx, dWw, dbw);
        for (int tile = 0; tile < 2; tile++)
        for (size_t k = 0; k < ns; k++)
            for (unsigned th = 1; th <= 4; th++) {
                cr_assert_eq(it_gemm_tile_select(tile ? "narrow" : "wide"), 0);
                cr_assert_eq(it_kernels_select(names[k]), 0);
                memcpy(dW, dW0, sizeof(float) * nw);
                memcpy(db, db0, sizeof(float) * s->out);
                cr_assert_eq(it_rows_linear_backward_params(s->rows, s->in, s->out, dY, lddy, X, ldx, dW, db, th),
                             0);
                assert_same(dW, dWw, nw, "dW", names[k], th);
                assert_same(db, dbw, s->out, "db", names[k], th);
            }
        free(X), free(dY), free(dW0), free(db0), free(dWw), free(dbw), free(dW), free(db);
    }
    it_kernels_select(NULL);
    it_gemm_tile_select(NULL);
}

/* The contract issue 21's data-parallel trainer relies on: rows [0, k) then
 * rows [k, n) on the stored result give the bits of one call, for EVERY k,
 * every set and thread count; and the negative control: two partial sums
 * that each start from +0, added at the end, do not. */
Test(rows, splitting_the_rows_anywhere_and_resuming_gives_the_same_bits, .timeout = 120)
{
    const shape s = {61, 21, 17, 2};
    const size_t ldx = s.in + s.pad, lddy = s.out + s.pad, nw = s.out * s.in;
    float *X = alloc(s.rows * ldx, 21), *dY = alloc(s.rows * lddy, 22);
    float *one_w = calloc(nw, sizeof(float)), *one_b = calloc(s.out, sizeof(float));
    float *dW = malloc(sizeof(float) * nw), *db = malloc(sizeof(float) * s.out);
    float *pw = malloc(sizeof(float) * nw), *pb = malloc(sizeof(float) * s.out);
    uint32_t tok[61];
    float *dE1 = calloc(9 * s.in, sizeof(float)), *dE = malloc(sizeof(float) * 9 * s.in);
    uint32_t seed = 5;
    for (size_t r = 0; r < s.rows; r++)
        tok[r] = lcg(&seed) % 9;
    cr_assert_eq(it_kernels_select("portable"), 0);
    it_rows_linear_backward_params(s.rows, s.in, s.out, dY, lddy, X, ldx, one_w, one_b, 1);
    it_rows_embedding_backward(s.rows, s.in, 9, tok, X, ldx, dE1, 1);
    const char *names[16];
    size_t ns = sets(names), added_differs = 0;
    for (int tile = 0; tile < 2; tile++)
    for (size_t k = 0; k < ns; k++)
        for (unsigned th = 1; th <= 4; th++) {
            cr_assert_eq(it_gemm_tile_select(tile ? "narrow" : "wide"), 0);
            cr_assert_eq(it_kernels_select(names[k]), 0);
            for (size_t cut = 0; cut <= s.rows; cut++) {
                memset(dW, 0, sizeof(float) * nw);
                memset(db, 0, sizeof(float) * s.out);
                it_rows_linear_backward_params(cut, s.in, s.out, dY, lddy, X, ldx, dW, db, th);
                it_rows_linear_backward_params(s.rows - cut, s.in, s.out, dY + cut * lddy, lddy, X + cut * ldx, ldx,
                                               dW, db, th);
                cr_assert(memcmp(dW, one_w, sizeof(float) * nw) == 0, "set %s, %u threads, cut %zu: dW differs",
                          names[k], th, cut);
                cr_assert(memcmp(db, one_b, sizeof(float) * s.out) == 0, "set %s, %u threads, cut %zu: db differs",
                          names[k], th, cut);
                memset(dE, 0, sizeof(float) * 9 * s.in);
                it_rows_embedding_backward(cut, s.in, 9, tok, X, ldx, dE, th);
                it_rows_embedding_backward(s.rows - cut, s.in, 9, tok + cut, X + cut * ldx, ldx, dE, th);
                cr_assert(memcmp(dE, dE1, sizeof(float) * 9 * s.in) == 0, "set %s, %u threads, cut %zu: dE differs",
                          names[k], th, cut);
                /* the forbidden way: a second sum from +0, added afterwards */
                memset(pw, 0, sizeof(float) * nw);
                memset(pb, 0, sizeof(float) * s.out);
                it_rows_linear_backward_params(s.rows - cut, s.in, s.out, dY + cut * lddy, lddy, X + cut * ldx, ldx,
                                               pw, pb, th);
                memset(dW, 0, sizeof(float) * nw);
                memset(db, 0, sizeof(float) * s.out);
                it_rows_linear_backward_params(cut, s.in, s.out, dY, lddy, X, ldx, dW, db, th);
                for (size_t i = 0; i < nw; i++)
                    dW[i] = dW[i] + pw[i];
                added_differs += memcmp(dW, one_w, sizeof(float) * nw) != 0;
            }
        }
    cr_assert(added_differs > 2 * ns * 4 * s.rows / 2,
              "adding partial sums that started from +0 matched the resumed sum at %zu of %zu cuts: the test "
              "could not tell a split sum from a resumed one",
              2 * ns * 4 * (s.rows + 1) - added_differs, 2 * ns * 4 * (s.rows + 1));
    free(X), free(dY), free(one_w), free(one_b), free(dW), free(db), free(pw), free(pb), free(dE1), free(dE);
    it_kernels_select(NULL);
    it_gemm_tile_select(NULL);
}

/* ---- the other layers ---------------------------------------------------------- */

Test(rows, embedding_add_relu_tanh_equal_their_clauses)
{
    enum { R = 29, C = 37, LD = 40, V = 11 };
    float *E = alloc(V * C, 31), *A = alloc(R * LD, 32), *Bm = alloc(R * LD, 33), *Y = alloc(R * LD, 34);
    float *want = alloc(R * LD, 35), *dE = alloc(V * C, 36), *dEw = alloc(V * C, 0);
    uint32_t tok[R], seed = 9;
    for (size_t r = 0; r < R; r++)
        tok[r] = lcg(&seed) % V;
    memcpy(dEw, dE, sizeof(float) * V * C);
    for (size_t r = 0; r < R; r++)
        for (size_t c = 0; c < C; c++)
            dEw[tok[r] * C + c] = dEw[tok[r] * C + c] + A[r * LD + c];
    const char *names[16];
    size_t ns = sets(names);
    for (size_t k = 0; k < ns; k++)
        for (unsigned th = 1; th <= 4; th++) {
            cr_assert_eq(it_kernels_select(names[k]), 0);
            cr_assert_eq(it_rows_embedding_forward(R, C, V, E, tok, Y, LD, th), 0);
            for (size_t r = 0; r < R; r++)
                assert_same(Y + r * LD, E + tok[r] * C, C, "embedding forward", names[k], th);
            float *acc = alloc(V * C, 36);
            cr_assert_eq(it_rows_embedding_backward(R, C, V, tok, A, LD, acc, th), 0);
            assert_same(acc, dEw, V * C, "embedding backward", names[k], th);
            free(acc);
            for (int op = 0; op < 6; op++) {
                for (size_t r = 0; r < R; r++)
                    for (size_t c = 0; c < C; c++) {
                        float a = A[r * LD + c], b = Bm[r * LD + c], y;
                        switch (op) {
                        case 0: y = a + b; break;
                        case 1: y = a + Bm[c]; break; /* ldb = 0 */
                        case 2: y = a <= 0.0f ? 0.0f : a; break;
                        case 3: y = a > 0.0f ? b : 0.0f; break;
                        case 4: y = it_tanhf(a); break;
                        default: {
                            float sq = a * a, slope = 1.0f - sq;
                            y = b * slope;
                        }
                        }
                        want[r * LD + c] = y;
                    }
                int rc = op == 0   ? it_rows_add(R, C, A, LD, Bm, LD, Y, LD, th)
                         : op == 1 ? it_rows_add(R, C, A, LD, Bm, 0, Y, LD, th)
                         : op == 2 ? it_rows_relu_forward(R, C, A, LD, Y, LD, th)
                         : op == 3 ? it_rows_relu_backward(R, C, A, LD, Bm, LD, Y, LD, th)
                         : op == 4 ? it_rows_tanh_forward(R, C, A, LD, Y, LD, th)
                                   : it_rows_tanh_backward(R, C, A, LD, Bm, LD, Y, LD, th);
                cr_assert_eq(rc, 0);
                for (size_t r = 0; r < R; r++)
                    assert_same(Y + r * LD, want + r * LD, C, "elementwise op", names[k], th);
            }
        }
    free(E), free(A), free(Bm), free(Y), free(want), free(dE), free(dEw);
    it_kernels_select(NULL);
}

Test(rows, softmax_xent_equals_the_one_position_functions_in_place_too)
{
    enum { R = 45, N = 113, LD = 120 };
    float *Z = alloc(R * LD, 41), *P = alloc(R * LD, 0), *Pw = alloc(R * LD, 0), *lw = alloc(R, 0), *l = alloc(R, 0);
    float *dw = alloc(R * LD, 0), *d = alloc(R * LD, 0);
    uint32_t tgt[R], seed = 3;
    for (size_t r = 0; r < R; r++) {
        tgt[r] = lcg(&seed) % N;
        for (size_t k = 0; k < N; k++)
            Z[r * LD + k] = Z[r * LD + k] * 1e-4f; /* logits of a sensible size */
    }
    /* ties and signed zeros for the maximum scan: -0 before +0, a repeated maximum */
    for (size_t k = 0; k < N; k++)
        Z[LD + k] = k < 50 ? -1.0f : k == 60 ? F(0x80000000u) : k == 70 ? 0.0f : -2.0f;
    Z[2 * LD + 7] = 50.0f, Z[2 * LD + 90] = 50.0f;
    Z[3 * LD + 0] = F(0x7fc00000u); /* a NaN in z[0] */
    for (size_t r = 0; r < R; r++) {
        lw[r] = it_softmax_xent_forward(Z + r * LD, N, tgt[r], Pw + r * LD);
        it_softmax_xent_backward(Pw + r * LD, N, tgt[r], 0.25f, dw + r * LD);
    }
    const char *names[16];
    size_t ns = sets(names);
    for (size_t k = 0; k < ns; k++)
        for (unsigned th = 1; th <= 4; th++) {
            cr_assert_eq(it_kernels_select(names[k]), 0);
            cr_assert_eq(it_rows_softmax_xent_forward(R, N, Z, LD, tgt, l, P, LD, th), 0);
            assert_same(l, lw, R, "loss", names[k], th);
            for (size_t r = 0; r < R; r++)
                assert_same(P + r * LD, Pw + r * LD, N, "probabilities", names[k], th);
            cr_assert_eq(it_rows_softmax_xent_backward(R, N, P, LD, tgt, 0.25f, d, LD, th), 0);
            for (size_t r = 0; r < R; r++)
                assert_same(d + r * LD, dw + r * LD, N, "dlogits", names[k], th);
            memcpy(P, Z, sizeof(float) * R * LD); /* in place, and the contiguous path (ld = n) */
            cr_assert_eq(it_rows_softmax_xent_forward(R, N, P, LD, tgt, l, P, LD, th), 0);
            assert_same(l, lw, R, "loss in place", names[k], th);
            float *Zc = alloc(R * N, 0);
            for (size_t r = 0; r < R; r++)
                memcpy(Zc + r * N, Z + r * LD, sizeof(float) * N);
            cr_assert_eq(it_rows_softmax_xent_forward(R, N, Zc, N, tgt, l, Zc, N, th), 0);
            assert_same(l, lw, R, "loss, contiguous rows", names[k], th);
            for (size_t r = 0; r < R; r++)
                assert_same(Zc + r * N, Pw + r * LD, N, "probabilities, contiguous rows", names[k], th);
            free(Zc);
        }
    free(Z), free(P), free(Pw), free(lw), free(l), free(dw), free(d);
    it_kernels_select(NULL);
}

Test(rows, attention_equals_the_one_query_functions)
{
    enum { R = 21, T = 3, Hh = 4, DH = 32, D = Hh * DH };
    const float c = F(0x3e3504f3u);
    float *Q = alloc(R * D, 51), *K = alloc(R * T * D, 52), *V = alloc(R * T * D, 53), *dZ = alloc(R * D, 54);
    for (size_t i = 0; i < R * D; i++)
        Q[i] = Q[i] * 1e-3f;
    float *Ww = alloc(R * Hh * T, 0), *Zw = alloc(R * D, 0), *dQw = alloc(R * D, 0), *dKw = alloc(R * T * D, 0),
          *dVw = alloc(R * T * D, 0);
    float *W = alloc(R * Hh * T, 0), *Z = alloc(R * D, 0), *dQ = alloc(R * D, 0), *dK = alloc(R * T * D, 0),
          *dV = alloc(R * T * D, 0);
    for (size_t r = 0; r < R; r++) {
        it_attention_forward(Q + r * D, K + r * T * D, V + r * T * D, T, Hh, DH, c, Ww + r * Hh * T, Zw + r * D);
        it_attention_backward(Q + r * D, K + r * T * D, V + r * T * D, Ww + r * Hh * T, dZ + r * D, T, Hh, DH, c,
                              dQw + r * D, dKw + r * T * D, dVw + r * T * D);
    }
    const char *names[16];
    size_t ns = sets(names);
    for (size_t k = 0; k < ns; k++)
        for (unsigned th = 1; th <= 4; th++) {
            cr_assert_eq(it_kernels_select(names[k]), 0);
            cr_assert_eq(it_rows_attention_forward(R, T, Hh, DH, c, Q, D, K, V, D, W, Z, D, th), 0);
            assert_same(W, Ww, R * Hh * T, "attention weights", names[k], th);
            assert_same(Z, Zw, R * D, "attention output", names[k], th);
            cr_assert_eq(it_rows_attention_backward(R, T, Hh, DH, c, Q, D, K, V, D, W, dZ, D, dQ, D, dK, dV, D, th),
                         0);
            assert_same(dQ, dQw, R * D, "dq", names[k], th);
            assert_same(dK, dKw, R * T * D, "dk", names[k], th);
            assert_same(dV, dVw, R * T * D, "dv", names[k], th);
        }
    free(Q), free(K), free(V), free(dZ), free(Ww), free(Zw), free(dQw), free(dKw), free(dVw);
    free(W), free(Z), free(dQ), free(dK), free(dV);
    it_kernels_select(NULL);
}

/* §7.2 written out here, with the integer square root of §3.6 */
Test(rows, adamw_and_sgd_over_a_tensor_equal_the_written_sequence)
{
    enum { N = 1031 };
    it_adamw_consts c = {F(0x3a83126f), F(0x3f666666), F(0x3f7ae148), F(0x322bcc77), F(0x3f7fbe77), F(0x3dccccd0),
                         F(0x3ca3d700)};
    const float bc1 = F(0x3e428f60), bc2 = F(0x3d223390);
    float *p0 = alloc(N, 61), *g = alloc(N, 62), *m0 = alloc(N, 63), *v0 = alloc(N, 64);
    for (size_t i = 0; i < N; i++)
        v0[i] = v0[i] < 0.0f ? -v0[i] : v0[i]; /* a second moment is never negative */
    float *pw = alloc(N, 0), *mw = alloc(N, 0), *vw = alloc(N, 0), *sw = alloc(N, 0);
    for (size_t j = 0; j < N; j++) {
        float pj = p0[j] * c.decay, m1 = c.beta1 * m0[j], m2 = c.one_minus_beta1 * g[j];
        mw[j] = m1 + m2;
        float gg = g[j] * g[j], v1 = c.beta2 * v0[j], v2 = c.one_minus_beta2 * gg;
        vw[j] = v1 + v2;
        float mhat = mw[j] / bc1, vhat = vw[j] / bc2;
        float denom = it_sqrtf(vhat) + c.eps, ratio = mhat / denom, delta = c.lr * ratio;
        pw[j] = pj - delta;
        float d2 = 0.5f * g[j];
        sw[j] = p0[j] - d2;
    }
    const char *names[16];
    size_t ns = sets(names);
    for (size_t k = 0; k < ns; k++)
        for (unsigned th = 1; th <= 4; th++) {
            cr_assert_eq(it_kernels_select(names[k]), 0);
            float *p = alloc(N, 0), *m = alloc(N, 0), *v = alloc(N, 0);
            memcpy(p, p0, sizeof(float) * N), memcpy(m, m0, sizeof(float) * N), memcpy(v, v0, sizeof(float) * N);
            cr_assert_eq(it_tensor_adamw_update(&c, bc1, bc2, p, g, m, v, N, th), 0);
            assert_same(p, pw, N, "adamw p", names[k], th);
            assert_same(m, mw, N, "adamw m", names[k], th);
            assert_same(v, vw, N, "adamw v", names[k], th);
            memcpy(p, p0, sizeof(float) * N);
            cr_assert_eq(it_tensor_sgd_update(p, g, N, 0.5f, th), 0);
            assert_same(p, sw, N, "sgd", names[k], th);
            free(p), free(m), free(v);
        }
    free(p0), free(g), free(m0), free(v0), free(pw), free(mw), free(vw), free(sw);
    it_kernels_select(NULL);
}

/* ---- arguments and callers ---------------------------------------------------- */

Test(rows, invalid_arguments_are_refused_with_nothing_written)
{
    float X[12], W[6], Y[8], dW[6];
    uint32_t tok[2] = {0, 5};
    for (size_t i = 0; i < 8; i++)
        Y[i] = F(0x7f7f7f7fu);
    memset(dW, 0x55, sizeof dW);
    fill(X, 12, 71), fill(W, 6, 72);
    cr_assert_eq(it_rows_linear_forward(2, 3, 2, X, 2, W, NULL, Y, 2, 1), -1, "ldx below the row");
    cr_assert_eq(it_rows_linear_forward(2, 3, 2, X, 3, W, NULL, Y, 1, 1), -1, "ldy below the row");
    cr_assert_eq(it_rows_linear_forward(2, 3, 2, NULL, 3, W, NULL, Y, 2, 1), -1, "NULL X");
    cr_assert_eq(it_rows_linear_backward_params(2, 3, 2, X, 1, X, 3, dW, NULL, 1), -1, "lddy below the row");
    cr_assert_eq(it_rows_embedding_forward(2, 3, 4, X, tok, Y, 3, 1), -1, "token 5 of a vocabulary of 4");
    cr_assert_eq(it_rows_embedding_backward(2, 3, 4, tok, X, 3, dW, 1), -1, "token 5 of a vocabulary of 4");
    cr_assert_eq(it_rows_softmax_xent_forward(2, 3, X, 3, tok, NULL, Y, 3, 1), -1, "target 5 of 3 classes");
    cr_assert_eq(it_rows_attention_forward(1, 17, 1, 1, 1.0f, X, 1, X, X, 1, Y, Y, 1, 1), -1, "T > 16");
    for (size_t i = 0; i < 8; i++)
        assert_bits(Y[i], 0x7f7f7f7fu, "(Y[%zu] was written)", i);
    for (size_t i = 0; i < 6; i++)
        assert_bits(dW[i], 0x55555555u, "(dW[%zu] was written)", i);
    /* empty shapes are fine and write nothing */
    cr_assert_eq(it_rows_linear_forward(0, 3, 2, NULL, 0, W, NULL, NULL, 0, 4), 0);
    cr_assert_eq(it_rows_linear_backward_params(0, 3, 2, NULL, 0, NULL, 0, dW, NULL, 4), 0);
    assert_bits(dW[0], 0x55555555u, "(no rows: the partial sum stays)");
}

/* Two threads of a caller use the library at once, each asking for 3
 * threads: one gets the pool, the other computes its shares itself; both
 * must get the bits of a lone call. */
typedef struct {
    const float *X, *W, *b;
    float *Y;
    int rc;
} call;

enum { CR = 300, CI = 128, CO = 96 };

static void *concurrent(void *arg)
{
    call *c = arg;
    for (int rep = 0; rep < 20 && c->rc == 0; rep++)
        c->rc = it_rows_linear_forward(CR, CI, CO, c->X, CI, c->W, c->b, c->Y, CO, 3);
    return NULL;
}

Test(rows, concurrent_callers_get_the_bits_of_a_lone_call)
{
    float *X = alloc(CR * CI, 81), *W = alloc(CO * CI, 82), *b = alloc(CO, 83), *want = alloc(CR * CO, 0);
    it_kernels_select(NULL);
    it_rows_linear_forward(CR, CI, CO, X, CI, W, b, want, CO, 1);
    call c[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        c[i] = (call){X, W, b, alloc(CR * CO, 0), 0};
        cr_assert_eq(pthread_create(&t[i], NULL, concurrent, &c[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        cr_assert_eq(c[i].rc, 0);
        assert_same(c[i].Y, want, CR * CO, "concurrent linear forward", it_kernels_name(), 3);
        free(c[i].Y);
    }
    free(X), free(W), free(b), free(want);
}
