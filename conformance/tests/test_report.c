/* report: `isotrain-conform report` and its HTML writer (issue 22).
 *
 * The escaper (report/html/html_writer.c) byte by byte: the five HTML
 * specials, invalid UTF-8, controls, bidirectional overrides, the cap that
 * never splits a character; and a property over random bytes (no markup
 * character survives, the output is valid UTF-8). Then the command on full
 * fixture receipts: the matrix's words for each host, byte-identical pages
 * for the same inputs, refused receipts listed with their reason and never
 * as results, no receipts, the divergence CSV; and a hostile receipt whose
 * IUT-controlled fields hold script tags, </table>, U+202E, invalid UTF-8
 * and 10 MB strings, which must come out as inert, bounded text. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "core/util.h"
#include "report/html/html_writer.h"

/* ---- the escaper ----------------------------------------------------------- */

static char *esc(const char *s, size_t len, size_t cap, int ctx, size_t *took)
{
    sbuf b;
    sbuf_init(&b);
    size_t t = html_escape(&b, s, len, cap, ctx);
    if (took)
        *took = t;
    if (!b.p)
        sbuf_adds(&b, "");
    return sbuf_take(&b);
}

#define ESC_EQ(in, ctx, want)                                                                   \
    do {                                                                                        \
        char *got_ = esc((in), sizeof(in) - 1, (size_t)-1, (ctx), NULL);                        \
        cr_assert_str_eq(got_, (want), "escaping %s", #in);                                     \
        free(got_);                                                                             \
    } while (0)

Test(html_escape, the_five_specials)
{
    ESC_EQ("<script>alert(\"x\" & 'y')</script>", HE_TEXT,
           "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
    ESC_EQ("</table><img src=x onerror=alert(1)>", HE_ATTR,
           "&lt;/table&gt;&lt;img src=x onerror=alert(1)&gt;");
    ESC_EQ("&amp;", HE_TEXT, "&amp;amp;");
}

Test(html_escape, invalid_utf8_becomes_replacement_characters)
{
    ESC_EQ("a\xff" "b", HE_TEXT, "a\xef\xbf\xbd" "b");
    ESC_EQ("\xc0\xaf", HE_TEXT, "\xef\xbf\xbd\xef\xbf\xbd");             /* overlong '/' */
    ESC_EQ("\xed\xa0\x80", HE_TEXT, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* a surrogate */
    ESC_EQ("\xf4\x90\x80\x80", HE_TEXT, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* > U+10FFFF */
    ESC_EQ("\xe2\x82", HE_TEXT, "\xef\xbf\xbd\xef\xbf\xbd");             /* truncated */
    ESC_EQ("\xe0\x80\xbc", HE_TEXT, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* overlong '<' */
}

Test(html_escape, valid_utf8_passes)
{
    ESC_EQ("caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xe6\xbc\xa2", HE_TEXT,
           "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xe6\xbc\xa2");
}

Test(html_escape, controls_and_bidi_are_shown_by_name)
{
    ESC_EQ("abc\xe2\x80\xae" "fed", HE_TEXT, "abc\xe2\x9f\xa8U+202E\xe2\x9f\xa9" "fed"); /* RLO */
    ESC_EQ("\xe2\x81\xa6x\xe2\x81\xa9", HE_TEXT,
           "\xe2\x9f\xa8U+2066\xe2\x9f\xa9x\xe2\x9f\xa8U+2069\xe2\x9f\xa9"); /* LRI ... PDI */
    ESC_EQ("a\xe2\x80\x8b" "b\xef\xbb\xbf", HE_TEXT,
           "a\xe2\x9f\xa8U+200B\xe2\x9f\xa9" "b\xe2\x9f\xa8U+FEFF\xe2\x9f\xa9");
    ESC_EQ("\x1b[31mred", HE_TEXT, "\xe2\x9f\xa8U+001B\xe2\x9f\xa9[31mred");
    ESC_EQ("\xc2\x85", HE_TEXT, "\xe2\x9f\xa8U+0085\xe2\x9f\xa9"); /* NEL, a C1 control */
    ESC_EQ("\xe2\x80\xa8", HE_TEXT, "\xe2\x9f\xa8U+2028\xe2\x9f\xa9");
    /* newline and tab: kept in text, named in an attribute */
    ESC_EQ("a\nb\tc\r", HE_TEXT, "a\nb\tc\xe2\x9f\xa8U+000D\xe2\x9f\xa9");
    ESC_EQ("a\nb", HE_ATTR, "a\xe2\x9f\xa8U+000A\xe2\x9f\xa9" "b");
    char nul[] = {'a', 0, 'b'};
    char *g = esc(nul, 3, (size_t)-1, HE_TEXT, NULL);
    cr_assert_str_eq(g, "a\xe2\x9f\xa8U+0000\xe2\x9f\xa9" "b");
    free(g);
}

Test(html_escape, the_cap_never_splits_a_character)
{
    size_t took;
    char *g = esc("a\xc3\xa9" "b", 4, 2, HE_TEXT, &took);
    cr_assert_eq(took, 1);
    cr_assert_str_eq(g, "a");
    free(g);
    g = esc("a\xc3\xa9" "b", 4, 3, HE_TEXT, &took);
    cr_assert_eq(took, 3);
    cr_assert_str_eq(g, "a\xc3\xa9");
    free(g);
}

Test(html_writer, a_cut_string_says_how_much_is_missing)
{
    hw w;
    hw_init(&w);
    hw_text_cap(&w, "<0123456789>", 5);
    cr_assert_str_eq(w.out.p, "&lt;0123<span class=\"cut\">\xe2\x80\xa6 7 more bytes not shown</span>");
    cr_assert_eq(w.cut, 1);
    hw_free(&w);
    hw_init(&w);
    hw_attr(&w, "\"onmouseover=x", 4);
    cr_assert_str_eq(w.out.p, "&quot;onm\xe2\x80\xa6");
    hw_free(&w);
}

Test(html_writer, printf_text_is_escaped_and_numbers_are_markup)
{
    hw w;
    hw_init(&w);
    HW(&w, "<p title=\"");
    HW_N(&w, "%d", 42);
    HW(&w, "\">");
    HW_F(&w, "%s and %.2f", "<b>", 1.5);
    HW(&w, "</p>");
    cr_assert_str_eq(w.out.p, "<p title=\"42\">&lt;b&gt; and 1.50</p>");
    hw_free(&w);
}

/* HW_N is for numbers only: a string conversion is a programming error
 * every run reaches, and it stops the program rather than writing markup. */
Test(html_writer, numeric_markup_refuses_a_string, .signal = SIGABRT)
{
    hw w;
    hw_init(&w);
    const char *s = "<script>";
    HW_N(&w, "<td>%s</td>", s);
    hw_free(&w);
}

/* An independent UTF-8 check (not the escaper's decoder). */
static int valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!k || i + k > n)
            return 0;
        unsigned cp = k == 1 ? c : k == 2 ? c & 31 : k == 3 ? c & 15 : c & 7;
        for (size_t j = 1; j < k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        if (cp == 0x202e || cp == 0x202d || cp == 0x2066 || cp == 0x2067 || cp == 0x2068 || cp == 0x200f)
            return 0; /* and no direction control came through */
        i += k;
    }
    return 1;
}

/* Random byte strings, biased towards the dangerous ones: no '<', '>', '"'
 * or '\'' survives, every '&' starts one of the five entities, the output is
 * valid UTF-8 without a bidirectional control, and never more than 16 times
 * the input. */
Test(html_escape, property_over_random_bytes)
{
    static const unsigned char pool[] = {'<', '>', '"', '\'', '&', 'a', '\n', 0x1b, 0x80, 0xbf, 0xc0, 0xc3, 0xe2,
                                         0x80, 0xae, 0xed, 0xa0, 0xf0, 0xf4, 0x90, 0xff, 0x00, 0xef, 0xbb};
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned char buf[64];
    for (int it = 0; it < 20000; it++) {
        size_t n = 0;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t len = x % sizeof buf;
        for (; n < len; n++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[n] = (x >> 8) % 3 ? pool[(x >> 16) % sizeof pool] : (unsigned char)(x >> 24);
        }
        for (int ctx = 0; ctx < 2; ctx++) {
            sbuf b;
            sbuf_init(&b);
            html_escape(&b, (const char *)buf, len, (size_t)-1, ctx);
            const char *o = b.p ? b.p : "";
            cr_assert(b.len <= 16 * len + 1, "output %zu bytes for %zu", b.len, len);
            cr_assert(!strpbrk(o, "<>\"'"), "a markup character survived: %s", o);
            for (const char *a = strchr(o, '&'); a; a = strchr(a + 1, '&'))
                cr_assert(!strncmp(a, "&amp;", 5) || !strncmp(a, "&lt;", 4) || !strncmp(a, "&gt;", 4) ||
                              !strncmp(a, "&quot;", 6) || !strncmp(a, "&#39;", 5),
                          "a bare &: %s", o);
            cr_assert(valid_utf8((const unsigned char *)o, b.len), "not valid UTF-8 (or a bidi control): %s", o);
            cr_assert_eq(strlen(o), b.len, "a NUL byte in the output");
            sbuf_free(&b);
        }
    }
}

/* ---- the command --------------------------------------------------------------- */

TU_DIR_SUITE(report, 0, .timeout = 240);

#define DX "deadbeef536be6aa15491440735ffb38abd87d3a3af735302686773415f828c1"

static void put(const char *name, const char *text) { tu_put(dir, name, text, 0); }

static void hosts(void)
{
    put("hosts.json", TU_HOSTS_HEAD TU_HOST_NAT ",\n" TU_HOST_X87 "\n]}\n");
}

/* A full receipt (testutil.h tu_full_receipt) as a host describes itself,
 * edited by `edit` before it is wrapped in an unsigned envelope. */
static void receipt(const char *file, const char *host, int pass, int first_diff, const char *emu, const char *cpu,
                    const char *isa, void (*edit)(cJSON *))
{
    cJSON *r = tu_host_receipt(host, pass, first_diff, DX, emu, cpu, isa, "sse sse2 sse3");
    if (edit)
        edit(r);
    tu_put_receipt(dir, file, r);
    cJSON_Delete(r);
}

static void good_nat(void) { receipt("r/nat.json", "nat", 1, -1, NULL, NULL, "x86_64", NULL); }
static void failing_x87(void) { receipt("r/x87.json", "x87", 0, 1, "qemu-i386", "Conroe", "i386", NULL); }

static tu_result report(const char *out, const char *a, const char *b, const char *c)
{
    char *h = at("hosts.json"), *o = at(out), *pa = a ? at(a) : NULL, *pb = b ? at(b) : NULL,
         *pc = c ? at(c) : NULL;
    tu_result r = tu_conform("report", "--allow-unsigned", "--hosts", h, "--vectors", tu_env("IT_VECTORS"), "-o", o, pa ? pa : NULL,
                             pb ? pb : NULL, pc ? pc : NULL, NULL);
    free(h), free(o), free(pa), free(pb), free(pc);
    return r;
}

static char *page(const char *out)
{
    char *p = at(out);
    char *t = tu_read(p);
    free(p);
    return t;
}

Test(report, the_matrix_words_and_the_same_page_twice)
{
    hosts();
    good_nat();
    failing_x87();
    tu_result r = report("a.html", "r/nat.json", "r/x87.json", NULL);
    cr_assert_eq(r.code, 0, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "2 receipts accepted, 0 refused; matrix: OK: 2 of 2 hosts as expected (1 passed, 1 expected "
                         "failure failed as expected)");
    tu_result_free(&r);
    char *a = page("a.html");
    tu_assert_has(a, "<!DOCTYPE html>");
    tu_assert_has(a, "Content-Security-Policy");
    tu_assert_has(a, "<span class=\"v pass\">PASS</span>");
    tu_assert_has(a, "<span class=\"v xfail\">expected-fail (step 1)</span>");
    tu_assert_has(a, "negative control");
    tu_assert_has(a, "yes (1)");
    tu_assert_has(a, "<td class=\"dg diff\" title=\"differs from the vectors' digest: " DX "\">deadbeef*</td>");
    tu_assert_has(a, "role=\"img\"");
    tu_assert_has(a, "<desc id=\"fig");
    tu_assert_has(a, "<details class=\"host\" id=\"host-1\" open>"); /* not a plain PASS: open */
    tu_assert_lacks(a, "<script");
    tu_assert_lacks(a, "http://");
    tu_assert_lacks(a, "https://");
    /* the same inputs, the same bytes */
    r = report("b.html", "r/nat.json", "r/x87.json", NULL);
    cr_assert_eq(r.code, 0, "%s\n%s", r.out, r.err);
    tu_result_free(&r);
    char *b = page("b.html");
    cr_assert_str_eq(a, b, "two runs on the same receipts wrote different pages");
    free(a), free(b);
}

static void hostile_verdict(cJSON *r) { cJSON_ReplaceItemInObject(r, "verdict", cJSON_CreateString("<script>alert('v')</script>")); }

/* A receipt the gate refuses is listed with the gate's words and never shown
 * as a result; the page is written, the exit status says 1. */
Test(report, refused_receipts_are_listed_not_shown)
{
    hosts();
    good_nat();
    receipt("r/x87.json", "x87", 0, 1, "qemu-i386", "Conroe", "i386", hostile_verdict);
    put("r/bare.json", "{\"schema\": \"isotrain-receipt-v1\"}");
    char *nat = at("r/nat.json");
    tu_result r = report("p.html", "r/nat.json", "r/x87.json", "r/bare.json");
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "1 receipt accepted, 2 refused");
    tu_assert_has(r.err, "refused");
    tu_result_free(&r);
    char *p = page("p.html");
    tu_assert_has(p, "<section id=\"refused\">");
    tu_assert_has(p, "refused: a bare receipt, not a DSSE envelope");
    tu_assert_has(p, "refused: the receipt does not verify");
    tu_assert_has(p, "&lt;script&gt;alert(&#39;v&#39;)&lt;/script&gt;");
    tu_assert_lacks(p, "<script");
    /* the refused host is a missing receipt in the matrix, never a result */
    tu_assert_has(p, "<span class=\"v other\">no receipt</span>");
    free(p);
    /* the same receipt twice: the second is refused as matrix refuses it */
    r = report("d.html", "r/nat.json", "r/nat.json", NULL);
    cr_assert_eq(r.code, 1, "%s\n%s", r.out, r.err);
    tu_result_free(&r);
    p = page("d.html");
    tu_assert_has(p, "already has a receipt");
    free(p);
    free(nat);
}

static void no_isa(cJSON *r)
{
    cJSON *vals = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "iut"), "self_report"), "values");
    cJSON_DeleteItemFromObject(vals, "isa");
}

