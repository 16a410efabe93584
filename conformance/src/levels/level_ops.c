/* level_ops.c — the ops level: every op vector through one `ops` process
 * (spec/iut-protocol.md P3-P6, P8; vectors/FORMAT.md §2). Sweep chunks and
 * the exhaustive sweep (flags Chunk, Exhaustive) run only with --exhaustive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levels/levels.h"

enum { LIST_PER_GROUP = 8 };

/* P8: 60 s per response by default, 5x that for a sweep, times --slowdown.
 * A sweep gets that much per 2^24 inputs it covers: the exhaustive sweep
 * (2^32 inputs, 256 chunks' worth) cannot answer in the time of one chunk. */
static double case_timeout(const run_ctx *rc, const op_case *c)
{
    if (strcmp(c->op->name, "sweep") != 0)
        return rc_timeout_case(rc);
    unsigned long long count = strtoull(c->in_raw[2], NULL, 10);
    unsigned long long chunks = (count + (1ull << 24) - 1) >> 24;
    return rc_timeout_case(rc) * 5.0 * (double)(chunks ? chunks : 1);
}

/* The cases that run, as requests in file order; the rest are SKIP now. */
typedef struct {
    ops_req *reqs;
    ops_res *res;
    const op_case **which;
    size_t n, total, skipped, out_of_scope;
} ops_batch;

static void batch_add(ops_batch *b, const run_ctx *rc, const op_case *c, sbuf *kv)
{
    sbuf_reset(kv);
    for (size_t k = 0; k < c->op->n_in; k++) /* P5: inputs in the table's order */
        sbuf_printf(kv, "%s%s=%s", k ? " " : "", c->op->in[k].key, c->in_raw[k]);
    ops_req_set_line(&b->reqs[b->n], c->id, c->op, kv->p);
    b->reqs[b->n].want = c->out;
    b->reqs[b->n].timeout = case_timeout(rc, c);
    b->which[b->n++] = c;
}

static void batch_build(ops_batch *b, const run_ctx *rc)
{
    const conform_args *a = rc->a;
    b->reqs = xcalloc(b->total, sizeof *b->reqs);
    b->res = xcalloc(b->total, sizeof *b->res);
    b->which = xcalloc(b->total, sizeof *b->which);
    sbuf kv;
    sbuf_init(&kv);
    for (size_t g = 0; g < rc->vs.n_groups; g++) {
        const op_group *gr = &rc->vs.groups[g];
        if (!cli_filter_match(a, gr->group))
            continue;
        /* --profile P: the groups only other profiles use are out of scope
         * (verdict/requirements.c op_users), not sent and not required */
        if (!req_group_in_scope(&rc->req, gr)) {
            b->out_of_scope += gr->n_cases;
            continue;
        }
        for (size_t i = 0; i < gr->n_cases; i++) {
            const op_case *c = &gr->cases[i];
            if (!a->exhaustive && (op_case_has_flag(c, "Chunk") || op_case_has_flag(c, "Exhaustive")))
                b->skipped++;
            else
                batch_add(b, rc, c, &kv);
        }
    }
    sbuf_free(&kv);
}

static void batch_free(ops_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->reqs[i].line);
        ops_res_free(&b->res[i]);
    }
    free(b->reqs);
    free(b->res);
    free(b->which);
}

/* One failing case's line: verdict, id, flags, reason. */
static void list_failure(const run_ctx *rc, const op_case *c, const ops_res *x)
{
    sbuf f;
    sbuf_init(&f);
    for (size_t k = 0; k < c->n_flags; k++)
        sbuf_printf(&f, "%s%s", k ? "," : " [", c->flags[k]);
    if (c->n_flags)
        sbuf_addc(&f, ']');
    fprintf(rc->out, "    %s %s%s: %s\n", verdict_name(x->v), c->id, f.p ? f.p : "", x->reason);
    sbuf_free(&f);
}

/* A group out of scope of --profile: every case SKIP, said once. */
static void group_out_of_scope(run_ctx *rc, const op_group *gr, const char *suite)
{
    const char *p = rc->a->profile;
    char *why = xasprintf("out of scope: no op of group %s serves profile %s (--profile %s)", gr->group, p, p);
    for (size_t i = 0; i < gr->n_cases; i++)
        results_add(&rc->res, "ops", suite, gr->cases[i].id, V_SKIP, why, 0, 0);
    fprintf(rc->out, "  %-24s %zu skipped (out of scope: --profile %s)\n", gr->group, gr->n_cases, p);
    free(why);
}

/* One group's results in file order, SKIPs included; *r walks the batch. */
static void group_results(run_ctx *rc, const op_group *gr, const ops_batch *b, size_t *r, const char *suite)
{
    size_t pass = 0, fail = 0, skip = 0, listed = 0;
    for (size_t i = 0; i < gr->n_cases; i++) {
        const op_case *c = &gr->cases[i];
        if (*r < b->n && b->which[*r] == c) {
            const ops_res *x = &b->res[(*r)++];
            results_add(&rc->res, "ops", suite, c->id, x->v, x->reason, 1, x->seconds);
            pass += x->v == V_PASS;
            skip += x->v == V_SKIP;
            fail += x->v != V_PASS && x->v != V_SKIP;
            /* failures and errors are listed; SKIPs (unsupported ops) only counted */
            if ((x->v == V_FAIL || x->v == V_ERROR) && listed < LIST_PER_GROUP) {
                list_failure(rc, c, x);
                listed++;
            }
        } else {
            results_add(&rc->res, "ops", suite, c->id, V_SKIP, "sweep chunk or exhaustive sweep: runs with --exhaustive",
                        0, 0);
            skip++;
        }
    }
    if (fail > listed && !rc->ops_sum.verb_unsupported)
        fprintf(rc->out, "    ... %zu more in %s (the receipt and JUnit list every case)\n", fail - listed, gr->group);
    fprintf(rc->out, "  %-24s %zu passed", gr->group, pass);
    if (fail)
        fprintf(rc->out, ", %zu failed", fail);
    if (skip)
        fprintf(rc->out, ", %zu skipped", skip);
    if (skip && req_beyond_iut(&rc->req, gr->spec_version))
        fprintf(rc->out, " (not implemented: the group arrived in spec %s, the IUT claims %s)", gr->spec_version,
                rc->req.iut_text);
    fputc('\n', rc->out);
}

