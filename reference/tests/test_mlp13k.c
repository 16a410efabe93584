/* spec §11: the profile's shape, init, sampling and run-to-run identity. */
#include <string.h>

#include "testutil.h"

Test(mlp13k, parameter_count_and_layout) /* §11.2 */
{
    cr_assert_eq(IT_MLP13K_NPARAMS, 13088);
    size_t next = 0;
    for (int t = 0; t < 5; t++) {
        cr_assert_eq(it_mlp13k_tensors[t].offset, next, "tensor %s is not contiguous", it_mlp13k_tensors[t].name);
        next += it_mlp13k_tensors[t].rows * it_mlp13k_tensors[t].cols;
    }
    cr_assert_eq(next, 13088);
    cr_assert_str_eq(it_mlp13k_tensors[0].name, "embed");
    cr_assert_str_eq(it_mlp13k_tensors[4].name, "b2");
}

Test(mlp13k, corpus_is_the_spec_file) /* §11.3 */
{
    unsigned char d[32];
    char hex[65];
    it_sha256(it_mlp13k_corpus, it_mlp13k_corpus_len, d);
    it_hex(d, 32, hex);
    /* the compiled-in bytes must be the file's: re-hash the file itself */
    FILE *f = fopen("spec/corpus/mlp13k.txt", "rb");
    cr_assert(f, "run from the repository root");
    static unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert_eq(n, it_mlp13k_corpus_len);
    cr_assert(memcmp(buf, it_mlp13k_corpus, n) == 0);
}

Test(mlp13k, init_follows_streams_and_scales) /* §11.4 */
{
    static float p[IT_MLP13K_NPARAMS];
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    it_mlp13k_init(&r, p);
    /* spot checks recomputed from the clause, one per tensor */
    assert_bits(p[IT_MLP13K_OFF_EMBED + 17], B(it_u32_to_symmetric(it_rng_u32(r.seed, 0, 17))));
    assert_bits(p[IT_MLP13K_OFF_W1 + 5], B(it_u32_to_symmetric(it_rng_u32(r.seed, 1, 5)) * 0.25f));
    assert_bits(p[IT_MLP13K_OFF_W2 + 8191],
                B(it_u32_to_symmetric(it_rng_u32(r.seed, 3, 8191)) * F(0x3e3504f3u)));
    for (int i = 0; i < IT_MLP13K_HIDDEN; i++)
        assert_bits(p[IT_MLP13K_OFF_B1 + i], 0x00000000u);
    for (int i = 0; i < IT_MLP13K_VOCAB; i++)
        assert_bits(p[IT_MLP13K_OFF_B2 + i], 0x00000000u);
    for (int i = 0; i < IT_MLP13K_OFF_B1; i++)
        cr_assert(p[i] >= -1.0f && p[i] < 1.0f);
}

Test(mlp13k, batches_are_adjacent_corpus_bytes) /* §11.5 */
{
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    unsigned char xs[64], ys[64];
    for (uint32_t step = 1; step <= 200; step += 37) {
        it_mlp13k_batch(&r, step, xs, ys);
        for (int p = 0; p < 64; p++) {
            uint64_t index = (uint64_t)(step - 1) * 64 + (uint64_t)p;
            uint32_t o = it_u32_below(it_rng_u32(r.seed, 5, index), (uint32_t)r.corpus_len - 1);
            cr_assert(xs[p] == r.corpus[o] && ys[p] == r.corpus[o + 1], "step %u position %d", step, p);
        }
    }
}

static void run_digests(char out[][65], uint32_t steps)
{
    static it_mlp13k_state s;
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    it_mlp13k_start(&r, &s);
    it_params_digest(s.params, IT_MLP13K_NPARAMS, out[0]);
    for (uint32_t t = 1; t <= steps; t++) {
        cr_assert_eq(it_mlp13k_step(&r, &s), IT_OK);
        it_params_digest(s.params, IT_MLP13K_NPARAMS, out[t]);
    }
}

Test(mlp13k, two_runs_in_one_process_are_identical)
{
    static char a[201][65], b[201][65];
    run_digests(a, 200);
    run_digests(b, 200);
    for (int t = 0; t <= 200; t++)
        cr_assert_str_eq(a[t], b[t], "step %d", t);
    cr_assert_str_neq(a[0], a[1], "an update must move the parameters");
}