/* What the gate says about a receipt it accepts (matrix prints a warning for
 * an IUT whose info reported no isa, as PyTorch's adapter's does) is a
 * warning on stderr, not a refusal. */
Test(report, a_gate_warning_is_not_a_refusal)
{
    receipt("r/m.json", "m", 1, -1, NULL, NULL, "x86_64", no_isa);
    char *o = at("w.html"), *m = at("r/m.json");
    tu_conform_says(0, 0, "1 receipt accepted, 0 refused", "report", "--allow-unsigned", "--vectors",
                    tu_env("IT_VECTORS"), "-o", o, m, NULL);
    char *p = tu_read(o);
    tu_assert_lacks(p, "<section id=\"refused\">");
    tu_assert_has(p, "<span class=\"v pass\">PASS</span>");
    free(p), free(o), free(m);
}

Test(report, no_receipts_says_so)
{
    hosts();
    char *h = at("hosts.json"), *o = at("none.html");
    tu_conform_says(0, 0, "no receipts", "report", "--allow-unsigned", "--hosts", h, "--vectors", tu_env("IT_VECTORS"),
                    "-o", o, NULL);
    char *p = tu_read(o);
    tu_assert_has(p, "No receipts: nothing has been certified for this vector set yet.");
    tu_assert_lacks(p, "class=\"v pass\"");
    free(p), free(h), free(o);
    tu_conform_says(2, 1, "-o PAGE.html", "report", "--allow-unsigned", "--hosts", "x", NULL);
}

