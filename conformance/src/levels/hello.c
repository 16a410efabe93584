/* hello.c — spec/iut-protocol.md P2 (`hello`), and the IUT's own `info`
 * report, which the receipt records when the IUT has one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/iut_process.h"
#include "core/json_checked.h"
#include "levels/levels.h"
#include "protocol/line_codec.h"
#include "trust/receipt_fields.h"

enum { HELLO_CAP = 64 << 10 };

static int token_ok(const wire_token *t)
{
    for (size_t i = 0; i < t->val_len; i++)
        if ((unsigned char)t->val[i] <= 0x20 || (unsigned char)t->val[i] >= 0x7f)
            return 0;
    return 1;
}

/* P2: exactly one line "protocol=1 name=<token> version=<token> spec=<x.y.z> [key=value ...]", exit 0. */
static char *check_hello(run_ctx *rc, const iut_result *r)
{
    if (!r->exited_ok) {
        if (r->exit_code == 64)
            return xasprintf("hello: the IUT does not implement hello (exit status 64); every IUT MUST (P1, P2)");
        size_t n = strlen(r->err_tail);
        while (n && (r->err_tail[n - 1] == '\n' || r->err_tail[n - 1] == ' '))
            n--;
        return xasprintf("hello: %s (P2: it prints one line and exits 0)%s%.*s", r->status_text,
                         n ? "; stderr: " : "", (int)n, r->err_tail);
    }
    if (r->out_len == 0)
        return xasprintf("hello: printed nothing (P2: exactly one line)");
    const char *nl = memchr(r->out, '\n', r->out_len);
    if (!nl || (size_t)(nl - r->out) + 1 != r->out_len) {
        char *ex = sanitized(r->out, r->out_len, 120);
        char *m = xasprintf("hello: expected exactly one line ending in \\n (P2), got \"%s\"", ex);
        free(ex);
        return m;
    }
    size_t len = (size_t)(nl - r->out);
    rc->hello_line = sanitized(r->out, len, 4096);
    wire_line wl;
    wire_line_init(&wl);
    char why[200];
    if (wire_line_parse(r->out, len, &wl, why, sizeof why) != 0) {
        wire_line_free(&wl);
        return xasprintf("hello: malformed line (P2, P3 syntax): %s: \"%s\"", why, rc->hello_line);
    }
    const wire_token *pr = wire_line_get(&wl, "protocol"), *nm = wire_line_get(&wl, "name"),
                     *ve = wire_line_get(&wl, "version"), *sp = wire_line_get(&wl, "spec");
    char *bad = NULL;
    if (pr != &wl.t[0] || pr->val_len != 1 || pr->val[0] != '1')
        bad = xasprintf("hello: the line must start with protocol=1 (P2): \"%s\"", rc->hello_line);
    else if (!nm || !ve || !sp)
        bad = xasprintf("hello: name=, version= and spec= are required (P2): \"%s\"", rc->hello_line);
    else if (!nm->val_len || !ve->val_len || !token_ok(nm) || !token_ok(ve))
        bad = xasprintf("hello: name and version are non-empty printable ASCII tokens (P2): \"%s\"", rc->hello_line);
    else {
        char *spec = xstrndup(sp->val, sp->val_len);
        if (!jx_is_version(spec))
            bad = xasprintf("hello: spec=%s is not a version x.y.z (P2)", spec);
        free(spec);
    }
    if (!bad) {
        rc->iut_name = xstrndup(nm->val, nm->val_len);
        rc->iut_version = xstrndup(ve->val, ve->val_len);
        rc->iut_spec = xstrndup(sp->val, sp->val_len);
    }
    wire_line_free(&wl);
    return bad;
}

/* Keeps the stderr lines that say "warning" (QEMU's "TCG doesn't support
 * requested feature: ..." among them), once each, for the receipt: the host
 * matrix checks none names a feature the emulated host is meant to have. */
