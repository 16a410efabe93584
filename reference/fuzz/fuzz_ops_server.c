/* libFuzzer harness: the reference's `ops` server (spec/iut-protocol.md
 * P3-P5) on arbitrary bytes. Whatever arrives, the server must keep the
 * protocol's promises, checked here without trusting wire.c:
 *
 *   - exactly one answer line per request line (a final line without '\n'
 *     is a line too), and exit status 0;
 *   - every answer line at most 4 MiB;
 *   - every answer line well-formed (P3): key=value tokens separated by
 *     single spaces, keys [a-z][a-z0-9_]*, values non-empty without space,
 *     '=' or control characters; the first token id=;
 *   - the id echoed: the request's own id when it has a readable one
 *     (id= first, 1-256 bytes, ended by a space or the end of the line),
 *     else "?"; a request without a readable id, an unterminated line and an
 *     over-long line are answered with an error;
 *   - an error answer is exactly "id=<id> error=bad-request" or
 *     "id=<id> error=unsupported".
 *
 * A broken promise aborts, which libFuzzer reports as a crash with the input.
 * `sweep` is capped at 2^16 inputs here (it_ops_serve_limited) so that one
 * generated line cannot take minutes; nothing else differs from `isotrain ops`.
 * Build and run: `make fuzz` (mk/fuzz.mk). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_server.h"

enum { MAX_ID = 256 };
#define MAX_LINE ((size_t)4 << 20)

#if defined(__GNUC__)
__attribute__((noreturn))
#endif
static void broken(const char *what, size_t line_no, const char *line, size_t len)
{
    fprintf(stderr, "fuzz_ops_server: answer %zu: %s: \"%.*s\"\n", line_no, what, (int)(len > 300 ? 300 : len),
            line);
    abort();
}

static int is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

/* The id a request line's answer must carry (P3), or NULL for "?". */
static const char *readable_id(const char *line, size_t len, size_t *id_len)
{
    if (len < 4 || memcmp(line, "id=", 3) != 0)
        return NULL;
    size_t n = 0;
    while (3 + n < len && line[3 + n] != ' ') {
        unsigned char c = (unsigned char)line[3 + n];
        if (c == '=' || is_control(c))
            return NULL;
        n++;
    }
    if (n == 0 || n > MAX_ID)
        return NULL;
    *id_len = n;
    return line + 3;
}

/* Checks one answer against its request. */
static void check_answer(size_t no, const char *ans, size_t alen, const char *req, size_t rlen, int req_ended)
{
    if (alen > MAX_LINE)
        broken("longer than 4 MiB", no, ans, alen);
    /* P3 syntax, token by token */
    size_t ntok = 0, start = 0;
    const char *second_val = NULL;
    size_t second_len = 0, second_key_len = 0;
    const char *second_key = NULL;
    for (;;) {
        const char *sp = memchr(ans + start, ' ', alen - start);
        size_t end = sp ? (size_t)(sp - ans) : alen;
        const char *tok = ans + start, *eq = memchr(tok, '=', end - start);
        if (!eq)
            broken("a token without '='", no, ans, alen);
        size_t klen = (size_t)(eq - tok), vlen = end - start - klen - 1;
        if (klen == 0 || !(tok[0] >= 'a' && tok[0] <= 'z'))
            broken("a key that does not start with a-z", no, ans, alen);
        for (size_t i = 1; i < klen; i++) {
            char c = tok[i];
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
                broken("a key outside [a-z][a-z0-9_]*", no, ans, alen);
        }
        if (vlen == 0)
            broken("an empty value", no, ans, alen);
        for (size_t i = 0; i < vlen; i++) {
            unsigned char c = (unsigned char)eq[1 + i];
            if (c == '=' || c == ' ' || is_control(c))
                broken("a value with '=' or a control character", no, ans, alen);
        }
        if (ntok == 0 && !(klen == 2 && memcmp(tok, "id", 2) == 0))
            broken("the first token is not id=", no, ans, alen);
        if (ntok == 1) {
            second_key = tok;
            second_key_len = klen;
            second_val = eq + 1;
            second_len = vlen;
        }
        ntok++;
        if (!sp)
            break;
        start = end + 1;
        if (start == alen)
            broken("a trailing space", no, ans, alen);
    }
    if (ntok < 2)
        broken("no token after id=", no, ans, alen);
    /* the id */
    size_t want_len = 1;
    const char *want = readable_id(req, rlen, &want_len);
    if (!want)
        want = "?";
    if (!(alen >= 3 + want_len && memcmp(ans + 3, want, want_len) == 0 &&
          (alen == 3 + want_len || ans[3 + want_len] == ' ')))
        broken("the id is not the request's (or ? when it has none)", no, ans, alen);
    /* errors */
    int is_error = second_key_len == 5 && memcmp(second_key, "error", 5) == 0;
    if (is_error) {
        if (ntok != 2)
            broken("an error answer with more than id= and error=", no, ans, alen);
        if (!((second_len == 11 && memcmp(second_val, "bad-request", 11) == 0) ||
              (second_len == 11 && memcmp(second_val, "unsupported", 11) == 0)))
            broken("an error other than bad-request or unsupported", no, ans, alen);
    }
    int must_fail = !readable_id(req, rlen, &want_len) || !req_ended || rlen > MAX_LINE;
    if (must_fail && !is_error)
        broken("a result for a request that has no id, no newline or more than 4 MiB", no, ans, alen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    if (size == 0)
        return 0; /* no line, no answer; and fmemopen may refuse a size of 0 */
    FILE *in = fmemopen((void *)(uintptr_t)data, size, "r");
    char *out_buf = NULL;
    size_t out_len = 0;
    FILE *out = open_memstream(&out_buf, &out_len);
    if (!in || !out)
        abort();
    int st = it_ops_serve_limited(in, out, devnull, (uint64_t)1 << 16);
    fclose(in);
    fclose(out);
    if (st != 0) {
        fprintf(stderr, "fuzz_ops_server: exit status %d, not 0\n", st);
        abort();
    }
    if (out_len > 0 && out_buf[out_len - 1] != '\n')
        broken("the output does not end with a newline", 0, out_buf, out_len);
    /* walk requests and answers together */
    const char *req = (const char *)data, *ans = out_buf;
    size_t rleft = size, aleft = out_len, no = 0;
    while (rleft > 0) {
        const char *rnl = memchr(req, '\n', rleft);
        size_t rlen = rnl ? (size_t)(rnl - req) : rleft;
        if (aleft == 0) {
            fprintf(stderr, "fuzz_ops_server: request %zu has no answer\n", no);
            abort();
        }
        const char *anl = memchr(ans, '\n', aleft);
        size_t alen = (size_t)(anl - ans);
        check_answer(no, ans, alen, req, rlen, rnl != NULL);
        no++;
        ans += alen + 1;
        aleft -= alen + 1;
        req += rlen + (rnl ? 1 : 0);
        rleft -= rlen + (rnl ? 1 : 0);
    }
    if (aleft != 0)
        broken("more answers than requests", no, ans, aleft);
    free(out_buf);
    return 0;
}
