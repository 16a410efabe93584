/* gemm_body.h: the matrix product of kernels.h (it_gemm_args), included by
 * simd_body.h once per tile shape with
 *
 *   GEMM_NAME  the function to define
 *   GV, GW     the vector type and its number of floats
 *   GMR, GNV   a tile: GMR rows of C by GNV vectors, kept in registers
 *
 * GotoBLAS's shape without its one freedom we may not take. The k loop is
 * blocked (KC values of k at a time) and each block RESUMES the sums the
 * previous block stored in C, so every C(m, n) stays one sequential sum in
 * ascending k (spec §4.1); a block never starts a sum of its own from +0 to
 * be added later (the `gemm-split-k` mutant). Packing is copying: a block
 * of B (KC values of k by NC columns) into panels of NR columns, reused by
 * every row of C, and a block of A (MC rows by KC) into micro-panels of GMR
 * rows, k-major, both zero-padded at the edges so every tile is a full one
 * (the padding lanes compute outputs that are never stored). The buffers
 * are this thread's (it_gemm_scratch): no allocation, any stack. In a tile each lane of each vector is its own
 * C(m, n): the product b * a, rounded, then added to that lane's sum. */

static void GEMM_NAME(const it_gemm_args *g)
{
    enum { MR = GMR, NV = GNV, W = GW, NR = GNV * GW, KC = IT_GEMM_KC, MC = IT_GEMM_MC, NC = IT_GEMM_NC };
    _Static_assert(MC % MR == 0 && NC % NR == 0, "blocks are whole panels");
    float *const Bb = it_gemm_scratch(), *const Ab = Bb + KC * NC; /* this thread's pack buffers */
    float ct[MR * NR] __attribute__((aligned(64)));
    float bt[NR] __attribute__((aligned(64)));
    const size_t M = g->M, N = g->N, K = g->K;
    if (M == 0 || N == 0)
        return;
    for (size_t jc = 0; jc < N; jc += NC) {
        const size_t nc = N - jc < NC ? N - jc : NC;
        size_t pc = 0;
        do { /* one block of k: every sum of C advances by these kc terms */
            const size_t kc = K - pc < KC ? K - pc : KC;
            const int load = g->accumulate || pc > 0;
            const float *bias = pc + kc >= K ? g->bias : NULL; /* after the whole sum */
            /* B(pc + k, jc + j) into panels of NR columns: Bb[(j / NR) * kc * NR + k * NR + j % NR] */
            for (size_t j0 = 0; j0 < nc; j0 += NR) {
                float *bp = Bb + j0 * kc;
                const float *b = g->B + pc * g->brs + (jc + j0) * g->bcs;
                const size_t nr = nc - j0 < NR ? nc - j0 : NR;
                if (g->bcs == 1 && nr == NR)
                    for (size_t k = 0; k < kc; k++)
                        memcpy(bp + k * NR, b + k * g->brs, sizeof(float) * NR);
                else
                    for (size_t j = 0; j < NR; j++)
                        for (size_t k = 0; k < kc; k++)
                            bp[k * NR + j] = j < nr ? b[k * g->brs + j * g->bcs] : 0.0f;
            }
            for (size_t ic = 0; ic < M; ic += MC) {
                const size_t mc = M - ic < MC ? M - ic : MC;
                /* A whose k stride is not 1 (a weight gradient: A(m, k) = dY[k][m],
                 * rows of C are columns of dY, a row of dY apart) is copied into
                 * micro-panels of MR rows, k-major (Ab[i0 * kc + k * MR + r]); A with
                 * contiguous k is read where it is. */
                const int packed_a = g->acs != 1;
                if (packed_a)
                    for (size_t k = 0; k < kc; k++) {
                        const float *a = g->A + ic * g->ars + (pc + k) * g->acs;
                        float *ap = Ab + k * MR;
                        size_t i0 = 0;
                        for (; i0 + MR <= mc; i0 += MR, ap += MR * kc)
#pragma GCC unroll 16
                            for (size_t r = 0; r < MR; r++)
                                ap[r] = a[(i0 + r) * g->ars];
                        if (i0 < mc)
                            for (size_t r = 0; r < MR; r++)
                                ap[r] = i0 + r < mc ? a[(i0 + r) * g->ars] : 0.0f;
                    }
                for (size_t j0 = 0; j0 < nc; j0 += NR) {
                    const size_t nr = nc - j0 < NR ? nc - j0 : NR;
                    const float *bp = Bb + j0 * kc;
                    if (bias)
                        for (size_t j = 0; j < NR; j++)
                            bt[j] = j < nr ? bias[jc + j0 + j] : 0.0f;
                    for (size_t i0 = 0; i0 < mc; i0 += MR) {
                        const size_t mr = mc - i0 < MR ? mc - i0 : MR;
                        float *c = g->C + (ic + i0) * g->ldc + jc + j0, *cc = c;
                        size_t ldc = g->ldc;
                        const int whole = mr == MR && nr == NR;
                        if (!whole) { /* an edge: through a full-size copy of the tile */
                            for (size_t r = 0; r < MR; r++)
                                for (size_t j = 0; j < NR; j++)
                                    ct[r * NR + j] = load && r < mr && j < nr ? c[r * g->ldc + j] : 0.0f;
                            cc = ct;
                            ldc = NR;
                        }
                        /* A's rows (a tile broadcasts scalars of them); unpacked rows past
                         * the end read the last one, for outputs that are never stored */
                        const float *arow[MR];
                        size_t acs = MR;
                        for (size_t r = 0; r < MR; r++)
                            arow[r] = packed_a ? Ab + i0 * kc + r
                                               : g->A + (ic + i0 + (r < mr ? r : mr - 1)) * g->ars + pc * g->acs;
                        if (!packed_a)
                            acs = g->acs;
                        GV acc[MR][NV];
#pragma GCC unroll 16
                        for (size_t r = 0; r < MR; r++)
#pragma GCC unroll 8
                            for (size_t v = 0; v < NV; v++) {
                                if (load || !whole)
                                    memcpy(&acc[r][v], cc + r * ldc + v * W, sizeof(GV));
                                else
                                    acc[r][v] = (GV){0}; /* +0: the start of every SUM */
                            }
                        for (size_t k = 0; k < kc; k++) {
                            GV bv[NV];
#pragma GCC unroll 8
                            for (size_t v = 0; v < NV; v++)
                                memcpy(&bv[v], bp + k * NR + v * W, sizeof(GV));
#pragma GCC unroll 16
                            for (size_t r = 0; r < MR; r++) {
                                const float a = arow[r][k * acs];
#pragma GCC unroll 8
                                for (size_t v = 0; v < NV; v++) {
                                    GV prod = bv[v] * a;
                                    acc[r][v] = acc[r][v] + prod;
                                }
                            }
                        }
#pragma GCC unroll 16
                        for (size_t r = 0; r < MR; r++)
#pragma GCC unroll 8
                            for (size_t v = 0; v < NV; v++) {
                                GV out = acc[r][v];
                                if (bias) {
                                    GV bb;
                                    memcpy(&bb, bt + v * W, sizeof bb);
                                    out = out + bb;
                                }
                                memcpy(cc + r * ldc + v * W, &out, sizeof out);
                            }
                        if (!whole)
                            for (size_t r = 0; r < mr; r++)
                                memcpy(c + r * g->ldc, ct + r * NR, sizeof(float) * nr);
                    }
                }
            }
            pc += kc;
        } while (pc < K);
    }
}
