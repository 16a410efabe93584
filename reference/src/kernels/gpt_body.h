/* gpt_body.h: the GPT layers of a SIMD kernel set (included by
 * simd_body.h, once per instruction set): causal attention of one sequence
 * (spec §5.18, §5.19) and GELU (§5.16, §5.17), the same bits as the
 * portable set's readable definitions (causal_attention.c, gelu.c).
 *
 * Lanes hold different outputs only: the scores of different keys (the
 * keys transposed so that they lie side by side), the elements j of a
 * z, dq, dk or dv row, different GELU elements. Every SUM stays one
 * sequence in its clause's order: a score over j ascending, z and dq over
 * the keys ascending, dk and dv over the queries ascending (each query's
 * term rounded, then added), the softmax's max scan and its SUM scalar. */

enum { CA_MAXT = 64, CA_MAXDH = 64 };

/* shapes the vector bodies take; others go to the portable definition */
static int causal_fits(size_t T, size_t dh) { return T <= CA_MAXT && dh <= CA_MAXDH && dh % VW == 0; }

/* Kt[j*Tp + t] = k[t*D + j] for t < T (head-offset k); the padding is +0 */
static void transpose_keys(const float *k, size_t T, size_t D, size_t dh, size_t Tp, float *Kt)
{
    for (size_t j = 0; j < dh; j++) {
        for (size_t t = 0; t < T; t++)
            Kt[j * Tp + t] = k[t * D + j];
        for (size_t t = T; t < Tp; t++)
            Kt[j * Tp + t] = 0.0f;
    }
}

/* Every sum of the attention is out[x] = SUM_i w[i] * M[i][x], i ascending,
 * for the x of a row: the scores (i over the head's width, x over keys, M
 * the transposed keys), z and dq (i over keys), dk and dv (i over queries).
 * The sums are short (a head width, or up to T terms), so one running
 * vector would wait on the adder's latency: up to SIMUL vectors of x are
 * kept in flight, each lane its own sum, every one still its own sequence
 * in its clause's order. The count is a constant in each call of the
 * always-inline body, so the accumulators are registers. */
enum { SIMUL = 8 };

/* nv vectors of out: out[x] = SUM_i w[i] * M[i * stride + x], i < len */
static inline __attribute__((always_inline)) void weighted_group(const float *M, size_t stride, const float *w,
                                                                 size_t len, float *out, const size_t nv)
{
    vf acc[SIMUL];
    for (size_t c = 0; c < nv; c++)
        acc[c] = (vf){0};
    for (size_t i = 0; i < len; i++)
        for (size_t c = 0; c < nv; c++) {
            vf prod = ldf(M + i * stride + c * VW) * w[i];
            acc[c] = acc[c] + prod;
        }
    for (size_t c = 0; c < nv; c++)
        stf(out + c * VW, acc[c]);
}

/* out[x] = SUM_i w[i] * M[i * stride + x] for x < width rounded up to lanes
 * (M readable there), each term rounded, then added, i ascending from +0 */
static void weighted_sum(const float *M, size_t stride, const float *w, size_t len, size_t width, float *out)
{
    for (size_t x0 = 0; x0 < width; x0 += SIMUL * VW) {
        const size_t left = (width - x0 + VW - 1) / VW, nv = left < SIMUL ? left : SIMUL;
        const float *m = M + x0;
        switch (nv) {
        case 1: weighted_group(m, stride, w, len, out + x0, 1); break;
        case 2: weighted_group(m, stride, w, len, out + x0, 2); break;
        case 3: weighted_group(m, stride, w, len, out + x0, 3); break;
        case 4: weighted_group(m, stride, w, len, out + x0, 4); break;
        case 5: weighted_group(m, stride, w, len, out + x0, 5); break;
        case 6: weighted_group(m, stride, w, len, out + x0, 6); break;
        case 7: weighted_group(m, stride, w, len, out + x0, 7); break;
        default: weighted_group(m, stride, w, len, out + x0, SIMUL); break;
        }
    }
}

/* s[t] = SUM_j a[j] * Kt[j][t], t < n (rounded up to lanes), j ascending */
static void dots_by_key(const float *a, const float *Kt, size_t dh, size_t Tp, size_t n, float *s)
{
    weighted_sum(Kt, Tp, a, dh, n, s);
}