/* The level's verdict and note from its cases and how the session ended. */
static tally ops_level_judge(run_ctx *rc)
{
    /* which skips are required: spec version, --profile (verdict/requirements.h) */
    req_apply(&rc->req, &rc->res);
    tally t = results_tally(&rc->res, "ops");
    rc->lv_ops = level_from_tally(t);
    if (rc->ops_sum.verb_unsupported) {
        rc->lv_ops = L_NOT_REACHED;
        rc->ops_note = xstrdup("the IUT does not implement the ops verb (exit status 64, P1): every op case is skipped");
    } else if (rc->ops_sum.problem)
        rc->ops_note = xasprintf("%s; the ops process ended: %s", rc->ops_sum.problem, rc->ops_sum.status);
    else if (rc->ops_sum.end_problem) {
        /* P3: the cases keep their verdicts; the level cannot pass
         * (level_from_cases: what verify recomputes) */
        if (rc->lv_ops == L_PASS)
            rc->lv_ops = L_ERROR;
        rc->ops_note = xstrdup(rc->ops_sum.end_problem);
    } else if (t.skipped_required)
        rc->ops_note = xasprintf("%zu required cases were skipped (ops the IUT does not support)", t.skipped_required);
    /* P3/P8: how the session ended is a case of its own (results.h) */
    if (!rc->ops_sum.verb_unsupported) {
        const char *why = rc->ops_sum.end_problem ? rc->ops_sum.end_problem : rc->ops_sum.problem;
        results_add(&rc->res, "protocol", "protocol", OPS_SESSION_CASE, why ? V_ERROR : V_PASS, why, 1,
                    rc->ops_sum.seconds);
    }
    return t;
}

/* Every selected case through one ops process: the session as a whole gets
 * the run time-out plus the time of every sweep (P8: a sweep alone may take
 * longer than a training run). */
static void batch_run(run_ctx *rc, ops_batch *b)
{
    const conform_args *a = rc->a;
    fprintf(rc->out, "level ops: %zu cases in the selected groups, %zu to run%s", b->total, b->n,
            b->skipped ? " (sweep chunks need --exhaustive)" : "");
    if (b->out_of_scope)
        fprintf(rc->out, "; %zu out of scope (groups profile %s does not use)", b->out_of_scope, a->profile);
    fputc('\n', rc->out);
    fflush(rc->out);
    double session = rc_timeout_run(rc);
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->which[i]->op->name, "sweep"))
            session += b->reqs[i].timeout;
    ops_progress prog = {rc->out, 60.0, "ops"};
    ops_engine_run(a->iut, b->reqs, b->n, session, b->res, &rc->ops_sum, &prog);
    rc->ops_ran = 1;
}

/* The ops level (spec §1.4; spec/iut-protocol.md P3-P6, P8; vectors/FORMAT.md
 * §2): every selected case through one `ops` process, in file order. */
void level_ops_run(run_ctx *rc)
{
    double t0 = now_s();
    const conform_args *a = rc->a;
    ops_batch b;
    memset(&b, 0, sizeof b);
    for (size_t g = 0; g < rc->vs.n_groups; g++)
        if (cli_filter_match(a, rc->vs.groups[g].group))
            b.total += rc->vs.groups[g].n_cases;
    if (b.total == 0) {
        rc->lv_ops = L_NOT_RUN;
        rc->ops_note = xstrdup("no op group selected");
        fprintf(rc->out, "level ops: not run (no op group selected)\n");
        return;
    }
    batch_build(&b, rc);
    batch_run(rc, &b);
    size_t r = 0;
    for (size_t g = 0; g < rc->vs.n_groups; g++) {
        const op_group *gr = &rc->vs.groups[g];
        if (!cli_filter_match(a, gr->group))
            continue;
        char suite[160];
        snprintf(suite, sizeof suite, "ops/%s", gr->group);
        if (!req_group_in_scope(&rc->req, gr))
            group_out_of_scope(rc, gr, suite);
        else
            group_results(rc, gr, &b, &r, suite);
    }
    tally t = ops_level_judge(rc);
    if (rc->ops_note)
        fprintf(rc->out, "  note: %s\n", rc->ops_note);
    if (rc->ops_sum.stderr_tail && rc->ops_sum.stderr_tail[0] && rc->lv_ops != L_PASS && rc->a->verbose)
        fprintf(rc->out, "  ops stderr (last 4 KiB):\n%s\n", rc->ops_sum.stderr_tail);
    rc->t_ops = now_s() - t0;
    fprintf(rc->out, "level ops: %s (%zu passed, %zu failed, %zu skipped) in %.1f s\n", level_verdict_name(rc->lv_ops),
            t.passed, t.failed + t.errors, t.skipped, rc->t_ops);
    batch_free(&b);
}
