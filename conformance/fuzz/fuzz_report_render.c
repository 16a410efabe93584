/* fuzz_report_render — the report's sections (report/html/facts.c,
 * sec_*.c, svg.c) on any JSON as a receipt that has passed the gate: a
 * newer runner's receipt, an older one's, or one whose unchecked fields
 * were edited. Verification is what keeps lies out of the page; this
 * harness holds the other promise: whatever the fields hold, absent or
 * mistyped, the page is written without a crash, with no markup of the
 * receipt's own (no script, img, iframe, object, link, style element, no
 * javascript: URL), balanced tables and details, within a bounded size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/html/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count(const char *hay, const char *needle)
{
    size_t k = 0, n = strlen(needle);
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += n)
        k++;
    return k;
}

static int has_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && (hay[i] | 0x20) == (needle[i] | 0x20))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *j = cJSON_ParseWithLength((const char *)data, size);
    if (!j)
        return 0;
    mhost h;
    memset(&h, 0, sizeof h);
    h.name = (char *)"h";
    h.isa = (char *)"x86_64";
    h.endianness = (char *)"little";
    h.stands_for = (char *)"a fuzzed receipt";
    h.build = (char *)"b";
    h.expected = (char *)"pass";
    mreceipt r;
    memset(&r, 0, sizeof r);
    r.host = (char *)"h";
    r.verdict = r.lv_ops = r.lv_train = (char *)"FAIL";
    r.first_diff = 1;
    r.seconds = 1;
    rp_receipt x;
    memset(&x, 0, sizeof x);
    x.file = strdup("fuzzed.json");
    /* as the gate does (receipt_gate.c): the page reads only the typed
     * receipt, filled once; a document whose fields are not of the table's
     * kinds is refused there and never rendered */
    problems pr;
    problems_init(&pr);
    const int refused = receipt_record_take(&x.rec, x.file, j, &pr) != 0;
    problems_free(&pr);
    if (refused) {
        rp_receipt_free(&x);
        return 0;
    }
    x.receipt = &x.rec.top;
    rp_facts(&x, &r);
    mrow row;
    memset(&row, 0, sizeof row);
    row.h = &h;
    row.r = &r;
    row.st = ST_FAIL;
    sbuf_init(&row.why);
    sbuf_init(&row.host_bad);
    rp_page p;
    memset(&p, 0, sizeof p);
    p.hs = &h;
    p.nh = p.n_listed = 1;
    p.rs = &r;
    p.rx = &x;
    p.nr = 1;
    p.rows = &row;
    snprintf(p.summary, sizeof p.summary, "matrix: FAIL");
    hw w;
    hw_init(&w);
    rp_render(&w, &p);
    const char *o = w.out.p;
    if (strlen(o) != w.out.len || w.out.len > (8u << 20))
        abort();
    static const char *const banned[] = {"<script", "<img", "<iframe", "<object", "<embed", "<link", "javascript:",
                                         "<base", "<form", "<meta http-equiv=\"refresh"};
    for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
        if (has_ci(o, banned[i]))
            abort();
    if (count(o, "<style") != 1 || count(o, "<table") != count(o, "</table>") ||
        count(o, "<details") != count(o, "</details>") || count(o, "<svg") != count(o, "</svg>") ||
        count(o, "<tr") != count(o, "</tr>"))
        abort();
    hw_free(&w);
    rp_receipt_free(&x);
    return 0;
}
