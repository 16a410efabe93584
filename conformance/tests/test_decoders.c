/* test_decoders.c — the runner's one decoder of each kind (issue 29 §3):
 * base64 (core/base64.h), UTF-8 (core/utf8.h) under its three escapers,
 * xvasprintf, and the SSHSIG fingerprint that verify and the page share
 * (trust/sshsig.h), down to truncated blobs and through both commands. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base64.h"
#include "core/utf8.h"
#include "core/util.h"
#include "report/html/html_writer.h"
#include "report/junit.h"
#include "testutil.h"
#include "trust/dsse.h"
#include "trust/sshsig.h"

/* ---- base64 ------------------------------------------------------------------------ */

static char *enc(const void *d, size_t n)
{
    sbuf b;
    sbuf_init(&b);
    b64_encode(&b, d, n);
    return b.p ? sbuf_take(&b) : xstrdup("");
}

Test(base64, rfc4648_section10_vectors)
{
    static const char *const v[][2] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},     {"foo", "Zm9v"},
                                       {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char *e = enc(v[i][0], strlen(v[i][0]));
        cr_assert_str_eq(e, v[i][1]);
        unsigned char *d;
        size_t n;
        cr_assert(b64_decode(e, strlen(e), &d, &n) == 0, "%s", e);
        cr_assert_eq(n, strlen(v[i][0]));
        cr_assert(!memcmp(d, v[i][0], n));
        cr_assert_eq(d[n], 0, "the decoded bytes are NUL-terminated");
        free(d), free(e);
    }
}

Test(base64, every_length_round_trips)
{
    unsigned char data[70];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 151u + 7u);
    for (size_t n = 0; n <= sizeof data; n++) {
        char *e = enc(data, n);
        unsigned char *d;
        size_t m;
        cr_assert(b64_decode(e, strlen(e), &d, &m) == 0, "length %zu: %s", n, e);
        cr_assert(m == n && !memcmp(d, data, n), "length %zu", n);
        free(d), free(e);
    }
}

/* Invalid padding and everything else the strict decoder refuses: one byte
 * string has exactly one text. */
Test(base64, refuses_bad_padding_and_foreign_characters)
{
    static const char *const bad[] = {
        "Zg=",      /* not a multiple of 4 */
        "Zg",       /* padding missing */
        "Z===",     /* three pad characters */
        "====",     /* nothing but padding */
        "Zg=a",     /* a character after the padding */
        "Zg==Zm9v", /* padding in a quantum that is not the last */
        "Zh==",     /* the pad leaves bits set: non-canonical for "f" */
        "Zm9=",     /* likewise for "fo" */
        "Zm9v\n",   /* a line break */
        "Zm 9v",    /* a space (and the wrong length) */
        "Zm-v",     /* the URL-safe alphabet is not this one */
        "Zm_v",
        "=Zm9",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned char *d = (unsigned char *)"x";
        size_t n = 99;
        cr_assert_eq(b64_decode(bad[i], strlen(bad[i]), &d, &n), -1, "accepted \"%s\"", bad[i]);
        cr_assert(d == NULL && n == 0, "\"%s\": output left set", bad[i]);
    }
    /* a NUL inside the counted text is not an alphabet character */
    unsigned char *d;
    size_t n;
    cr_assert_eq(b64_decode("Zm\0v", 4, &d, &n), -1);
}

/* ---- UTF-8 -------------------------------------------------------------------------- */

typedef struct {
    const char *bytes;
    size_t n;
    size_t len; /* 0: refused */
    uint32_t cp;
    const char *what;
} utf8_case;