Test(report, divergence_csv)
{
    hosts();
    good_nat();
    put("d.csv", "pair,step,loss_a,loss_b,loss_gap,loss_ulp,param_maxabs_gap,params_differing,params\n"
                 "\"default, vs avx2\",0,,,,,0,0,10\n\"default, vs avx2\",1,2.5,2.5,0,0,1e-07,3,10\n"
                 "\"default, vs avx2\",2,2.4,2.41,0.01,5,2e-06,7,10\n<b>x</b>,0,,,,,0,0,10\n");
    char *h = at("hosts.json"), *o = at("dv.html"), *d = at("d.csv"), *n = at("r/nat.json");
    tu_conform_exits(0, "report", "--allow-unsigned", "--hosts", h, "--divergence", d, "-o", o, n, NULL);
    char *p = tu_read(o);
    tu_assert_has(p, "<section id=\"divergence\">");
    tu_assert_has(p, "default, vs avx2");
    tu_assert_has(p, "&lt;b&gt;x&lt;/b&gt;");
    tu_assert_has(p, "first non-zero at step 1");
    free(p);
    /* a malformed file names its line and is not drawn */
    put("bad.csv", "pair,step,loss_gap,param_maxabs_gap\nx,1,0.5,1\nx,two,0.5,1\n");
    char *bad = at("bad.csv");
    tu_conform_says(2, 1, "bad.csv:3: expected a pair label and a step number", "report", "--allow-unsigned", "--hosts",
                    h, "--divergence", bad, "-o", o, n, NULL);
    put("bad.csv", "pair,step,loss\nx,1,0.5\n");
    tu_conform_says(2, 1, "bad.csv:1: the header must name the columns", "report", "--allow-unsigned", "--hosts", h,
                    "--divergence", bad, "-o", o, n, NULL);
    free(h), free(o), free(d), free(n), free(bad);
}

