/* ops_engine.c — spec/iut-protocol.md P3 (line protocol), P5 (outputs), P6
 * (comparison), P8 (time-outs and caps) for one `ops` process. */
#include "protocol/ops_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/iut_keeper.h"
#include "protocol/iut_process.h"
#include "core/ulp.h"
#include "core/util.h"

/* P3: a request line, id= first and op= second. */
void ops_req_set_line(ops_req *r, const char *id, const op_def *op, const char *kv_text)
{
    sbuf b;
    sbuf_init(&b);
    sbuf_printf(&b, "id=%s op=%s", id, op->name);
    if (kv_text && *kv_text) {
        sbuf_addc(&b, ' ');
        sbuf_adds(&b, kv_text);
    }
    sbuf_addc(&b, '\n');
    r->line_len = b.len;
    r->line = sbuf_take(&b);
    r->id = id;
    r->op = op;
}

void ops_res_free(ops_res *r)
{
    free(r->reason);
    r->reason = NULL;
}

void ops_summary_free(ops_summary *s)
{
    free(s->stderr_tail);
    free(s->problem);
    free(s->end_problem);
    s->stderr_tail = s->problem = s->end_problem = NULL;
}

static void set(ops_res *r, verdict v, char *reason)
{
    r->v = v;
    free(r->reason);
    r->reason = reason;
}

/* An excerpt of an IUT line for a reason text. */
static char *excerpt(const char *line, size_t len)
{
    return sanitized(line, len, 100);
}

/* P6 for one output; fills the diff fields at the first differing element. */
static int compare_output(const op_field *f, size_t k, const value *got, const value *want, ops_res *r, sbuf *why)
{
    if (f->type == VT_SHA256 || f->type == VT_NAME) {
        if (strcmp(got->text, want->text) == 0)
            return 0;
        sbuf_printf(why, "%s: got %s expected %s", f->key, got->text, want->text);
        return -1;
    }
    size_t first = (size_t)-1, count = 0;
    ulp_hist h;
    ulp_hist_init(&h);
    for (size_t i = 0; i < want->n; i++) {
        int same = f->type == VT_F32 ? f32_same((uint32_t)got->v[i], (uint32_t)want->v[i]) : got->v[i] == want->v[i];
        if (same)
            continue;
        if (first == (size_t)-1)
            first = i;
        count++;
        if (f->type == VT_F32)
            ulp_hist_add(&h, (uint32_t)got->v[i], (uint32_t)want->v[i]);
    }
    if (!count)
        return 0;
    if (r->has_diff) { /* an earlier key differs already: it is the one described */
        sbuf_printf(why, "%s: %zu of %zu elements differ", f->key, count, want->n);
        return -1;
    }
    r->has_diff = 1;
    r->diff_key = k;
    r->diff_index = first;
    r->got = got->v[first];
    r->want = want->v[first];
    r->diff_count = count;
    if (f->type == VT_F32) {
        char g[48], w[48];
        f32_describe((uint32_t)r->got, g, sizeof g);
        f32_describe((uint32_t)r->want, w, sizeof w);
        r->diff_ulp = ulp_distance((uint32_t)r->got, (uint32_t)r->want);
        sbuf_printf(why, "%s[%zu]: got %s expected %s", f->key, first, g, w);
        if (r->diff_ulp != UINT64_MAX && !(((uint32_t)r->got ^ (uint32_t)r->want) >> 31))
            sbuf_printf(why, ", %llu ULP", (unsigned long long)r->diff_ulp);
        else
            sbuf_adds(why, ", sign or NaN class differs");
        if (want->n > 1)
            sbuf_printf(why, "; %zu of %zu elements differ, max %llu ULP", count, want->n,
                        (unsigned long long)h.max_ulp);
    } else {
        sbuf_printf(why, "%s[%zu]: got %llu (0x%llx) expected %llu (0x%llx)", f->key, first,
                    (unsigned long long)r->got, (unsigned long long)r->got, (unsigned long long)r->want,
                    (unsigned long long)r->want);
        if (want->n > 1)
            sbuf_printf(why, "; %zu of %zu elements differ", count, want->n);
    }
    return -1;
}

/* P3, P5: the line's id echoes the request's and it carries no error=;
 * otherwise the verdict is set and 1 returned. */