static void keep_warnings(run_ctx *rc, const char *err)
{
    if (!err)
        return;
    const char *p = err;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *line = sanitized(p, n, 512);
        int dup = strstr(line, "warning") == NULL;
        for (size_t i = 0; i < rc->n_emu_warnings && !dup; i++)
            dup = !strcmp(rc->emu_warnings[i], line);
        if (!dup && rc->n_emu_warnings < RF_CAP_EMU_WARNINGS) { /* the receipt's cap */
            rc->emu_warnings = xrealloc(rc->emu_warnings, (rc->n_emu_warnings + 1) * sizeof *rc->emu_warnings);
            rc->emu_warnings[rc->n_emu_warnings++] = line;
        } else
            free(line);
        p += n + (nl ? 1 : 0);
    }
}

/* Not in the protocol: `CMD info`, recorded as key=value lines if it runs. */
static void run_info(run_ctx *rc)
{
    iut_result r;
    char err[256];
    if (iut_run(rc->a->iut, "info", NULL, 0, NULL, rc_timeout_case(rc), 1, HELLO_CAP, NULL, NULL, &r, err,
                sizeof err) != 0) {
        rc->info_status = xasprintf("could not run: %s", err);
        return;
    }
    rc->info_status = xasprintf("%s", r.exited_ok ? "ok" : r.status_text);
    keep_warnings(rc, r.err_tail);
    const char *p = r.out, *end = r.out + r.out_len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *eq = memchr(p, '=', n);
        if (eq && wire_key_ok(p, (size_t)(eq - p)) && rc->n_info < RF_CAP_INFO) {
            rc->info = xrealloc(rc->info, (rc->n_info + 1) * sizeof *rc->info);
            rc->info[rc->n_info].key = xstrndup(p, (size_t)(eq - p));
            rc->info[rc->n_info].val = sanitized(eq + 1, (size_t)(p + n - eq - 1), 1024);
            rc->n_info++;
        }
        p += n + (nl ? 1 : 0);
    }
    iut_result_free(&r);
}

/* P2 */
int hello_run(run_ctx *rc)
{
    double t0 = now_s();
    iut_result r;
    char err[256];
    char *problem = NULL;
    int timed_out = 0;
    if (iut_run(rc->a->iut, "hello", NULL, 0, NULL, rc_timeout_case(rc), 1, HELLO_CAP, NULL, NULL, &r, err,
                sizeof err) != 0)
        problem = xasprintf("hello: could not start the IUT: %s", err);
    else {
        timed_out = r.timed_out;
        problem = check_hello(rc, &r);
        keep_warnings(rc, r.err_tail);
        iut_result_free(&r);
    }
    rc->t_hello = now_s() - t0;
    rc->hello_ok = problem == NULL;
    /* P8: past its deadline the case is an ERROR (the run FAILs all the same, P10) */
    results_add(&rc->res, "protocol", "protocol", "hello", !problem ? V_PASS : timed_out ? V_ERROR : V_FAIL, problem, 1,
                rc->t_hello);
    if (problem) {
        fprintf(rc->out, "hello: %s: %s\n", timed_out ? "ERROR" : "FAIL", problem);
        rc->hello_problem = problem;
    } else {
        fprintf(rc->out, "hello: %s\n", rc->hello_line);
    }
    /* spec §12.1: the run is judged by the lower of the two versions; the
     * header says which, before any case runs */
    req_init(&rc->req, &rc->vs, rc->iut_spec, rc->a->profile, rc->a->exhaustive);
    if (!problem) {
        char line[512];
        req_describe(&rc->req, 1, line, sizeof line);
        fprintf(rc->out, "spec: %s\n", line);
    }
    run_info(rc);
    for (size_t i = 0; i < rc->n_emu_warnings; i++)
        fprintf(rc->out, "iut stderr (recorded in the receipt): %s\n", rc->emu_warnings[i]);
    return problem ? -1 : 0;
}

/* P2: a "key=1" word among hello's words (train_seed=1, train_resume=1). */
int hello_advertises(const char *hello, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = hello; p && (p = strstr(p, word)) != NULL; p++)
        if ((p == hello || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ' || p[n] == '\n'))
            return 1;
    return 0;
}