/* ---- the hostile receipt ------------------------------------------------------- */

enum { BIG = 10 << 20 };

/* strcasestr is not C11 or POSIX */
static int has_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n))
            return 1;
    return 0;
}

/* script tags, a table closed early, a right-to-left override, invalid
 * UTF-8, and an attribute break-out, around 10 MB of filler */
static char *hostile(const char *tag, size_t big)
{
    static const char head[] = "<script>alert(1)</script></table></td><img src=x onerror=alert(2)>"
                               "\xe2\x80\xae" "txt.exe\xff\xfe\xc0\xaf\"onmouseover=\"alert(3)";
    char *s = xmalloc(big + sizeof head + 64);
    size_t n = (size_t)snprintf(s, 64, "%s:", tag);
    memcpy(s + n, head, sizeof head - 1);
    n += sizeof head - 1;
    memset(s + n, 'A', big);
    n += big;
    memcpy(s + n, "</html>", 8);
    return s;
}

static void put_hostile(cJSON *o, const char *key, const char *tag, size_t big)
{
    char *s = hostile(tag, big);
    cJSON_DeleteItemFromObject(o, key);
    cJSON_AddStringToObject(o, key, s);
    free(s);
}

/* Every field an IUT controls (or that anyone can edit in an unsigned
 * receipt without verify noticing): its hello line, its self-report, its
 * stderr, a failing case's reason, the emulator warnings, the host name.
 * Four of them 10 MB long (the receipt stays under the runner's 64 MiB
 * read cap, so it is read, not refused for its size). */
