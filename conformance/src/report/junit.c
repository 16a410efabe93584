/* junit.c — the run as JUnit XML for CI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "report/junit.h"

/* XML 1.0 §2.2 Char: what a document may contain at all, escaped or not. */
static int xml_char_ok(uint32_t c)
{
    return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) ||
           (c >= 0x10000 && c <= 0x10ffff);
}

/* Whatever bytes an IUT sent, the output is well-formed XML: markup
 * characters become entities; code points XML forbids become text escapes
 * (controls \xNN, U+FFFE and U+FFFF \u{FFFE}), and so do the bytes of
 * invalid UTF-8 (\xNN). */
void xml_escape(sbuf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n) {
        uint32_t c;
        size_t len = utf8_decode(p, n, &c);
        if (!len) {
            sbuf_printf(out, "\\x%02x", *p);
            p++, n--;
            continue;
        }
        const char *entity = markup_entity(c, "&apos;");
        if (entity)
            sbuf_adds(out, entity);
        else if (xml_char_ok(c))
            sbuf_add(out, p, len);
        else if (c < 0x20)
            sbuf_printf(out, "\\x%02x", (unsigned)c);
        else
            sbuf_printf(out, "\\u{%04X}", (unsigned)c);
        p += len, n -= len;
    }
}

/* JUnit XML for CI: one testsuite per op group / profile, one testcase per
 * case; FAIL is <failure>, ERROR <error>, SKIP <skipped>. */
/* One case: PASS is an empty testcase, FAIL <failure>, ERROR <error>, SKIP
 * <skipped>, each with the reason. */
static void junit_case(sbuf *x, const case_result *c)
{
    sbuf_adds(x, "    <testcase classname=\"");
    xml_escape(x, c->suite);
    sbuf_adds(x, "\" name=\"");
    xml_escape(x, c->id);
    sbuf_printf(x, "\" time=\"%.3f\"", c->seconds);
    if (c->v == V_PASS) {
        sbuf_adds(x, "/>\n");
        return;
    }
    const char *tag = c->v == V_FAIL ? "failure" : c->v == V_ERROR ? "error" : "skipped";
    sbuf_printf(x, ">\n      <%s message=\"", tag);
    xml_escape(x, c->reason ? c->reason : "");
    sbuf_adds(x, "\"");
    if (c->v == V_SKIP) {
        sbuf_adds(x, "/>\n");
    } else {
        sbuf_adds(x, ">");
        xml_escape(x, c->reason ? c->reason : "");
        sbuf_printf(x, "</%s>\n", tag);
    }
    sbuf_adds(x, "    </testcase>\n");
}

/* The testsuite of the cases of suite s, from the first one at index i. */
static void junit_suite(sbuf *x, const results *res, size_t i, const char *s)
{
    size_t tests = 0, fail = 0, err = 0, skip = 0;
    double t = 0;
    for (size_t j = i; j < res->n; j++) {
        const case_result *c = &res->c[j];
        if (strcmp(c->suite, s) != 0)
            continue;
        tests++;
        fail += c->v == V_FAIL;
        err += c->v == V_ERROR;
        skip += c->v == V_SKIP;
        t += c->seconds;
    }
    sbuf_adds(x, "  <testsuite name=\"");
    xml_escape(x, s);
    sbuf_printf(x, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", tests, fail, err,
                skip, t);
    for (size_t j = i; j < res->n; j++)
        if (!strcmp(res->c[j].suite, s))
            junit_case(x, &res->c[j]);
    sbuf_adds(x, "  </testsuite>\n");
}

int junit_write(const run_ctx *rc, const char *path)
{
    sbuf x;
    sbuf_init(&x);
    tally all = results_tally(&rc->res, NULL);
    double total = now_s() - rc->t_start;
    sbuf_printf(&x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sbuf_printf(&x, "<testsuites name=\"isotrain-conform\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
                rc->res.n, all.failed, all.errors, all.skipped, total);
    junit_verdict_suite(&x, rc);
    /* suites in order of first appearance */
    const char **seen = xcalloc(rc->res.n + 1, sizeof *seen);
    size_t n_seen = 0;
    for (size_t i = 0; i < rc->res.n; i++) {
        const char *s = rc->res.c[i].suite;
        int dup = 0;
        for (size_t k = 0; k < n_seen && !dup; k++)
            dup = !strcmp(seen[k], s);
        if (!dup) {
            seen[n_seen++] = s;
            junit_suite(&x, &rc->res, i, s);
        }
    }
    free(seen);
    sbuf_adds(&x, "</testsuites>\n");
    char err[512];
    int r = write_file(path, x.p, x.len, err, sizeof err);
    if (r != 0)
        fprintf(stderr, "isotrain-conform: junit: %s\n", err);
    sbuf_free(&x);
    return r;
}