static int judge_head(const ops_req *q, const wire_line *wl, const char *line, size_t len, ops_res *r)
{
    const wire_token *id = &wl->t[0];
    if (id->key_len != 2 || memcmp(id->key, "id", 2) != 0) {
        char *ex = excerpt(line, len);
        set(r, V_FAIL, xasprintf("response does not start with id= (P3): \"%s\"", ex));
        free(ex);
        return 1;
    }
    if (id->val_len != strlen(q->id) || memcmp(id->val, q->id, id->val_len) != 0) {
        char *ex = sanitized(id->val, id->val_len, 60);
        set(r, V_FAIL, xasprintf("wrong id: the response says id=%s, expected id=%s (responses answer requests in order, P3)",
                                 ex, q->id));
        free(ex);
        return 1;
    }
    const wire_token *e = wire_line_get(wl, "error");
    if (!e)
        return 0;
    if (e->val_len == 11 && memcmp(e->val, "unsupported", 11) == 0)
        set(r, V_SKIP, xasprintf("the IUT does not support op %s (error=unsupported, P5)", q->op->name));
    else {
        char *ex = sanitized(e->val, e->val_len, 60);
        set(r, V_FAIL, xasprintf("the IUT answered error=%s (P5: any error but unsupported is a FAIL)", ex));
        free(ex);
    }
    return 1;
}

/* P3, P4: every output key present, well-formed and of the expected length;
 * otherwise the verdict is set and -1 returned. */
static int parse_outputs(const ops_req *q, const wire_line *wl, value *got, ops_res *r)
{
    char why[256];
    for (size_t k = 0; k < q->op->n_out; k++) {
        const op_field *f = &q->op->out[k];
        const wire_token *t = wire_line_get(wl, f->key);
        if (!t) {
            set(r, V_FAIL, xasprintf("missing output key %s (P3)", f->key));
            return -1;
        }
        if (value_parse(f->type, t->val, t->val_len, 0, &got[k], why, sizeof why) != 0) {
            set(r, V_FAIL, xasprintf("output %s is not %s: %s (P4)", f->key, val_type_describe(f->type), why));
            return -1;
        }
        if (q->want && got[k].n != q->want[k].n) {
            set(r, V_FAIL, xasprintf("output %s has %zu elements, expected %zu (wrong length, P3)", f->key, got[k].n,
                                     q->want[k].n));
            return -1;
        }
    }
    return 0;
}

/* P6: every output against the expected one; the text names every
 * differing key, the numbers describe the first. */
static void compare_outputs(const ops_req *q, const value *got, ops_res *r)
{
    sbuf diff;
    sbuf_init(&diff);
    int failed = 0;
    for (size_t k = 0; k < q->op->n_out; k++) {
        if (compare_output(&q->op->out[k], k, &got[k], &q->want[k], r, &diff) != 0) {
            failed = 1;
            if (k + 1 < q->op->n_out)
                sbuf_adds(&diff, "; ");
        }
    }
    if (failed) {
        while (diff.len && (diff.p[diff.len - 1] == ' ' || diff.p[diff.len - 1] == ';'))
            diff.p[--diff.len] = '\0';
        set(r, V_FAIL, sbuf_take(&diff));
    } else
        set(r, V_PASS, NULL);
    sbuf_free(&diff);
}

/* P3 + P5 + P6: judges one response line for its request. */
void ops_judge(const ops_req *q, const char *line, size_t len, ops_res *r)
{
    wire_line wl;
    wire_line_init(&wl);
    char why[256];
    if (wire_line_parse(line, len, &wl, why, sizeof why) != 0) {
        char *ex = excerpt(line, len);
        set(r, V_FAIL, xasprintf("malformed response line (P3): %s: \"%s\"", why, ex));
        free(ex);
        wire_line_free(&wl);
        return;
    }
    if (judge_head(q, &wl, line, len, r)) {
        wire_line_free(&wl);
        return;
    }
    value got[4];
    memset(got, 0, sizeof got);
    if (parse_outputs(q, &wl, got, r) == 0) {
        if (q->want)
            compare_outputs(q, got, r);
        else
            set(r, V_PASS, NULL);
    }
    for (size_t k = 0; k < 4; k++)
        value_free(&got[k]);
    wire_line_free(&wl);
}

/* P3: after its last response the process prints nothing more and exits 0
 * at end of input, within the deadline. Returns the problem, or NULL. */
static char *check_end(iut_proc *p, double deadline)
{
    unsigned long long before = p->out_total - iut_pending(p);
    int killed = iut_wait(p, deadline) != 0;
    /* the first bytes after the last response, as far as they are still buffered */
    char first[81] = "";
    size_t nfirst = iut_pending(p) < 80 ? iut_pending(p) : 80;
    if (nfirst)
        memcpy(first, p->out.p + p->out.len - iut_pending(p), nfirst);
    unsigned long long extra = p->out_total - before;
    char st[128];
    iut_status_text(p, st, sizeof st);
    if (contain_interrupted())
        return xasprintf("the runner was interrupted (signal %d) before the ops process exited", contain_interrupted());
    if (killed)
        return xasprintf("the ops process did not exit after its last response and the end of input (P3); killed at the deadline");
    if (extra) {
        char *ex = sanitized(first, nfirst, 80);
        char *m = xasprintf("the ops process printed %llu byte%s after its last response (P3: one line per request, "
                            "nothing more): \"%s\"",
                            extra, extra == 1 ? "" : "s", ex);
        free(ex);
        return m;
    }
    if (!iut_exited_ok(p))
        return xasprintf("the ops process answered every request, then ended with %s (P3: it exits 0 at end of input)", st);
    return NULL;
}

