/* Vector set 1.1.0: profile addmod113 (spec 3.6, 5.9-5.12, 6.5, 7.2, 13).
 * Groups sqrt, relu, attention, adamw and addmod113, and the train file of
 * the 300-step run. */
#include <string.h>

#include "mv.h"

enum { AMP = IT_AM_NPARAMS, AMD = IT_AM_D, AMSTEPS = IT_AM_STEPS };

static float am_hist[4][AMP];   /* parameters at steps 0, 100, 200, 300 */
static uint32_t am_loss[AMSTEPS + 1];
char am_digest[AMSTEPS + 1][65];
static uint32_t am_perm[IT_AM_PAIRS];

/* The reference run of spec 13.8, through the library's own loop pieces. */
float am_window_state[AM_WINDOWS][3][IT_AM_NPARAMS];
const char *am_trace_digest(uint32_t step) { return am_digest[step]; }

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
        for (int w = 0; w < AM_WINDOWS; w++) /* the golden states of set 1.2.0's windows */
            if (t == it_profile_addmod113.windows[w + 1].from) { /* the table's resumed windows */
                memcpy(am_window_state[w][0], params, sizeof params);
                memcpy(am_window_state[w][1], m, sizeof m);
                memcpy(am_window_state[w][2], v, sizeof v);
            }
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
        op_case(&g, "sqrt", cs[i].flags, VALS(IN_F1("x", F(cs[i].x)), OUT_F1("y", it_sqrtf(F(cs[i].x)))), cs[i].why);
    }
    /* one array case over a stride of the positive finite range */
    enum { N = 1024 };
    float x[N], y[N];
    for (uint32_t i = 0; i < N; i++) {
        x[i] = F(i * 0x001fe000u + 0x00000003u);
        y[i] = it_sqrtf(x[i]);
    }
    op_case(&g, "sqrt", FL(SUBNORMAL) | FL(TYPICAL), VALS(IN_F32("x", x, N), OUT_F32("y", y, N)), "1024 inputs spaced 0x001fe000 apart from 0x00000003: "
                                                       "subnormal to near the top of the finite range");
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
    op_case(&g, "relu_forward", FL(SPECIAL) | FL(SUBNORMAL) | FL(NAN_) | FL(EDGE), VALS(IN_F32("x", x, 7), OUT_F32("y", y, 7)), "-1, -0, +0, 2^-149, NaN, 3, -2^-149: -0 and negatives give +0 (never -0), a subnormal passes, "
             "NaN passes through (not laundered into 0 as max(x, 0) might)");
    for (int i = 0; i < 7; i++)
        dy[i] = F(0xc0a00000); /* -5: a product dy*0 would be -0 */
    it_relu_backward(x, dy, 7, dx);
    op_case(&g, "relu_backward", FL(SPECIAL) | FL(EDGE) | FL(NAN_), VALS(IN_F32("x", x, 7), IN_F32("dy", dy, 7), OUT_F32("dx", dx, 7)), "relu'(0) = 0: inputs -0 and +0 pass no gradient; dy = -5 everywhere, so the blocked elements must "
             "be +0 (a selection), where dy*0 would give -0; a NaN input passes no gradient (NaN > 0 is false)");
    /* the pre-activations of training pair 0 at step 0, and a gradient from stream 12 */
    enum { NF = IT_AM_MLP };
    static float pre[NF], post[NF], d[NF], dd[NF];
    extern float am_pre0[];
    memcpy(pre, am_pre0, sizeof pre);
    it_relu_forward(pre, NF, post);
    op_case(&g, "relu_forward", FL(MODEL), VALS(IN_F32("x", pre, NF), OUT_F32("y", post, NF)), "the 512 MLP pre-activations of training pair 0 (9507: 84 + 15) at step 0");
    for (int i = 0; i < NF; i++)
        d[i] = it_u32_to_symmetric(it_rng_u32(IT_AM_SEED, 12, (uint64_t)i));
    it_relu_backward(pre, d, NF, dd);
    op_case(&g, "relu_backward", FL(MODEL), VALS(IN_F32("x", pre, NF), IN_F32("dy", d, NF), OUT_F32("dx", dd, NF)), "the same pre-activations, dy = u(word(seed, 12, i)) (spec 6.3)");
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
    op_case(g, "attention_forward", flags, VALS(IN_INT("heads", H), IN_INT("width", dh), IN_F1("c", scale), IN_F32("q", q, H * dh), IN_F32("k", k, T * H * dh), IN_F32("v", v, T * H * dh), OUT_F32("w", w, H * T), OUT_F32("z", z, H * dh)), why);
    it_attention_backward(q, k, v, w, dz, T, H, dh, scale, dq, dk, dv);
    op_case(g, "attention_backward", flags & ~FL(ORDER), VALS(IN_INT("heads", H), IN_INT("width", dh), IN_F1("c", scale), IN_F32("q", q, H * dh), IN_F32("k", k, T * H * dh), IN_F32("v", v, T * H * dh), IN_F32("w", w, H * T), IN_F32("dz", dz, H * dh), OUT_F32("dq", dq, H * dh), OUT_F32("dk", dk, T * H * dh), OUT_F32("dv", dv, T * H * dh)), say("%s; backward with the forward's weights", why));
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
    op_case(g, "adamw", flags, VALS(IN_F32("p", p0, n), IN_F32("g", gr, n), IN_F32("m", m0, n), IN_F32("v", v0, n), IN_INT("t", t), IN_F32("hyper", hyper, 5), OUT_F32("p", p, n), OUT_F32("m", m, n), OUT_F32("v", v, n)), why);
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
    group_begin(&g, it_profile_addmod113.name, it_profile_addmod113.clause);
    static const uint64_t seeds[3] = {IT_AM_SEED, 1, 0};
    static uint32_t perm[IT_AM_PAIRS];
    for (int i = 0; i < 3; i++) {
        it_addmod113_permutation(seeds[i], perm);
        op_case(&g, "addmod113_perm", i ? FL(EDGE) : FL(TYPICAL), VALS(IN_U64("seed", seeds[i]), OUT_U32("perm", perm, IT_AM_PAIRS)), say("the permutation of spec 13.3 (6.5 on stream 11) under seed %llu%s", (unsigned long long)seeds[i], i ? " (a fresh seed, spec 13.9)" : " (the profile's)"));
    }
    for (int t = 0; t < 11; t++) {
        const it_tensor_info *ti = &it_addmod113_tensors[t];
        op_case(&g, "addmod113_init", FL(TYPICAL), VALS(IN_NAME("tensor", ti->name), OUT_F32("values", am_hist[0] + ti->offset, ti->rows * ti->cols)), say("initial %s (%zu x %zu): %s", ti->name, ti->rows, ti->cols, ti->cols == 1 ? "all +0"
                 : t == 10     ? "its stream, uniform in [-1, 1) times c_U = 0x3e261d5f"
                               : "its stream, uniform in [-1, 1) times c_D = 0x3e1cc471"));
    }
    static float grads[AMP];
    static const struct {
        int hist, first, n;
        const char *why;
    } lg[2] = {{0, 0, 8, "the first 8 training pairs at step 0 (s = 1/8: spec 13.5's vector)"},
               {1, IT_AM_NTRAIN, 5, "the first 5 test pairs at step 100 (s = RN(1/5)): a trained model"}};
    for (int i = 0; i < 2; i++) {
        float loss = it_addmod113_loss_grad(am_hist[lg[i].hist], am_perm + lg[i].first, (size_t)lg[i].n, grads, 1);
        op_case(&g, "addmod113_loss_grad", FL(MODEL), VALS(IN_F32("params", am_hist[lg[i].hist], AMP), IN_U32("pairs", am_perm + lg[i].first, (size_t)lg[i].n), OUT_F1("loss", loss), OUT_F32("grads", grads, AMP)), lg[i].why);
    }
    group_end(&g);
}

