/* Unit tests of the runner's pure parts: P3 lines, P4 values, P5 lengths,
 * P6 comparison and ULP distances, the §9.2 trace parser, the command line. */
#include <string.h>

#include "core/options.h"
#include "protocol/optable.h"
#include "testutil.h"
#include "protocol/trace.h"
#include "core/ulp.h"
#include "core/util.h"
#include "protocol/line_codec.h"

Test(wire, p4_values_decode) /* P4 */
{
    value v;
    char why[200];
    cr_assert_eq(value_parse(VT_F32, "3f800000,80000000", 17, 1, &v, why, sizeof why), 0, "%s", why);
    cr_assert_eq(v.n, 2);
    cr_assert_eq(v.v[0], 0x3f800000u);
    cr_assert_eq(v.v[1], 0x80000000u);
    value_free(&v);
    cr_assert_eq(value_parse(VT_INTS, "116,104,0", 9, 1, &v, why, sizeof why), 0);
    cr_assert_eq(v.v[2], 0);
    value_free(&v);
    cr_assert_eq(value_parse(VT_U64, "69736f747261696e", 16, 1, &v, why, sizeof why), 0);
    cr_assert_eq(v.v[0], 0x69736f747261696eull);
    value_free(&v);
    /* uppercase only where an IUT answers (P4: "MAY answer in either case") */
    cr_assert_eq(value_parse(VT_F32, "3F800000", 8, 0, &v, why, sizeof why), 0);
    value_free(&v);
    cr_assert_neq(value_parse(VT_F32, "3F800000", 8, 1, &v, why, sizeof why), 0);
}

Test(wire, p4_values_reject)
{
    value v;
    char why[200];
    const char *bad_f32[] = {"", "3f80000", "3f8000000", "3f800000,", ",3f800000", "3f80000g", "3f800000,,00000000"};
    for (size_t i = 0; i < sizeof bad_f32 / sizeof *bad_f32; i++)
        cr_assert_neq(value_parse(VT_F32, bad_f32[i], strlen(bad_f32[i]), 0, &v, why, sizeof why), 0, "%s",
                      bad_f32[i]);
    const char *bad_int[] = {"", "01", "-1", "+1", "1a", "18446744073709551616"};
    for (size_t i = 0; i < sizeof bad_int / sizeof *bad_int; i++)
        cr_assert_neq(value_parse(VT_INT, bad_int[i], strlen(bad_int[i]), 0, &v, why, sizeof why), 0, "%s",
                      bad_int[i]);
    cr_assert_neq(value_parse(VT_NAME, "W1", 2, 0, &v, why, sizeof why), 0);
    cr_assert_neq(value_parse(VT_SHA256, "abc", 3, 0, &v, why, sizeof why), 0);
}

