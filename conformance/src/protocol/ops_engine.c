/* ops_engine.c — spec/iut-protocol.md P3 (line protocol), P5 (outputs), P6
 * (comparison), P8 (time-outs and caps) for one `ops` process. */
#include "protocol/ops_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/contain.h"
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
    const wire_token *id = &wl.t[0];
    if (id->key_len != 2 || memcmp(id->key, "id", 2) != 0) {
        char *ex = excerpt(line, len);
        set(r, V_FAIL, xasprintf("response does not start with id= (P3): \"%s\"", ex));
        free(ex);
        wire_line_free(&wl);
        return;
    }
    if (id->val_len != strlen(q->id) || memcmp(id->val, q->id, id->val_len) != 0) {
        char *ex = sanitized(id->val, id->val_len, 60);
        set(r, V_FAIL, xasprintf("wrong id: the response says id=%s, expected id=%s (responses answer requests in order, P3)",
                                 ex, q->id));
        free(ex);
        wire_line_free(&wl);
        return;
    }
    const wire_token *e = wire_line_get(&wl, "error");
    if (e) {
        if (e->val_len == 11 && memcmp(e->val, "unsupported", 11) == 0)
            set(r, V_SKIP, xasprintf("the IUT does not support op %s (error=unsupported, P5)", q->op->name));
        else {
            char *ex = sanitized(e->val, e->val_len, 60);
            set(r, V_FAIL, xasprintf("the IUT answered error=%s (P5: any error but unsupported is a FAIL)", ex));
            free(ex);
        }
        wire_line_free(&wl);
        return;
    }
    value got[4];
    memset(got, 0, sizeof got);
    sbuf diff;
    sbuf_init(&diff);
    int failed = 0;
    for (size_t k = 0; k < q->op->n_out && !failed; k++) {
        const op_field *f = &q->op->out[k];
        const wire_token *t = wire_line_get(&wl, f->key);
        if (!t) {
            set(r, V_FAIL, xasprintf("missing output key %s (P3)", f->key));
            failed = 1;
            break;
        }
        if (value_parse(f->type, t->val, t->val_len, 0, &got[k], why, sizeof why) != 0) {
            set(r, V_FAIL, xasprintf("output %s is not %s: %s (P4)", f->key, val_type_describe(f->type), why));
            failed = 1;
            break;
        }
        if (q->want && got[k].n != q->want[k].n) {
            set(r, V_FAIL, xasprintf("output %s has %zu elements, expected %zu (wrong length, P3)", f->key, got[k].n,
                                     q->want[k].n));
            failed = 1;
        }
    }
    if (!failed && q->want) {
        for (size_t k = 0; k < q->op->n_out; k++) {
            /* the numbers describe the first differing key; the text names all */
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
        }
    }
    if (!failed)
        set(r, V_PASS, NULL);
    sbuf_free(&diff);
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
    iut_proc p;
    char err[256];
    if (iut_spawn(&p, cmd, "ops", NULL, 0, 1, NULL, err, sizeof err) != 0) {
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
    double session_deadline = p.started + run_timeout;
    size_t wi = 0, wdone = 0, ans = 0;
    double case_start = p.started;
    int stdin_closed = 0, write_failed = 0;
    char *problem = NULL;   /* set when the remaining cases become ERROR */
    int kill_now = 0;
    if (n == 0) {
        iut_close_stdin(&p);
        stdin_closed = 1;
    }
    double next_progress = prog ? now_s() + prog->every : 0;
    while (ans < n && !problem) {
        if (prog && now_s() >= next_progress) {
            fprintf(prog->out, "  (%s: %zu of %zu answered, waiting for %s)\n", prog->label, ans, n, reqs[ans].id);
            fflush(prog->out);
            next_progress = now_s() + prog->every;
        }
        const char *wdata = wi < n && !write_failed ? reqs[wi].line : NULL;
        size_t wlen = wdata ? reqs[wi].line_len : 0;
        double deadline = case_start + reqs[ans].timeout;
        if (deadline > session_deadline)
            deadline = session_deadline;
        int ev = iut_pump(&p, wdata, wlen, &wdone, deadline, 0.25);
        if (wdata && wdone == wlen) {
            wi++;
            wdone = 0;
            if (wi == n && !stdin_closed) {
                iut_close_stdin(&p); /* P3: end of input */
                stdin_closed = 1;
            }
        }
        if (ev & IUT_EV_WRITE_ERR)
            write_failed = 1;
        for (;;) {
            const char *line;
            size_t len;
            int got = iut_next_line(&p, OPS_LINE_CAP, &line, &len);
            if (got == 0)
                break;
            if (got < 0) {
                set(&res[ans], V_FAIL,
                    xasprintf("response line longer than the 4 MiB cap (P3, P8); the IUT was killed"));
                res[ans].seconds = now_s() - case_start;
                problem = xasprintf("not answered: the IUT was killed after an over-long response to %s", reqs[ans].id);
                ans++;
                kill_now = 1;
                break;
            }
            ops_judge(&reqs[ans], line, len, &res[ans]);
            double now = now_s();
            res[ans].seconds = now - case_start;
            case_start = now;
            ans++;
            if (ans == n)
                break;
        }
        if (problem || ans == n)
            break;
        if (ev & IUT_EV_DEADLINE) {
            if (ev & IUT_EV_INTERRUPTED)
                set(&res[ans], V_ERROR, xasprintf("not answered: the runner was interrupted (signal %d); the IUT was killed",
                                                  contain_interrupted()));
            else if (now_s() >= session_deadline)
                set(&res[ans], V_ERROR, xasprintf("not answered within the session's %.1f s (time-out, P8); the IUT was killed",
                                                  run_timeout));
            else
                set(&res[ans], V_ERROR, xasprintf("no response within %.1f s (time-out, P8); the IUT was killed",
                                                  reqs[ans].timeout));
            res[ans].seconds = now_s() - case_start;
            problem = xasprintf("not answered: the IUT was killed after the %s on %s",
                                (ev & IUT_EV_INTERRUPTED) ? "interruption" : "time-out", reqs[ans].id);
            ans++;
            kill_now = 1;
            break;
        }
        if ((ev & IUT_EV_OUT_EOF) || (p.out_eof && iut_pending(&p) == 0) || (ev & IUT_EV_EXITED)) {
            if (!p.out_eof && !(ev & IUT_EV_OUT_EOF))
                continue; /* exited: read what it wrote first */
            /* stdout closed with cases outstanding */
            iut_wait(&p, now_s() + 2.0);
            int code = iut_exit_code(&p);
            if (ans == 0 && code == 64) {
                sum->verb_unsupported = 1;
                problem = xstrdup("the IUT does not implement the ops verb (exit status 64, P1)");
            } else {
                char st[128];
                iut_status_text(&p, st, sizeof st);
                size_t rest = iut_pending(&p);
                if (rest) {
                    char *ex = sanitized(p.out.p + p.out_off, rest, 80);
                    problem = xasprintf("not answered: stdout closed (%s) after %zu responses; unterminated last line \"%s\"",
                                        st, ans, ex);
                    free(ex);
                } else
                    problem = xasprintf("not answered: stdout closed (%s) after %zu responses (P3)", st, ans);
            }
            break;
        }
    }
    if (kill_now)
        iut_kill(&p);
    for (size_t i = ans; i < n; i++)
        set(&res[i], sum->verb_unsupported ? V_SKIP : V_ERROR, xstrdup(problem ? problem : "not answered"));
    if (!stdin_closed)
        iut_close_stdin(&p);
    if (!problem && !p.reaped) {
        /* every request answered: the end must be clean too (P3) */
        double end = now_s() + (n ? reqs[n - 1].timeout : 60.0);
        sum->end_problem = check_end(&p, end < session_deadline ? end : session_deadline);
    } else if (!p.reaped)
        iut_wait(&p, now_s() + 5.0);
    iut_status_text(&p, sum->status, sizeof sum->status);
    if (kill_now)
        snprintf(sum->status, sizeof sum->status, "killed by the runner");
    sum->stderr_tail = iut_stderr_tail(&p);
    sum->problem = problem;
    sum->answered = ans;
    sum->seconds = now_s() - t0;
    iut_release(&p);
}