/* §5.18 for head h of one sequence: packed lower triangle of exps in e */
static void causal_head_fwd(const float *q, const float *k, const float *v, size_t T, size_t D, size_t dh,
                            float scale, size_t h, float *w, float *z, const size_t H)
{
    const size_t Tp = (T + VW - 1) / VW * VW;
    float Kt[CA_MAXDH * CA_MAXT], e[CA_MAXT * (CA_MAXT + 1) / 2], s[CA_MAXT];
    transpose_keys(k + h * dh, T, D, dh, Tp, Kt);
    for (size_t p = 0, at = 0; p < T; at += ++p) {
        dots_by_key(q + p * D + h * dh, Kt, dh, Tp, p + 1, s);
        for (size_t t = 0; t <= p; t++)
            s[t] = s[t] * scale;
        float mx = s[0];
        for (size_t t = 1; t <= p; t++)
            if (s[t] > mx)
                mx = s[t];
        for (size_t t = 0; t <= p; t++)
            e[at + t] = s[t] - mx;
    }
    expf_v(e, e, T * (T + 1) / 2, 1);
    for (size_t p = 0, at = 0; p < T; at += ++p) {
        float S = 0.0f;
        for (size_t t = 0; t <= p; t++)
            S = S + e[at + t];
        float *wr = w + (p * H + h) * T;
        for (size_t t = 0; t < T; t++)
            wr[t] = t <= p ? e[at + t] / S : 0.0f;
        weighted_sum(v + h * dh, D, wr, p + 1, dh, z + p * D + h * dh);
    }
}

static void causal_fwd(const float *q, const float *k, const float *v, size_t T, size_t H, size_t dh, float scale,
                       float *w, float *z, float *wp)
{
    if (!causal_fits(T, dh)) {
        it_kernels_portable.causal_fwd(q, k, v, T, H, dh, scale, w, z, wp);
        return;
    }
    for (size_t h = 0; h < H; h++)
        causal_head_fwd(q, k, v, T, H * dh, dh, scale, h, w, z, H);
}

/* §5.19 for head h, query p: dq written, and the row ds[t] (t <= p) of the
 * scores' gradient that dk takes its terms from */
static void causal_query_bwd(const float *k, const float *wr, const float *dz, const float *Vt, size_t p, size_t D,
                             size_t dh, size_t Tp, float scale, size_t h, float *dq, float *ds)
{
    float dw[CA_MAXT];
    const float *dzp = dz + p * D + h * dh;
    dots_by_key(dzp, Vt, dh, Tp, p + 1, dw);
    float c = 0.0f;
    for (size_t t = 0; t <= p; t++) {
        float prod = wr[t] * dw[t];
        c = c + prod;
    }
    for (size_t t = 0; t <= p; t++) {
        float diff = dw[t] - c;
        float dsoft = wr[t] * diff;
        ds[t] = dsoft * scale;
    }
    weighted_sum(k + h * dh, D, ds, p + 1, dh, dq + p * D + h * dh);
}

/* §5.19 for head h: every query's dq and ds first, then each key t's dk and
 * dv as one sum over the queries p = t .. T-1 ascending (the column t of ds
 * and of the weights, gathered), in registers from +0: the same sequence
 * as adding each query's term into a zeroed dk as the queries come. */
static void causal_head_bwd(const float *q, const float *k, const float *v, const float *w, const float *dz,
                            size_t T, size_t H, size_t dh, float scale, size_t h, float *dq, float *dk, float *dv)
{
    const size_t D = H * dh, Tp = (T + VW - 1) / VW * VW;
    float Vt[CA_MAXDH * CA_MAXT], ds[CA_MAXT * CA_MAXT], dcol[CA_MAXT], wcol[CA_MAXT];
    transpose_keys(v + h * dh, T, D, dh, Tp, Vt);
    for (size_t p = 0; p < T; p++)
        causal_query_bwd(k, w + (p * H + h) * T, dz, Vt, p, D, dh, Tp, scale, h, dq, ds + p * T);
    for (size_t t = 0; t < T; t++) {
        for (size_t p = t; p < T; p++) {
            dcol[p - t] = ds[p * T + t];
            wcol[p - t] = w[(p * H + h) * T + t];
        }
        weighted_sum(q + t * D + h * dh, D, dcol, T - t, dh, dk + t * D + h * dh);
        weighted_sum(dz + t * D + h * dh, D, wcol, T - t, dh, dv + t * D + h * dh);
    }
}