/* One ops session's state while requests go out and answers come in. */
typedef struct {
    iut_proc p;
    ops_req *reqs;
    ops_res *res;
    size_t n, wi, wdone, ans;
    double case_start, session_deadline, run_timeout;
    int stdin_closed, write_failed, kill_now;
    char *problem; /* set when the remaining cases become ERROR */
} ops_session;

/* The answers buffered so far, each judged for its request. */
static void read_answers(ops_session *ss)
{
    for (;;) {
        const char *line;
        size_t len;
        int got = iut_next_line(&ss->p, OPS_LINE_CAP, &line, &len);
        if (got == 0)
            return;
        ops_res *r = &ss->res[ss->ans];
        if (got < 0) {
            set(r, V_FAIL, xasprintf("response line longer than the 4 MiB cap (P3, P8); the IUT was killed"));
            r->seconds = now_s() - ss->case_start;
            ss->problem = xasprintf("not answered: the IUT was killed after an over-long response to %s",
                                    ss->reqs[ss->ans].id);
            ss->ans++;
            ss->kill_now = 1;
            return;
        }
        ops_judge(&ss->reqs[ss->ans], line, len, r);
        double now = now_s();
        r->seconds = now - ss->case_start;
        ss->case_start = now;
        if (++ss->ans == ss->n)
            return;
    }
}

/* P8: the case's or the session's deadline passed (or the runner was
 * interrupted): the case is ERROR, the IUT killed. */
static void deadline_passed(ops_session *ss, int ev)
{
    ops_res *r = &ss->res[ss->ans];
    if (ev & IUT_EV_INTERRUPTED)
        set(r, V_ERROR, xasprintf("not answered: the runner was interrupted (signal %d); the IUT was killed",
                                  contain_interrupted()));
    else if (now_s() >= ss->session_deadline)
        set(r, V_ERROR, xasprintf("not answered within the session's %.1f s (time-out, P8); the IUT was killed "
                                  "(a slow IUT needs a longer one: --timeout-run S or --slowdown F)",
                                  ss->run_timeout));
    else
        set(r, V_ERROR, xasprintf("no response within %.1f s (time-out, P8); the IUT was killed "
                                  "(a slow IUT needs a longer one: --timeout-case S or --slowdown F)",
                                  ss->reqs[ss->ans].timeout));
    r->seconds = now_s() - ss->case_start;
    ss->problem = xasprintf("not answered: the IUT was killed after the %s on %s",
                            (ev & IUT_EV_INTERRUPTED) ? "interruption" : "time-out", ss->reqs[ss->ans].id);
    ss->ans++;
    ss->kill_now = 1;
}

/* stdout closed with cases outstanding: exit 64 before any answer is the
 * verb unsupported (P1), anything else leaves them unanswered. */
static void stdout_closed(ops_session *ss, ops_summary *sum)
{
    iut_wait(&ss->p, now_s() + 2.0);
    int code = iut_exit_code(&ss->p);
    if (ss->ans == 0 && code == 64) {
        sum->verb_unsupported = 1;
        ss->problem = xstrdup("the IUT does not implement the ops verb (exit status 64, P1)");
        return;
    }
    char st[128];
    iut_status_text(&ss->p, st, sizeof st);
    size_t rest = iut_pending(&ss->p);
    if (rest) {
        char *ex = sanitized(ss->p.out.p + ss->p.out_off, rest, 80);
        ss->problem = xasprintf("not answered: stdout closed (%s) after %zu responses; unterminated last line \"%s\"",
                                st, ss->ans, ex);
        free(ex);
    } else
        ss->problem = xasprintf("not answered: stdout closed (%s) after %zu responses (P3)", st, ss->ans);
}

/* One turn: write what is pending, read what arrived; 0 to go on, 1 when
 * the exchange is over. */