static void make_hostile(cJSON *r)
{
    cJSON *iut = cJSON_GetObjectItem(r, "iut");
    put_hostile(iut, "hello", "hello", BIG);
    put_hostile(iut, "name", "name", 1000);
    cJSON *vals = cJSON_GetObjectItem(cJSON_GetObjectItem(iut, "self_report"), "values");
    put_hostile(vals, "cpu_model", "cpu_model", BIG);
    put_hostile(vals, "os", "os", 1000);
    cJSON_AddStringToObject(vals, "<b>key</b>\xe2\x80\xae", "v");
    cJSON *w = cJSON_CreateArray();
    char *s = hostile("warning", 1000);
    cJSON_AddItemToArray(w, cJSON_CreateString(s));
    free(s);
    cJSON_ReplaceItemInObject(r, "emulator_warnings", w);
    cJSON *p0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "levels"), "train"), "profiles"), 0);
    put_hostile(p0, "stderr_tail", "stderr", BIG);
    put_hostile(p0, "localization_text", "loc", 1000);
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(r, "cases"))
    {
        const cJSON *v = cJSON_GetObjectItem(c, "verdict");
        if (cJSON_IsString(v) && !strcmp(v->valuestring, "FAIL")) {
            put_hostile((cJSON *)c, "reason", "reason", BIG);
            break;
        }
    }
    cJSON_ReplaceItemInObject(r, "matrix_host", cJSON_CreateString("</table><script>alert(4)</script>\xe2\x80\xae"));
}