Test(utf8, well_formed_boundaries_and_every_ill_formed_kind)
{
    static const utf8_case c[] = {
        {"A", 1, 1, 0x41, "ASCII"},
        {"\x7f", 1, 1, 0x7f, "the last one-byte"},
        {"\xc2\x80", 2, 2, 0x80, "the first two-byte"},
        {"\xc3\xa9", 2, 2, 0xe9, "e acute"},
        {"\xe0\xa0\x80", 3, 3, 0x800, "the first three-byte"},
        {"\xe2\x82\xac", 3, 3, 0x20ac, "euro sign"},
        {"\xed\x9f\xbf", 3, 3, 0xd7ff, "just below the surrogates"},
        {"\xee\x80\x80", 3, 3, 0xe000, "just above the surrogates"},
        {"\xef\xbf\xbf", 3, 3, 0xffff, "the last three-byte"},
        {"\xf0\x90\x80\x80", 4, 4, 0x10000, "the first four-byte"},
        {"\xf0\x9f\x98\x80", 4, 4, 0x1f600, "an emoji"},
        {"\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff, "the last code point"},
        {"", 0, 0, 0, "no bytes"},
        {"\x80", 1, 0, 0, "a lone continuation byte"},
        {"\xbf", 1, 0, 0, "a lone continuation byte"},
        {"\xc0\x80", 2, 0, 0, "overlong NUL"},
        {"\xc1\xbf", 2, 0, 0, "overlong two-byte"},
        {"\xe0\x80\x80", 3, 0, 0, "overlong three-byte"},
        {"\xe0\x9f\xbf", 3, 0, 0, "overlong three-byte (U+07FF)"},
        {"\xf0\x80\x80\x80", 4, 0, 0, "overlong four-byte"},
        {"\xf0\x8f\xbf\xbf", 4, 0, 0, "overlong four-byte (U+FFFF)"},
        {"\xed\xa0\x80", 3, 0, 0, "a high surrogate"},
        {"\xed\xbf\xbf", 3, 0, 0, "a low surrogate"},
        {"\xf4\x90\x80\x80", 4, 0, 0, "above U+10FFFF"},
        {"\xf5\x80\x80\x80", 4, 0, 0, "a lead byte past F4"},
        {"\xff", 1, 0, 0, "0xFF"},
        {"\xe2\x82", 2, 0, 0, "truncated three-byte"},
        {"\xf0\x9f\x98", 3, 0, 0, "truncated four-byte"},
        {"\xe2\x28\xa1", 3, 0, 0, "a bad second byte"},
        {"\xf0\x9f\x28\x80", 4, 0, 0, "a bad third byte"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        uint32_t cp = 0xdeadbeef;
        size_t len = utf8_decode((const unsigned char *)c[i].bytes, c[i].n, &cp);
        cr_assert_eq(len, c[i].len, "%s: length %zu, expected %zu", c[i].what, len, c[i].len);
        if (len)
            cr_assert_eq(cp, c[i].cp, "%s: U+%04X", c[i].what, (unsigned)cp);
    }
    /* the length bound is honoured: a valid sequence cut by n is refused */
    uint32_t cp;
    cr_assert_eq(utf8_decode((const unsigned char *)"\xe2\x82\xac", 2, &cp), 0);
}

/* The three escapers decode with the one decoder: a surrogate and an
 * overlong form are replaced or escaped by each, never passed through. */
Test(utf8, the_three_escapers_refuse_the_same_bytes)
{
    static const char *const ill[] = {"\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80", "\xe2\x82"};
    for (size_t i = 0; i < sizeof ill / sizeof ill[0]; i++) {
        size_t n = strlen(ill[i]);
        sbuf h, x;
        sbuf_init(&h), sbuf_init(&x);
        html_escape(&h, ill[i], n, (size_t)-1, HE_TEXT);
        xml_escape(&x, ill[i]);
        char *s = sanitized(ill[i], n, 64);
        sbuf rep;
        sbuf_init(&rep);
        for (size_t k = 0; k < n; k++)
            sbuf_adds(&rep, "\xef\xbf\xbd");
        cr_assert_str_eq(h.p, rep.p, "html_escape passed case %zu", i);
        cr_assert(!memchr(x.p, 0x80, x.len) && !strchr(x.p, (char)0xed) && x.p[0] == '\\', "xml_escape: %s", x.p);
        cr_assert(s[0] == '\\', "sanitized passed case %zu: %s", i, s);
        cr_assert_str_eq(x.p, s, "JUnit and the messages escape case %zu differently", i);
        sbuf_free(&h), sbuf_free(&x), sbuf_free(&rep);
        free(s);
    }
    /* and all three pass a well-formed non-ASCII character as it is */
    sbuf h, x;
    sbuf_init(&h), sbuf_init(&x);
    html_escape(&h, "\xe2\x82\xac", 3, (size_t)-1, HE_TEXT);
    xml_escape(&x, "\xe2\x82\xac");
    char *s = sanitized("\xe2\x82\xac", 3, 64);
    cr_assert_str_eq(h.p, "\xe2\x82\xac");
    cr_assert_str_eq(x.p, "\xe2\x82\xac");
    cr_assert_str_eq(s, "\xe2\x82\xac");
    sbuf_free(&h), sbuf_free(&x);
    free(s);
}

static char *fmt_via_va(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_via_va(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

Test(util, xvasprintf_formats_and_never_returns_null)
{
    char *s = fmt_via_va("%s=%u %.3s", "step", 7u, "abcdef");
    cr_assert_str_eq(s, "step=7 abc");
    free(s);
    s = fmt_via_va("%s", "");
    cr_assert(s != NULL);
    cr_assert_str_eq(s, "");
    free(s);
}

/* ---- the SSHSIG fingerprint ---------------------------------------------------------- */

TU_DIR_SUITE(sshsig, 0, .timeout = 240);

/* A throwaway ed25519 key, its allowed-signers line, and ssh-keygen -l's
 * fingerprint of it: the answer both commands must give. */
static char *make_key(void)
{
    char *cmd = xasprintf("cd '%s' && ssh-keygen -q -t ed25519 -N '' -C dec@example.org -f key && "
                          "printf 'dec@example.org namespaces=\"isotrain-receipt\" %%s\\n' \"$(cut -d' ' -f1,2 key.pub)\" "
                          "> allowed_signers && ssh-keygen -lf key.pub | cut -d' ' -f2",
                          dir);
    char *fp = tu_sh_line(cmd);
    free(cmd);
    cr_assert(!strncmp(fp, "SHA256:", 7), "%s", fp);
    return fp;
}

/* ssh-keygen -Y sign over some bytes: a real SSHSIG armor. */
static char *real_signature(void)
{
    char *key = at("key");
    char err[256], *armored;
    cr_assert(sshsig_sign(key, "message", 7, &armored, err, sizeof err) == 0, "%s", err);
    free(key);
    return armored;
}

/* The blob inside an armor (the test's own reading: lines between the
 * BEGIN and END lines, joined). */
static unsigned char *blob_of(const char *armored, size_t *n)
{
    const char *b = strchr(armored, '\n') + 1, *e = strstr(armored, "-----END");
    sbuf t;
    sbuf_init(&t);
    for (const char *p = b; p < e; p++)
        if (*p != '\n')
            sbuf_addc(&t, *p);
    unsigned char *blob;
    cr_assert(b64_decode(t.p, t.len, &blob, n) == 0);
    sbuf_free(&t);
    return blob;
}

/* An armor around any bytes, wrapped at 70 columns as ssh-keygen does. */
static char *armor(const unsigned char *blob, size_t n)
{
    sbuf b, out;
    sbuf_init(&b), sbuf_init(&out);
    b64_encode(&b, blob, n);
    sbuf_adds(&out, "-----BEGIN SSH SIGNATURE-----\n");
    for (size_t i = 0; i < b.len; i += 70) {
        sbuf_add(&out, b.p + i, b.len - i < 70 ? b.len - i : 70);
        sbuf_addc(&out, '\n');
    }
    sbuf_adds(&out, "-----END SSH SIGNATURE-----\n");
    sbuf_free(&b);
    return sbuf_take(&out);
}

Test(sshsig, the_fingerprint_is_ssh_keygens_and_every_truncation_is_refused)
{
    char *want = make_key(), *sig = real_signature(), fp[64];
    cr_assert(sshsig_fingerprint(sig, fp) == 0);
    cr_assert_str_eq(fp, want, "the fingerprint is not ssh-keygen -l's");
    size_t n;
    unsigned char *blob = blob_of(sig, &n);
    /* the re-armored blob reads the same: the test's armor is a real one */
    char *same = armor(blob, n);
    cr_assert(sshsig_fingerprint(same, fp) == 0 && !strcmp(fp, want));
    free(same);
    /* every truncation of the blob, from nothing to one byte short */
    for (size_t k = 0; k < n; k++) {
        char *t = armor(blob, k);
        cr_assert_eq(sshsig_fingerprint(t, fp), -1, "a blob cut to %zu of %zu bytes gave %s", k, n, fp);
        free(t);
    }
    /* a byte after the last field */
    unsigned char *longer = xmalloc(n + 1);
    memcpy(longer, blob, n);
    longer[n] = 0;
    char *t = armor(longer, n + 1);
    cr_assert_eq(sshsig_fingerprint(t, fp), -1, "trailing data accepted");
    free(t);
    /* another version, another magic, a key length past the end, an empty key */
    static const struct {
        size_t at;
        unsigned char byte;
        const char *what;
    } edit[] = {{9, 2, "version 2"}, {0, 'X', "magic XSHSIG"}, {10, 0x7f, "a key length past the end"}};
    for (size_t i = 0; i < sizeof edit / sizeof edit[0]; i++) {
        memcpy(longer, blob, n);
        longer[edit[i].at] = edit[i].byte;
        t = armor(longer, n);
        cr_assert_eq(sshsig_fingerprint(t, fp), -1, "%s accepted", edit[i].what);
        free(t);
    }
    static const unsigned char empty_key[] = {'S', 'S', 'H', 'S', 'I', 'G', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
                                              0,   0,   0,   0,   0,   0,   0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    t = armor(empty_key, sizeof empty_key);
    cr_assert_eq(sshsig_fingerprint(t, fp), -1, "an empty public key accepted");
    free(t);
    free(longer);
    free(blob);
    free(sig);
    free(want);
}

/* The armor itself: the body is strict base64 with line breaks only. */
Test(sshsig, a_malformed_armor_is_refused)
{
    char *want = make_key(), *sig = real_signature(), fp[64];
    free(want);
    /* a body that needs padding, without it (a real ed25519 SSHSIG of this
     * namespace is 186 bytes: no padding to remove from it) */
    size_t n;
    unsigned char *blob = blob_of(sig, &n);
    char *padded = armor(blob, n - 1), *nopad = xstrdup(padded), *p;
    while ((p = strchr(nopad, '=')) != NULL)
        memmove(p, p + 1, strlen(p));
    cr_assert(strcmp(nopad, padded) != 0, "no padding to remove");
    char *spaced = xasprintf("%.*s %s", 40, sig, sig + 40);
    char *noend = xstrndup(sig, (size_t)(strstr(sig, "-----END") - sig));
    const char *bad[] = {nopad, spaced, noend, "-----BEGIN SSH SIGNATURE-----\n-----END SSH SIGNATURE-----\n", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(sshsig_fingerprint(bad[i], fp), -1, "accepted case %zu: %s", i, bad[i]);
    /* CRLF line breaks are line breaks */
    sbuf crlf;
    sbuf_init(&crlf);
    for (const char *q = sig; *q; q++)
        *q == '\n' ? sbuf_adds(&crlf, "\r\n") : sbuf_addc(&crlf, *q);
    cr_assert(sshsig_fingerprint(crlf.p, fp) == 0);
    sbuf_free(&crlf);
    free(nopad), free(padded), free(blob), free(spaced), free(noend), free(sig);
}

/* ---- verify and the page, on one malformed signature ----------------------------------- */

static void put(const char *name, const char *text) { tu_put(dir, name, text, 0); }

/* One host, native x86_64, and its receipt (testutil.h tu_full_receipt),
 * signed with the test's key. */
static void signed_receipt(const char *file)
{
    put("hosts.json", TU_HOSTS_HEAD TU_HOST_NAT "\n]}\n");
    cJSON *r = tu_host_receipt("nat", 1, -1, NULL, NULL, NULL, "x86_64", "sse sse2 sse3");
    cJSON *st = intoto_statement(r);
    char *key = at("key"), err[512];
    char *env = dsse_envelope(st, key, err, sizeof err);
    cr_assert(env != NULL, "%s", err);
    put(file, env);
    free(env), free(key);
    cJSON_Delete(st);
    cJSON_Delete(r);
}

/* The envelope at file with signatures[0].sig replaced by armored text. */
static void replace_signature(const char *file, const char *armored)
{
    char *p = at(file), *text = tu_read(p);
    cJSON *env = cJSON_Parse(text);
    cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(env, "signatures"), 0);
    char *b = enc(armored, strlen(armored));
    cJSON_ReplaceItemInObject(s0, "sig", cJSON_CreateString(b));
    char *out = cJSON_Print(env);
    put(file, out);
    free(out), free(b), free(text), free(p);
    cJSON_Delete(env);
}

static tu_result verify(const char *file)
{
    char *a = at("allowed_signers"), *p = at(file);
    tu_result r = tu_conform("verify", "--allowed-signers", a, p, NULL);
    free(a), free(p);
    return r;
}

static tu_result report(const char *file, char **page)
{
    char *a = at("allowed_signers"), *h = at("hosts.json"), *o = at("page.html"), *p = at(file);
    tu_result r = tu_conform("report", "--allowed-signers", a, "--hosts", h, "--vectors", tu_env("IT_VECTORS"), "-o", o,
                             p, NULL);
    *page = tu_read(o);
    free(a), free(h), free(o), free(p);
    return r;
}

Test(sshsig, verify_and_the_page_name_one_key_and_refuse_one_malformed_signature)
{
    char *want = make_key();
    signed_receipt("r.json");
    /* well-formed: both name ssh-keygen's fingerprint */
    tu_result v = verify("r.json");
    cr_assert_eq(v.code, 0, "%s%s", v.out, v.err);
    tu_assert_has(v.out, want);
    tu_result_free(&v);
    char *page;
    tu_result g = report("r.json", &page);
    cr_assert_eq(g.code, 0, "%s%s", g.out, g.err);
    char *key_words = xasprintf("(key <code>%s</code>), signature checked.", want);
    tu_assert_has(page, key_words);
    free(key_words), free(page);
    tu_result_free(&g);
    /* malformed: the real signature's blob cut short (the armor and its
     * base64 well-formed), and the real armor with a space in its body
     * (which verify's former parser skipped and the page's refused) */
    char *sig = real_signature();
    size_t n;
    unsigned char *blob = blob_of(sig, &n);
    char *cut = armor(blob, n - 5), *spaced = xasprintf("%.*s %s", 40, sig, sig + 40);
    const char *bad[] = {cut, spaced};
    for (size_t i = 0; i < 2; i++) {
        signed_receipt("r.json");
        replace_signature("r.json", bad[i]);
        v = verify("r.json");
        cr_assert_eq(v.code, 1, "verify accepted malformed signature %zu: %s", i, v.out);
        tu_assert_has(v.out, "signatures[0]: not an SSH signature (ssh-keygen -Y sign)");
        g = report("r.json", &page);
        cr_assert_eq(g.code, 1, "the page accepted malformed signature %zu: %s%s", i, g.out, g.err);
        tu_assert_has(g.out, "0 receipts accepted, 1 refused");
        tu_assert_has(page, "signatures[0]: not an SSH signature (ssh-keygen -Y sign)");
        tu_assert_lacks(page, want);
        tu_result_free(&v), tu_result_free(&g);
        free(page);
    }
    free(cut), free(spaced), free(blob), free(sig), free(want);
}