static int exchange_turn(ops_session *ss, ops_summary *sum)
{
    const char *wdata = ss->wi < ss->n && !ss->write_failed ? ss->reqs[ss->wi].line : NULL;
    size_t wlen = wdata ? ss->reqs[ss->wi].line_len : 0;
    double deadline = ss->case_start + ss->reqs[ss->ans].timeout;
    if (deadline > ss->session_deadline)
        deadline = ss->session_deadline;
    int ev = iut_pump(&ss->p, wdata, wlen, &ss->wdone, deadline, 0.25);
    if (wdata && ss->wdone == wlen) {
        ss->wi++;
        ss->wdone = 0;
        if (ss->wi == ss->n && !ss->stdin_closed) {
            iut_close_stdin(&ss->p); /* P3: end of input */
            ss->stdin_closed = 1;
        }
    }
    if (ev & IUT_EV_WRITE_ERR)
        ss->write_failed = 1;
    read_answers(ss);
    if (ss->problem || ss->ans == ss->n)
        return 1;
    if (ev & IUT_EV_DEADLINE) {
        deadline_passed(ss, ev);
        return 1;
    }
    if ((ev & IUT_EV_OUT_EOF) || (ss->p.out_eof && iut_pending(&ss->p) == 0) || (ev & IUT_EV_EXITED)) {
        if (!ss->p.out_eof && !(ev & IUT_EV_OUT_EOF))
            return 0; /* exited: read what it wrote first */
        stdout_closed(ss, sum);
        return 1;
    }
    return 0;
}

/* After the exchange: the unanswered cases, the end of the process (P3: a
 * clean one when every request was answered), the summary. */
static void session_end(ops_session *ss, ops_summary *sum, double t0)
{
    iut_proc *p = &ss->p;
    if (ss->kill_now)
        iut_kill(p);
    for (size_t i = ss->ans; i < ss->n; i++)
        set(&ss->res[i], sum->verb_unsupported ? V_SKIP : V_ERROR, xstrdup(ss->problem ? ss->problem : "not answered"));
    if (!ss->stdin_closed)
        iut_close_stdin(p);
    if (!ss->problem && !p->reaped) {
        double end = now_s() + (ss->n ? ss->reqs[ss->n - 1].timeout : 60.0);
        sum->end_problem = check_end(p, end < ss->session_deadline ? end : ss->session_deadline);
    } else if (!p->reaped)
        iut_wait(p, now_s() + 5.0);
    iut_status_text(p, sum->status, sizeof sum->status);
    if (ss->kill_now)
        snprintf(sum->status, sizeof sum->status, "killed by the runner");
    sum->stderr_tail = iut_stderr_tail(p);
    sum->problem = ss->problem;
    sum->answered = ss->ans;
    sum->seconds = now_s() - t0;
    iut_release(p);
}

/* P3, P8: the whole exchange. Deadlines are absolute: case i must be
 * answered within its timeout of the moment the answer to case i-1 arrived
 * (the process start for the first), and the whole session within
 * run_timeout of the start; reading or writing in between extends nothing. */
void ops_engine_run(const char *cmd, ops_req *reqs, size_t n, double run_timeout, ops_res *res, ops_summary *sum,
                    const ops_progress *prog)
{
    memset(sum, 0, sizeof *sum);
    for (size_t i = 0; i < n; i++)
        memset(&res[i], 0, sizeof res[i]);
    double t0 = now_s();
    ops_session ss;
    memset(&ss, 0, sizeof ss);
    char err[256];
    if (iut_spawn(&ss.p, cmd, "ops", NULL, 0, 1, NULL, err, sizeof err) != 0) {
        sum->problem = xasprintf("could not start the IUT: %s", err);
        for (size_t i = 0; i < n; i++)
            set(&res[i], V_ERROR, xasprintf("not answered: %s", sum->problem));
        snprintf(sum->status, sizeof sum->status, "not started");
        sum->stderr_tail = xstrdup("");
        return;
    }
    sum->started = 1;
    if (run_timeout <= 0) {
        run_timeout = 0;
        for (size_t i = 0; i < n; i++)
            run_timeout += reqs[i].timeout;
    }
    ss.reqs = reqs, ss.res = res, ss.n = n, ss.run_timeout = run_timeout;
    ss.session_deadline = ss.p.started + run_timeout;
    ss.case_start = ss.p.started;
    if (n == 0) {
        iut_close_stdin(&ss.p);
        ss.stdin_closed = 1;
    }
    double next_progress = prog ? now_s() + prog->every : 0;
    while (ss.ans < n && !ss.problem) {
        if (prog && now_s() >= next_progress) {
            fprintf(prog->out, "  (%s: %zu of %zu answered, waiting for %s)\n", prog->label, ss.ans, n,
                    reqs[ss.ans].id);
            fflush(prog->out);
            next_progress = now_s() + prog->every;
        }
        if (exchange_turn(&ss, sum))
            break;
    }
    session_end(&ss, sum, t0);
}