static void causal_bwd(const float *q, const float *k, const float *v, const float *w, const float *dz, size_t T,
                       size_t H, size_t dh, float scale, float *dq, float *dk, float *dv, float *wp, float *dkp,
                       float *dvp)
{
    if (!causal_fits(T, dh)) {
        it_kernels_portable.causal_bwd(q, k, v, w, dz, T, H, dh, scale, dq, dk, dv, wp, dkp, dvp);
        return;
    }
    for (size_t h = 0; h < H; h++)
        causal_head_bwd(q, k, v, w, dz, T, H, dh, scale, h, dq, dk, dv);
}

/* ---- GELU (§5.16, §5.17) over elements, a chunk at a time ---- */

enum { GELU_CHUNK = 256 };

static inline float bits_f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* t = tanh(c0 * (x + c1 * ((x * x) * x))) for n <= GELU_CHUNK elements */
static void gelu_tanh(const float *x, size_t n, float *t)
{
    float u[GELU_CHUNK];
    const vf c0 = splat(bits_f(0x3f4c422au)), c1 = splat(bits_f(0x3d372713u));
    size_t i = 0;
    for (; i + VW <= n; i += VW) {
        vf xv = ldf(x + i), x2 = xv * xv, x3 = x2 * xv, cubic = c1 * x3, inner = xv + cubic;
        stf(u + i, c0 * inner);
    }
    for (; i < n; i++) {
        float x2 = x[i] * x[i], x3 = x2 * x[i], cubic = c1[0] * x3, inner = x[i] + cubic;
        u[i] = c0[0] * inner;
    }
    tanhf_v(u, t, n);
}

static void gelu_fwd(const float *x, size_t n, float *y, float *keep)
{
    float tc[GELU_CHUNK];
    const vf half = splat(0.5f), one = splat(1.0f);
    for (size_t i0 = 0; i0 < n; i0 += GELU_CHUNK) {
        const size_t m = n - i0 < GELU_CHUNK ? n - i0 : GELU_CHUNK;
        float *t = keep ? keep + i0 : tc;
        gelu_tanh(x + i0, m, t);
        size_t c = 0;
        for (; c + VW <= m; c += VW)
            stf(y + i0 + c, (half * ldf(x + i0 + c)) * (one + ldf(t + c)));
        for (; c < m; c++)
            y[i0 + c] = (0.5f * x[i0 + c]) * (1.0f + t[c]);
    }
}

/* dx = dy * (0.5 (1 + t) + ((0.5 x)(1 - t t)) (c0 (1 + c3 (x x)))) */
static inline vf gelu_slope(vf xv, vf tv)
{
    const vf half = splat(0.5f), one = splat(1.0f), c0 = splat(bits_f(0x3f4c422au)),
             c3 = splat(bits_f(0x3e095d4fu));
    vf onept = one + tv, left = half * onept, tt = tv * tv, sech2 = one - tt, hs = (half * xv) * sech2;
    vf x2 = xv * xv, poly = c3 * x2, dinner = one + poly, dudx = c0 * dinner, right = hs * dudx;
    return left + right;
}

static void gelu_bwd(const float *x, const float *kept, const float *dy, size_t n, float *dx)
{
    float tc[GELU_CHUNK];
    for (size_t i0 = 0; i0 < n; i0 += GELU_CHUNK) {
        const size_t m = n - i0 < GELU_CHUNK ? n - i0 : GELU_CHUNK;
        const float *t = kept ? kept + i0 : tc;
        if (!kept)
            gelu_tanh(x + i0, m, tc);
        size_t c = 0;
        for (; c + VW <= m; c += VW)
            stf(dx + i0 + c, ldf(dy + i0 + c) * gelu_slope(ldf(x + i0 + c), ldf(t + c)));
        if (c < m) /* the tail through one vector of copies: lanes are independent */
        {
            float xs[VW] = {0}, ts[VW] = {0}, out[VW];
            for (size_t l = 0; l < m - c; l++)
                xs[l] = x[i0 + c + l], ts[l] = t[c + l];
            stf(out, gelu_slope(ldf(xs), ldf(ts)));
            for (size_t l = 0; l < m - c; l++)
                dx[i0 + c + l] = dy[i0 + c + l] * out[l];
        }
    }
}