Test(wire, p3_lines)
{
    wire_line l;
    wire_line_init(&l);
    char why[200];
    const char *ok = "id=exp/1 op=exp x=00000000";
    cr_assert_eq(wire_line_parse(ok, strlen(ok), &l, why, sizeof why), 0, "%s", why);
    cr_assert_eq(l.n, 3);
    cr_assert(wire_line_get(&l, "op") != NULL);
    const char *bad[] = {"", "id=1  op=exp", " id=1", "id=1 ", "Id=1", "id=a=b", "id=1 id=2", "id=1\r",
                         "noequals", "id=1 note=\r"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_neq(wire_line_parse(bad[i], strlen(bad[i]), &l, why, sizeof why), 0, "accepted '%s'", bad[i]);
    /* P3 (1.1.1): an empty value is syntax; its P4 parse is what refuses it */
    const char *empty = "id=x y=402df854 note=";
    cr_assert_eq(wire_line_parse(empty, strlen(empty), &l, why, sizeof why), 0, "%s", why);
    cr_assert_eq(l.n, 3);
    cr_assert_eq(wire_line_get(&l, "note")->val_len, 0);
    value v;
    cr_assert_neq(value_parse(VT_F32, "", 0, 0, &v, why, sizeof why), 0);
    wire_line_free(&l);
}

static int check(const char *op, const char *const *in, const char *const *out, char *why)
{
    const op_def *d = op_find(op, strlen(op));
    cr_assert(d, "no op %s", op);
    value iv[8], ov[4];
    memset(iv, 0, sizeof iv);
    memset(ov, 0, sizeof ov);
    for (size_t k = 0; k < d->n_in; k++)
        cr_assert_eq(value_parse(d->in[k].type, in[k], strlen(in[k]), 1, &iv[k], why, 200), 0, "%s", why);
    for (size_t k = 0; out && k < d->n_out; k++)
        cr_assert_eq(value_parse(d->out[k].type, out[k], strlen(out[k]), 1, &ov[k], why, 200), 0, "%s", why);
    int wo;
    size_t wi;
    int r = op_check(d, iv, out ? ov : NULL, &wo, &wi, why, 200);
    for (size_t k = 0; k < 8; k++)
        value_free(&iv[k]);
    for (size_t k = 0; k < 4; k++)
        value_free(&ov[k]);
    return r;
}

Test(optable, p5_lengths)
{
    char why[200];
    const char *lf[] = {"3", "2", "00000000,00000000,00000000,00000000,00000000,00000000", "00000000,00000000",
                        "00000000,00000000,00000000"};
    const char *lfo[] = {"00000000,00000000"};
    cr_assert_eq(check("linear_forward", lf, lfo, why), 0, "%s", why);
    const char *lfo_bad[] = {"00000000"};
    cr_assert_neq(check("linear_forward", lf, lfo_bad, why), 0);
    tu_assert_has(why, "expected 2 elements");
    const char *lf_bad[] = {"3", "2", "00000000,00000000,00000000,00000000,00000000", "00000000,00000000",
                            "00000000,00000000,00000000"};
    cr_assert_neq(check("linear_forward", lf_bad, lfo, why), 0);
    /* embedding: rows from the table's length, token below rows */
    const char *ef[] = {"2", "00000000,00000000,00000000,00000000", "2"};
    cr_assert_neq(check("embedding_forward", ef, NULL, why), 0);
    tu_assert_has(why, "token 2 is not below rows = 2");
    const char *sw[] = {"exp", "ffffff00", "257"};
    cr_assert_neq(check("sweep", sw, NULL, why), 0);
    const char *ini[] = {"w3"};
    cr_assert_neq(check("mlp13k_init", ini, NULL, why), 0);
    /* u32_below: the array length is free, n is the bound */
    const char *ub[] = {"00000001,ffffffff,80000000", "10"};
    const char *ubo[] = {"00000000,00000009,00000005"};
    cr_assert_eq(check("u32_below", ub, ubo, why), 0, "%s", why);
}

Test(ulp, p6_and_distances) /* P6 */
{
    cr_assert(f32_same(0x7fc00000u, 0xffc00001u), "NaN equals NaN whatever the payload");
    cr_assert(!f32_same(0x00000000u, 0x80000000u), "+0 and -0 differ");
    cr_assert_eq(ulp_distance(0x3f800000u, 0x3f800001u), 1);
    cr_assert_eq(ulp_distance(0x00000001u, 0x80000001u), 2);
    cr_assert_eq(ulp_distance(0x00000000u, 0x80000000u), 0);
    cr_assert_eq(ulp_distance(0x7f7fffffu, 0x7f800000u), 1);
    cr_assert_eq(ulp_distance(0x7fc00000u, 0u), UINT64_MAX);
    ulp_hist h;
    ulp_hist_init(&h);
    ulp_hist_add(&h, 0x3f800001u, 0x3f800000u);
    ulp_hist_add(&h, 0x3f800003u, 0x3f800000u);
    ulp_hist_add(&h, 0x3f800100u, 0x3f800000u);
    ulp_hist_add(&h, 0x80000000u, 0x00000000u);
    ulp_hist_add(&h, 0x7fc00000u, 0x00000000u);
    cr_assert_eq(h.b1, 1);
    cr_assert_eq(h.b2_3, 1);
    cr_assert_eq(h.b256, 1);
    cr_assert_eq(h.sign_nan, 2);
    cr_assert_eq(h.max_ulp, 256);
}

static const char good_trace[] =
    "# isotrain-trace v1 profile=mlp13k steps=2\n"
    "step=0 digest=1111111111111111111111111111111111111111111111111111111111111111\n"
    "step=1 loss=0x40b1a2c3 loss_dec=5.55111837 digest=2222222222222222222222222222222222222222222222222222222222222222\n"
    "step=2 loss=40a00000 loss_dec=5\n";

Test(trace, parses_strictly) /* §9.2 via P7 */
{
    trace_doc t;
    char err[512];
    cr_assert_eq(trace_parse(good_trace, strlen(good_trace), "t", &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.n, 3);
    cr_assert_eq(t.steps, 2);
    cr_assert_str_eq(t.profile, "mlp13k");
    cr_assert_eq(t.s[1].loss, 0x40b1a2c3u);
    cr_assert(t.s[1].has_digest);
    cr_assert(!t.s[2].has_digest, "digest is optional for an IUT (P7)");
    trace_free(&t);
}

static void bad_trace(const char *text, const char *expect)
{
    trace_doc t;
    char err[512];
    cr_assert_neq(trace_parse(text, strlen(text), "t", &t, err, sizeof err), 0, "accepted:\n%s", text);
    tu_assert_has(err, expect);
    trace_free(&t);
}

Test(trace, rejects_with_file_and_line)
{
    bad_trace("step=0\n", "t:1: expected the header");
    bad_trace("# isotrain-trace v1 profile=mlp13k steps=2\nstep=1 loss=40a00000 loss_dec=5\n", "t:2: expected step=0");
    bad_trace("# isotrain-trace v1 profile=mlp13k steps=2\nstep=0\nstep=1 loss=40a00000\n", "t:3: step 1 needs loss=");
    bad_trace("# isotrain-trace v1 profile=mlp13k steps=2\nstep=0\nstep=1 loss=40a00000 loss_dec=4\n",
              "does not denote");
    bad_trace("# isotrain-trace v1 profile=mlp13k steps=2\nstep=0\nstep=1 loss=40a00000 loss_dec=5", "not terminated");
    bad_trace("# isotrain-trace v1 profile=mlp13k steps=1\nstep=0\nstep=1 loss=40a00000 loss_dec=5\nstep=2 loss=40a00000 loss_dec=5\n",
              "t:4: a line after step 1");
    bad_trace("# isotrain-trace v1 profile=mlp13k steps=2\nstep=0 loss=40a00000 loss_dec=5\n", "step 0");
    bad_trace("# isotrain-trace v1 profile=mlp13k steps=2\nstep=0 digest=12\n", "digest is not 64 hex");
    bad_trace("# isotrain-trace v1 profile=mlp13k steps=2\nloss=40a00000 step=0\n", "start with step=");
    bad_trace("# isotrain-trace v1 profile=mlp13k steps=2\nstep=0 digest=1 digest=2\n", "appears twice");
}

Test(trace, unknown_keys_are_ignored) /* §9.2: a consumer MUST ignore keys it does not know */
{
    const char *t = "# isotrain-trace v1 profile=mlp13k steps=1\nstep=0 colour=blue\n"
                    "step=1 time_ms=12 loss=0x40a00000 loss_dec=5\n";
    trace_doc d;
    char err[512];
    cr_assert_eq(trace_parse(t, strlen(t), "t", &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.s[1].loss, 0x40a00000u);
    trace_free(&d);
}

Test(trace, nan_loss_is_read_as_nan)
{
    const char *t = "# isotrain-trace v1 profile=mlp13k steps=1\nstep=0\nstep=1 loss=7fc00000 loss_dec=nan\n";
    trace_doc d;
    char err[512];
    cr_assert_eq(trace_parse(t, strlen(t), "t", &d, err, sizeof err), 0, "%s", err);
    cr_assert(f32_bits_nan(d.s[1].loss));
    trace_free(&d);
}

Test(cli, parses_run_and_rejects_nonsense)
{
    conform_args a;
    char err[256];
    char *ok[] = {"x", "run", "--iut", "./iut", "--level=ops", "--filter", "exp,dot", "--slowdown", "2", NULL};
    cr_assert_eq(cli_parse(9, ok, &a, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(a.level, "ops");
    cr_assert_eq(a.n_filters, 2);
    cr_assert(cli_filter_match(&a, "dot"));
    cr_assert(!cli_filter_match(&a, "log"));
    char *bad1[] = {"x", "run", NULL};
    cr_assert_neq(cli_parse(2, bad1, &a, err, sizeof err), 0);
    char *bad2[] = {"x", "run", "--iut", "i", "--level", "everything", NULL};
    cr_assert_neq(cli_parse(6, bad2, &a, err, sizeof err), 0);
    char *bad3[] = {"x", "repeat", "--runs", "1", "--iut", "i", "--profile", "mlp13k", NULL};
    cr_assert_neq(cli_parse(8, bad3, &a, err, sizeof err), 0);
}

Test(util, sanitizes_for_reports)
{
    char *s = sanitized("ok \001\377 \xc3\xa9", 8, 100);
    cr_assert_str_eq(s, "ok \\x01\\xff \xc3\xa9");
    free(s);
}

/* The runner's profile table (levels/runner_profiles.c): a profile is found
 * by the reference's row only when the vectors' tensors are that row's; a
 * constant the trust layer keeps is the row's value. */
#include "fresh/fresh.h"
#include "levels/runner_profiles.h"

Test(runner_profiles, rows_match_the_reference_and_its_tensors)
{
    cr_assert_eq(FRESH_MLP13K_STEPS, it_profile_mlp13k.fresh_steps);
    for (size_t i = 0; i < it_n_profiles; i++) {
        const it_profile *p = it_profiles[i];
        tensor_desc td[64];
        cr_assert_leq(p->ntensors, 64);
        for (size_t t = 0; t < p->ntensors; t++)
            td[t] = (tensor_desc){(char *)p->tensors[t].name, p->tensors[t].rows, p->tensors[t].cols,
                                  p->tensors[t].offset};
        train_vec tv;
        memset(&tv, 0, sizeof tv);
        tv.profile = (char *)p->name;
        tv.parameters = p->nparams;
        tv.tensors = td;
        tv.n_tensors = p->ntensors;
        const runner_profile *row = runner_profile_of(&tv);
        cr_assert(row && row->ref == p && row->localize, "%s has no row", p->name);
        /* negative controls: another tensor offset, another parameter count, another name */
        td[p->ntensors - 1].offset++;
        cr_assert_null(runner_profile_of(&tv), "%s: a moved tensor still matches", p->name);
        td[p->ntensors - 1].offset--;
        tv.parameters++;
        cr_assert_null(runner_profile_of(&tv), "%s: another P still matches", p->name);
        tv.parameters--;
        tv.profile = "no-such-profile";
        cr_assert_null(runner_profile_of(&tv));
    }
    char names[128];
    runner_profile_names(names, sizeof names);
    cr_assert_str_eq(names, "mlp13k, addmod113 and gptchar");
}

/* The training runs' deadlines (levels/time_budget.h, issue 27 item 8): the
 * calibrated need, 10 x the reference's step time x (steps + 1), when it is
 * above --timeout-run's default; the default otherwise; --timeout-run S as
 * given; --slowdown a factor on each. The step times are planted here; the
 * measurement itself is checked on the one profile that is cheap. */
#include "levels/time_budget.h"

Test(time_budget, scales_with_the_measured_step_and_obeys_the_options)
{
    conform_args a;
    memset(&a, 0, sizeof a);
    a.timeout_run = 600;
    a.slowdown = 1;
    run_ctx rc;
    memset(&rc, 0, sizeof rc);
    rc.a = &a;
    rc.out = fopen("/dev/null", "w");
    cr_assert(rc.out);
    snprintf(rc.costs[0].profile, sizeof rc.costs[0].profile, "addmod113");
    rc.costs[0].step_s = 1.0;
    snprintf(rc.costs[1].profile, sizeof rc.costs[1].profile, "gptchar");
    rc.costs[1].step_s = 0.001;
    rc.n_costs = 2;
    cr_assert_float_eq(rc_timeout_train(&rc, "addmod113", 300), 3010.0, 1e-9);
    cr_assert_float_eq(rc_timeout_train(&rc, "gptchar", 500), 600.0, 1e-9, "below the default: the default");
    a.slowdown = 2;
    cr_assert_float_eq(rc_timeout_train(&rc, "addmod113", 300), 6020.0, 1e-9);
    a.timeout_run_given = 1;
    a.timeout_run = 30;
    cr_assert_float_eq(rc_timeout_train(&rc, "addmod113", 300), 60.0, 1e-9, "--timeout-run S is used as given");
    /* measured: the reference links mlp13k; a profile it lacks has no time */
    double m = tb_step_seconds(&rc, "mlp13k");
    cr_assert(m > 0 && m < 5, "mlp13k step: %g s", m);
    cr_assert(tb_step_seconds(&rc, "no-such-profile") < 0);
    cr_assert_eq(rc.n_costs, 4, "each profile measured once and kept");
    fclose(rc.out);
}
