/* trace.c — spec §9.2 traces, read as spec/iut-protocol.md P7 describes. */
#include "protocol/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain.h"
#include "core/util.h"
#include "protocol/line_codec.h"

void trace_free(trace_doc *t)
{
    free(t->profile);
    free(t->s);
    memset(t, 0, sizeof *t);
}

static int parse_u32_dec(const char *s, size_t n, uint32_t *out)
{
    if (n == 0 || n > 10 || (n > 1 && s[0] == '0'))
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > 0xffffffffu)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* The header: "# isotrain-trace v1 profile=NAME steps=N". */
static int parse_header(const char *l, size_t n, trace_doc *t, char *why, size_t cap)
{
    static const char magic[] = "# isotrain-trace v1 ";
    size_t m = sizeof magic - 1;
    if (n < m || memcmp(l, magic, m) != 0) {
        snprintf(why, cap, "expected the header \"# isotrain-trace v1 profile=NAME steps=N\"");
        return -1;
    }
    wire_line wl;
    wire_line_init(&wl);
    if (wire_line_parse(l + m, n - m, &wl, why, cap) != 0 || wl.n != 2 ||
        wire_line_get(&wl, "profile") != &wl.t[0] || wire_line_get(&wl, "steps") != &wl.t[1]) {
        snprintf(why, cap, "expected the header \"# isotrain-trace v1 profile=NAME steps=N\"");
        wire_line_free(&wl);
        return -1;
    }
    const wire_token *p = &wl.t[0], *s = &wl.t[1];
    int bad = parse_u32_dec(s->val, s->val_len, &t->steps) != 0 || p->val_len == 0;
    for (size_t i = 0; i < p->val_len && !bad; i++)
        bad = !((p->val[i] >= 'a' && p->val[i] <= 'z') || (p->val[i] >= '0' && p->val[i] <= '9') || p->val[i] == '_');
    if (bad) {
        snprintf(why, cap, "header: profile must be [a-z0-9_]+ and steps a decimal count");
        wire_line_free(&wl);
        return -1;
    }
    t->profile = xstrndup(p->val, p->val_len);
    wire_line_free(&wl);
    return 0;
}

/* loss_dec must denote the same binary32 value as the loss bits. */
static int loss_dec_ok(const char *s, size_t n, uint32_t bits)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (!strchr("+-0123456789.nNiI", buf[0]))
        return 0;
    char *end;
    errno = 0;
    float f = strtof(buf, &end);
    if (*end)
        return 0;
    uint32_t u = it_f32_bits(f);
    int nan_bits = (bits & 0x7fffffffu) > 0x7f800000u;
    if (nan_bits)
        return (u & 0x7fffffffu) > 0x7f800000u;
    return u == bits;
}

/* The keys of a step line a reader knows (spec §9.2: a consumer ignores
 * the others): step and digest into st, loss and loss_dec found. */
static int step_keys(const wire_line *wl, trace_step *st, const wire_token **loss, const wire_token **dec, char *why,
                     size_t cap)
{
    static const char *const known[] = {"step", "loss", "loss_dec", "digest"};
    for (size_t i = 0; i < wl->n; i++) {
        const wire_token *t = &wl->t[i];
        size_t k = 0;
        while (k < 4 && !(strlen(known[k]) == t->key_len && memcmp(known[k], t->key, t->key_len) == 0))
            k++;
        if (k == 0 && parse_u32_dec(t->val, t->val_len, &st->step) != 0)
            return snprintf(why, cap, "step is not a decimal count without leading zeros"), -1;
        if (k == 1)
            *loss = t;
        if (k == 2)
            *dec = t;
        if (k == 3) {
            value v;
            if (value_parse(VT_SHA256, t->val, t->val_len, 0, &v, why, cap) != 0)
                return snprintf(why, cap, "digest is not 64 hex digits"), -1;
            memcpy(st->digest, v.text, 65);
            st->has_digest = 1;
            value_free(&v);
        }
    }
    return 0;
}

/* A step's loss: bits and the decimal that must denote them. */
static int step_loss(const wire_token *loss, const wire_token *dec, uint32_t expect, trace_step *st, char *why,
                     size_t cap)
{
    if (!loss || !dec)
        return snprintf(why, cap, "step %u needs loss=<8 hex> and loss_dec=<decimal>", (unsigned)expect), -1;
    /* §9.2 writes loss=0x<8 lowercase hex>; P7 also accepts the bare P4
     * form. Lowercase only, prefix and digits alike: "0X" is neither. */
    const char *h = loss->val;
    size_t hl = loss->val_len;
    if (hl == 10 && h[0] == '0' && h[1] == 'x')
        h += 2, hl -= 2;
    value v;
    if (hl != 8 || !is_lower_hex(h, 8) || value_parse(VT_U32, h, hl, 0, &v, why, cap) != 0)
        return snprintf(why, cap, "loss is not 0x and 8 lowercase hex digits (binary32 bits, spec §9.2)"), -1;
    st->loss = (uint32_t)v.v[0];
    st->has_loss = 1;
    value_free(&v);
    if (!loss_dec_ok(dec->val, dec->val_len, st->loss))
        return snprintf(why, cap, "loss_dec=%.*s does not denote the binary32 value of loss bits %08x",
                        (int)(dec->val_len > 32 ? 32 : dec->val_len), dec->val, (unsigned)st->loss),
               -1;
    return 0;
}