/* ---- LayerNorm (§5.14, §5.15) over rows: VW rows at a time, lanes = rows
 * for the row sums (each lane one row's SUM over i ascending), lanes = i
 * for the elementwise parts; other rows through the one-row functions ---- */

enum { LN_MAXN = 256 };

/* xt[i*VW + l] = X[(r0 + l)*n + i] for the VW rows of a block */
static void rows_to_lanes(const float *X, size_t n, float *xt)
{
    for (size_t l = 0; l < VW; l++)
        for (size_t i = 0; i < n; i++)
            xt[i * VW + l] = X[l * n + i];
}

static void layernorm_fwd(size_t rows, size_t n, const float *X, const float *w, const float *b, float eps, float *Y,
                          float *xhat, float *rstd)
{
    size_t r0 = 0;
    if (n <= LN_MAXN && n % VW == 0)
        for (; r0 + VW <= rows; r0 += VW) {
            float xt[LN_MAXN * VW], mus[VW], rs[VW];
            rows_to_lanes(X + r0 * n, n, xt);
            const vf fn = splat((float)n);
            vf sum = (vf){0};
            for (size_t i = 0; i < n; i++)
                sum = sum + ldf(xt + i * VW);
            const vf mu = sum / fn;
            vf sq = (vf){0};
            for (size_t i = 0; i < n; i++) {
                vf d = ldf(xt + i * VW) - mu, dd = d * d;
                sq = sq + dd;
            }
            const vf var = sq / fn, r = splat(1.0f) / IT_VSQRT(var + splat(eps));
            stf(mus, mu), stf(rs, r);
            for (size_t l = 0; l < VW; l++) {
                const size_t row = r0 + l;
                for (size_t i = 0; i < n; i += VW) {
                    vf d = ldf(X + row * n + i) - splat(mus[l]), xh = d * splat(rs[l]);
                    vf scaled = xh * ldf(w + i);
                    stf(xhat + row * n + i, xh);
                    stf(Y + row * n + i, scaled + ldf(b + i));
                }
                rstd[row] = rs[l];
            }
        }
    for (; r0 < rows; r0++)
        it_layernorm_forward(X + r0 * n, w, b, n, eps, Y + r0 * n, xhat + r0 * n, NULL, &rstd[r0]);
}

/* dX (§5.15's input side) and P = dY * xhat (the terms of dw) */
static void layernorm_bwd(size_t rows, size_t n, const float *xhat, const float *rstd, const float *w, const float *dY,
                          float *dX, float *P)
{
    size_t r0 = 0;
    if (n <= LN_MAXN && n % VW == 0)
        for (; r0 + VW <= rows; r0 += VW) {
            float dyt[LN_MAXN * VW], xt[LN_MAXN * VW], As[VW], Cs[VW];
            rows_to_lanes(dY + r0 * n, n, dyt);
            rows_to_lanes(xhat + r0 * n, n, xt);
            const vf fn = splat((float)n);
            vf sg = (vf){0}, sgx = (vf){0};
            for (size_t i = 0; i < n; i++) {
                vf g = ldf(dyt + i * VW) * w[i], gx = g * ldf(xt + i * VW);
                sg = sg + g;
                sgx = sgx + gx;
            }
            stf(As, sg / fn), stf(Cs, sgx / fn);
            for (size_t l = 0; l < VW; l++) {
                const size_t row = r0 + l;
                const vf A = splat(As[l]), C = splat(Cs[l]), rs = splat(rstd[row]);
                for (size_t i = 0; i < n; i += VW) {
                    vf dy = ldf(dY + row * n + i), xh = ldf(xhat + row * n + i), g = dy * ldf(w + i);
                    vf centred = g - A, along = xh * C, diff = centred - along;
                    stf(P + row * n + i, dy * xh);
                    stf(dX + row * n + i, diff * rs);
                }
            }
        }
    for (; r0 < rows; r0++) {
        for (size_t i = 0; i < n; i++)
            P[r0 * n + i] = dY[r0 * n + i] * xhat[r0 * n + i];
        it_layernorm_backward_input(xhat + r0 * n, rstd[r0], w, dY + r0 * n, n, dX + r0 * n);
    }
}