Test(mlp13k, loss_goes_down)
{
    static it_mlp13k_state s;
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    it_mlp13k_start(&r, &s);
    cr_assert_eq(it_mlp13k_step(&r, &s), IT_OK);
    float first = s.last_loss;
    /* uniform prediction over 256 bytes costs ln 256 = 5.545 */
    cr_assert(first > 5.0f && first < 6.5f, "first loss %g", (double)first);
    float sum = 0.0f;
    while (s.step < 200) {
        cr_assert_eq(it_mlp13k_step(&r, &s), IT_OK);
        if (s.step > 180)
            sum += s.last_loss;
    }
    cr_assert(sum / 20.0f < 3.0f, "mean loss of the last 20 steps %g", (double)(sum / 20.0f));
}

Test(mlp13k, nonfinite_loss_is_a_named_failure) /* §10 */
{
    static it_mlp13k_state s;
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    r.lr = 1e30f; /* the first update blows the parameters up */
    it_run_options o = {5, NULL, NULL, NULL, 0, NULL, 0, NULL, 0};
    char err[256];
    it_status st = it_mlp13k_run(&r, &o, &s, err, sizeof err);
    cr_assert(st == IT_ERR_NONFINITE_PARAM || st == IT_ERR_NONFINITE_LOSS, "got %s", it_status_name(st));
    cr_assert(strstr(err, "not finite"), "message: %s", err);
}

Test(mlp13k, nan_parameter_is_caught_after_the_update) /* §10 */
{
    static it_mlp13k_state s;
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    it_mlp13k_start(&r, &s);
    s.params[IT_MLP13K_OFF_W2 + 3] = F(0x7fc00000u); /* a NaN in w2 reaches the loss */
    cr_assert_eq(it_mlp13k_step(&r, &s), IT_ERR_NONFINITE_LOSS);
    it_mlp13k_start(&r, &s);
    s.params[IT_MLP13K_OFF_EMBED + 16 * 255] = F(0x7f800000u); /* row 255 never sampled: only the param check sees it */
    it_status st = it_mlp13k_step(&r, &s);
    cr_assert_eq(st, IT_ERR_NONFINITE_PARAM);
    cr_assert_eq(s.bad_index, (size_t)(IT_MLP13K_OFF_EMBED + 16 * 255));
}

/* §11.6 and §13.5 write the scale of a batch of m as s = 1 ⊘ m (m converted
 * to binary32 first, as the reference computes it), P5 as RN(1/m). They are
 * the same number for every m a request can carry: the 4 MiB line cap (P3)
 * bounds m below 2^21 for mlp13k_loss_grad (two int arrays of m, at least
 * 2 bytes an element each) and below 466,034 for addmod113_loss_grad (9
 * bytes a pair), and every integer up to 2^24 is a binary32, so 1 ⊘ m is
 * one rounding of 1/m. The reference: (float)(1.0 / m) in binary64 rounds
 * twice, which is exact for a quotient of binary32 values (53 >= 2*24+2).
 * Past 2^24 they part: the control shows what the cap protects. */
Test(mlp13k, the_batch_scale_1_div_m_is_rn_of_1_over_m_within_the_line_cap) /* §11.6, §13.5, P5 */
{
    for (uint32_t m = 1; m <= (1u << 21); m++) {
        float s = 1.0f / (float)m;
        cr_assert_eq(it_f32_bits(s), it_f32_bits((float)(1.0 / (double)m)), "m = %u", (unsigned)m);
    }
    /* §13.1's s for the 3,831 training pairs and §13.7's for the 8,938 test pairs */
    cr_assert_eq(it_f32_bits(1.0f / 3831.0f), 0x3988daa5u);
    cr_assert_eq(it_f32_bits(1.0f / 8938.0f), 0x38eaa21du);
    /* §11.6's 0x3c800000 is 1 ⊘ 64 */
    cr_assert_eq(it_f32_bits(1.0f / 64.0f), 0x3c800000u);
    uint32_t past = (1u << 24) + 1;
    cr_assert_neq(it_f32_bits(1.0f / (float)past), it_f32_bits((float)(1.0 / (double)past)),
                  "beyond 2^24 the conversion of m rounds and 1 ⊘ m is no longer RN(1/m)");
}