/* One step line's keys in order: step= first, the step expected, a loss
 * on every line but the first. */
static int step_fields(const wire_line *wl, uint32_t expect, int first, trace_step *st, char *why, size_t cap)
{
    const wire_token *loss = NULL, *dec = NULL;
    if (step_keys(wl, st, &loss, &dec, why, cap) != 0)
        return -1;
    if (wl->n == 0 || wire_line_get(wl, "step") != &wl->t[0])
        return snprintf(why, cap, "expected the line to start with step="), -1;
    if (st->step != expect)
        return snprintf(why, cap, "expected step=%u (steps are in order, one line each), got step=%u",
                        (unsigned)expect, (unsigned)st->step),
               -1;
    if (first && (loss || dec))
        return snprintf(why, cap, expect == 0 ? "step 0 (the initial parameters) has no loss"
                                              : "the first line of a resumed run (the state it starts from) has no loss"),
               -1;
    return first ? 0 : step_loss(loss, dec, expect, st, why, cap);
}

/* One step line. */
/* first: the trace's first step line (step 0, or the state a resumed run starts from, spec §9.4): no loss */
static int parse_step(const char *l, size_t n, uint32_t expect, int first, trace_step *st, char *why, size_t cap)
{
    wire_line wl;
    wire_line_init(&wl);
    memset(st, 0, sizeof *st);
    int rc = wire_line_parse(l, n, &wl, why, cap) != 0 ? -1 : step_fields(&wl, expect, first, st, why, cap);
    wire_line_free(&wl);
    return rc;
}

/* spec §9.2 / P7 */
int trace_parse(const char *text, size_t len, const char *name, trace_doc *t, char *err, size_t cap)
{
    return trace_parse_from(text, len, name, 0, t, err, cap);
}

/* spec §9.4: a resumed run's trace starts at step `from` */
int trace_parse_from(const char *text, size_t len, const char *name, uint32_t from, trace_doc *t, char *err,
                     size_t cap)
{
    memset(t, 0, sizeof *t);
    size_t line_no = 0, pos = 0, cap_steps = 0;
    char why[256];
    while (pos < len) {
        line_no++;
        const char *l = text + pos;
        const char *nl = memchr(l, '\n', len - pos);
        if (!nl) {
            snprintf(err, cap, "%s:%zu: the last line is not terminated by a newline (truncated trace?)", name, line_no);
            return -1;
        }
        size_t n = (size_t)(nl - l);
        pos += n + 1;
        if (memchr(l, '\r', n)) {
            snprintf(err, cap, "%s:%zu: carriage return in the line (lines end in \\n only)", name, line_no);
            return -1;
        }
        if (line_no == 1) {
            if (parse_header(l, n, t, why, sizeof why) != 0) {
                snprintf(err, cap, "%s:1: %s", name, why);
                return -1;
            }
            continue;
        }
        if ((uint64_t)from + t->n > (uint64_t)t->steps) {
            snprintf(err, cap, "%s:%zu: a line after step %u, the last step of the header's steps=%u", name, line_no,
                     (unsigned)t->steps, (unsigned)t->steps);
            return -1;
        }
        if (t->n == cap_steps) {
            cap_steps = cap_steps ? 2 * cap_steps : 256;
            t->s = xrealloc(t->s, cap_steps * sizeof *t->s);
        }
        trace_step st;
        if (parse_step(l, n, from + (uint32_t)t->n, t->n == 0, &st, why, sizeof why) != 0) {
            char *ex = sanitized(l, n, 80);
            snprintf(err, cap, "%s:%zu: %s: \"%s\"", name, line_no, why, ex);
            free(ex);
            return -1;
        }
        st.line_no = line_no;
        t->s[t->n++] = st;
    }
    if (line_no == 0) {
        snprintf(err, cap, "%s:1: empty trace (expected the header \"# isotrain-trace v1 profile=NAME steps=N\")", name);
        return -1;
    }
    return 0;
}

int trace_parse_file(const char *path, size_t max, trace_doc *t, char *err, size_t cap)
{
    char *text;
    size_t len;
    memset(t, 0, sizeof *t);
    /* a trace comes from an IUT: a regular file, not a link, within the cap */
    if (read_file_at(AT_FDCWD, path, max, RF_NOFOLLOW, &text, &len, err, cap) != 0)
        return -1;
    int r = trace_parse(text, len, path, t, err, cap);
    free(text);
    return r;
}