static void gen_am_train(void)
{
    static const uint32_t ck_steps[4] = {0, 100, 200, 300};
    const float *ck_params[4] = {am_hist[0], am_hist[1], am_hist[2], am_hist[3]};
    /* the profile's data: the 12,769 pair indices in permutation order (spec 13.3) */
    static unsigned char pb[4 * IT_AM_PAIRS];
    unsigned char d[32];
    char hex[65];
    for (int i = 0; i < IT_AM_PAIRS; i++)
        for (int b = 0; b < 4; b++)
            pb[4 * i + b] = (unsigned char)(am_perm[i] >> (8 * b));
    it_sha256(pb, sizeof pb, d);
    it_hex(d, 32, hex);
    const train_file tf = {it_profile_addmod113.name, it_addmod113_tensors, 11, AMP, hex, AMSTEPS, am_loss, am_digest,
                           ck_steps, 4, ck_params};
    emit_train_file(&tf, it_profile_addmod113.clause);
}

/* The 1.1.0 set: every file of the 1.0.0 set, byte for byte, then
 * addmod113's, then its own manifest. */

/* The groups and the train file of vector set 1.1.0, in file order. */
void gen_addmod113(void)
{
    am_train();
    am_pair0();
    gen_sqrt();
    gen_relu();
    gen_attention();
    gen_adamw();
    gen_am_profile();
    gen_am_train();
}