Test(report, a_hostile_receipt_renders_as_inert_bounded_text)
{
    hosts();
    good_nat();
    receipt("r/evil.json", "evil", 0, 1, NULL, NULL, "x86_64", make_hostile);
    tu_result r = report("evil.html", "r/nat.json", "r/evil.json", NULL);
    /* accepted (it verifies: none of these fields is recomputed), judged FAIL */
    cr_assert_eq(r.code, 0, "%s\n%s", r.out, r.err);
    tu_assert_has(r.out, "2 receipts accepted, 0 refused");
    tu_result_free(&r);
    char *p = page("evil.html");
    size_t n = strlen(p);
    cr_assert(n < 1500000, "the page is %zu bytes for 40 MB of hostile fields: not bounded", n);
    /* no markup came through: no script, no img, no attribute break-out */
    cr_assert(!has_ci(p, "<script"), "a <script> element reached the page");
    cr_assert(!has_ci(p, "<img"), "an <img> element reached the page");
    cr_assert(!strstr(p, "\"onmouseover"), "an attribute break-out reached the page");
    cr_assert(!strstr(p, "\xe2\x80\xae"), "a raw U+202E reached the page");
    cr_assert(!strstr(p, "\xff\xfe"), "invalid UTF-8 reached the page");
    cr_assert(valid_utf8((const unsigned char *)p, n), "the page is not valid UTF-8");
    /* ... but it is all there as text, shortened with a note */
    tu_assert_has(p, "hello:&lt;script&gt;alert(1)&lt;/script&gt;&lt;/table&gt;&lt;/td&gt;&lt;img src=x "
                     "onerror=alert(2)&gt;\xe2\x9f\xa8U+202E\xe2\x9f\xa9txt.exe\xef\xbf\xbd\xef\xbf\xbd");
    tu_assert_has(p, "&lt;/table&gt;&lt;script&gt;alert(4)&lt;/script&gt;\xe2\x9f\xa8U+202E\xe2\x9f\xa9");
    tu_assert_has(p, "&lt;b&gt;key&lt;/b&gt;");
    tu_assert_has(p, "more bytes not shown</span>");
    /* the tags of the page are the page's own: one <table ... for each </table> */
    size_t open = 0, close = 0;
    for (const char *q = p; (q = strstr(q, "<table")) != NULL; q++)
        open++;
    for (const char *q = p; (q = strstr(q, "</table>")) != NULL; q++)
        close++;
    cr_assert_eq(open, close, "%zu <table> and %zu </table>", open, close);
    free(p);
}
