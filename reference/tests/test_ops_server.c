/* `isotrain ops` end to end (spec/iut-protocol.md P3-P6): requests through the
 * CLI named by IT_CLI, answers compared with the library computed here, and
 * the server's behaviour on bad input: an answer for every line, never a
 * crash or a hang, exit 0 at end of input. */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define MAX_LINE ((size_t)4 << 20)

/* Runs `CLI ops` on the given stdin bytes; returns the exit status and the
 * (malloc'd) stdout and stderr. */
static int serve(const char *req, size_t len, char **out, char **err)
{
    char path[128], cmd[1024];
    snprintf(path, sizeof path, "%s/req", test_tmpdir);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(req, 1, len, f) == len && fclose(f) == 0);
    snprintf(cmd, sizeof cmd, "%s ops < %s/req > %s/out 2> %s/err", test_env("IT_CLI"), test_tmpdir, test_tmpdir, test_tmpdir);
    int st = system(cmd);
    snprintf(path, sizeof path, "%s/out", test_tmpdir);
    *out = test_slurp(path, NULL);
    snprintf(path, sizeof path, "%s/err", test_tmpdir);
    *err = test_slurp(path, NULL);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The n-th line (0-based) of text, copied out; NULL if there is none. */
static char *line_of(const char *text, int n)
{
    const char *p = text;
    for (int i = 0; i < n; i++) {
        p = strchr(p, '\n');
        if (!p)
            return NULL;
        p++;
    }
    const char *e = strchr(p, '\n');
    if (!e)
        return NULL;
    char *s = malloc((size_t)(e - p) + 1);
    memcpy(s, p, (size_t)(e - p));
    s[e - p] = '\0';
    return s;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

/* ---- a small encoder of its own (P4), so the test does not trust wire.c ---- */

typedef struct {
    char *p;
    size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        cr_assert(n >= 0);
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        cr_assert(b->p);
    }
}

static void put_f32s(sbuf *b, const char *key, const float *v, size_t n)
{
    put(b, " %s=", key);
    for (size_t i = 0; i < n; i++)
        put(b, "%s%08x", i ? "," : "", (unsigned)B(v[i]));
}

static void put_u32s(sbuf *b, const char *key, const uint32_t *v, size_t n)
{
    put(b, " %s=", key);
    for (size_t i = 0; i < n; i++)
        put(b, "%s%08x", i ? "," : "", (unsigned)v[i]);
}

static void put_bytes_as_ints(sbuf *b, const char *key, const unsigned char *v, size_t n)
{
    put(b, " %s=", key);
    for (size_t i = 0; i < n; i++)
        put(b, "%s%u", i ? "," : "", (unsigned)v[i]);
}

/* One request and the response the library says it must get. */
typedef struct {
    sbuf req, want;
} exchange;

static void expect_line(const char *out, int n, const char *want)
{
    char *got = line_of(out, n);
    cr_assert(got, "no response line %d", n);
    cr_assert(strcmp(got, want) == 0, "response %d:\n got  %.300s\n want %.300s", n, got, want);
    free(got);
}

Test(ops, answers_like_the_library, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    enum { N = 12 };
    exchange ex[N];
    memset(ex, 0, sizeof ex);
    const float xs[6] = {0.0f, -0.0f, 1.0f, -104.0f, 89.0f, F(0x00000001u)};
    float y[6];

    /* exp, log, tanh */
    float (*fns[3])(float) = {it_expf, it_logf, it_tanhf};
    const char *names[3] = {"exp", "log", "tanh"};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 6; i++)
            y[i] = fns[k](xs[i]);
        put(&ex[k].req, "id=t/%d op=%s", k, names[k]);
        put_f32s(&ex[k].req, "x", xs, 6);
        put(&ex[k].want, "id=t/%d", k);
        put_f32s(&ex[k].want, "y", y, 6);
    }
    /* dot, inputs in another order than the table's (P5: any order) */
    const float a[4] = {1e8f, 1.0f, -1e8f, 1.0f}, ones[4] = {1, 1, 1, 1};
    float d = it_dot(a, ones, 4);
    put(&ex[3].req, "id=dot op=dot");
    put_f32s(&ex[3].req, "b", ones, 4);
    put_f32s(&ex[3].req, "a", a, 4);
    put(&ex[3].want, "id=dot");
    put_f32s(&ex[3].want, "y", &d, 1);
    /* softmax forward with an unknown extra key (ignored) */
    const float z[3] = {0.0f, -16.7f, 2.5f};
    float probs[3], loss = it_softmax_xent_forward(z, 3, 2, probs);
    put(&ex[4].req, "id=sx op=softmax_xent_forward");
    put_f32s(&ex[4].req, "z", z, 3);
    put(&ex[4].req, " target=2 comment_for_humans=ignored");
    put(&ex[4].want, "id=sx");
    put_f32s(&ex[4].want, "probs", probs, 3);
    put_f32s(&ex[4].want, "loss", &loss, 1);
    /* linear_backward accumulates into the given dw, db */
    const float w[6] = {1, 2, 3, 4, 5, 6}, x[2] = {0.5f, -0.25f}, dy[3] = {1, -2, 0.125f};
    float dw[6] = {0.5f, 0, 0, 0, 0, -1}, db[3] = {1, 1, 1}, dx[2];
    put(&ex[5].req, "id=lb op=linear_backward in=2 out=3");
    put_f32s(&ex[5].req, "w", w, 6);
    put_f32s(&ex[5].req, "x", x, 2);
    put_f32s(&ex[5].req, "dy", dy, 3);
    put_f32s(&ex[5].req, "dw", dw, 6);
    put_f32s(&ex[5].req, "db", db, 3);
    it_linear_backward(w, x, dy, 2, 3, dw, db, dx);
    put(&ex[5].want, "id=lb");
    put_f32s(&ex[5].want, "dw", dw, 6);
    put_f32s(&ex[5].want, "db", db, 3);
    put_f32s(&ex[5].want, "dx", dx, 2);
    /* embedding_backward: positions in the order given */
    float de[6] = {0, 0, 0, 0, 0, 0};
    const float dout[6] = {1e8f, 1, 1, 1, -1e8f, 2};
    const unsigned char tokens[3] = {2, 0, 2};
    put(&ex[6].req, "id=eb op=embedding_backward dim=2");
    put_f32s(&ex[6].req, "de", de, 6);
    put_bytes_as_ints(&ex[6].req, "tokens", tokens, 3);
    put_f32s(&ex[6].req, "dout", dout, 6);
    for (int p = 0; p < 3; p++)
        it_embedding_backward(de, 2, tokens[p], dout + 2 * p);
    put(&ex[6].want, "id=eb");
    put_f32s(&ex[6].want, "de", de, 6);
    /* the profile: batch, init, rng */
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    unsigned char bx[IT_MLP13K_BATCH], by[IT_MLP13K_BATCH];
    it_mlp13k_batch(&r, 7, bx, by);
    put(&ex[7].req, "id=b op=mlp13k_batch step=7");
    put(&ex[7].want, "id=b");
    put_bytes_as_ints(&ex[7].want, "x", bx, IT_MLP13K_BATCH);
    put_bytes_as_ints(&ex[7].want, "y", by, IT_MLP13K_BATCH);
    static float params[IT_MLP13K_NPARAMS], grads[IT_MLP13K_NPARAMS];
    it_mlp13k_init(&r, params);
    put(&ex[8].req, "id=i op=mlp13k_init tensor=w1");
    put(&ex[8].want, "id=i");
    put_f32s(&ex[8].want, "values", params + IT_MLP13K_OFF_W1, IT_MLP13K_HIDDEN * IT_MLP13K_EMBED);
    uint32_t words[6];
    for (int i = 0; i < 6; i++)
        words[i] = it_rng_u32(r.seed, 5, 3 + (uint64_t)i);
    put(&ex[9].req, "id=r op=rng_u32 seed=%016llx stream=5 index=0000000000000003 count=6",
        (unsigned long long)r.seed);
    put(&ex[9].want, "id=r");
    put_u32s(&ex[9].want, "r", words, 6);
    /* a whole gradient, batch size 5 (scale RN(1/5)) */
    float lg = it_mlp13k_loss_grad(params, bx, by, 5, grads);
    put(&ex[10].req, "id=g op=mlp13k_loss_grad");
    put_f32s(&ex[10].req, "params", params, IT_MLP13K_NPARAMS);
    put_bytes_as_ints(&ex[10].req, "x", bx, 5);
    put_bytes_as_ints(&ex[10].req, "y", by, 5);
    put(&ex[10].want, "id=g");
    put_f32s(&ex[10].want, "loss", &lg, 1);
    put_f32s(&ex[10].want, "grads", grads, IT_MLP13K_NPARAMS);
    /* sweep: P5.1's bytes, NaN canonicalized (log of negatives is NaN) */
    enum { SW = 5000 };
    static unsigned char bytes[4 * SW];
    for (uint32_t i = 0; i < SW; i++) {
        uint32_t u = B(it_logf(F(0xbf800000u - 2500 + i)));
        if ((u & 0x7fffffffu) > 0x7f800000u)
            u = 0x7fc00000u;
        for (int k = 0; k < 4; k++)
            bytes[4 * i + k] = (unsigned char)(u >> (8 * k));
    }
    unsigned char dg[32];
    char hex[65];
    it_sha256(bytes, sizeof bytes, dg);
    it_hex(dg, 32, hex);
    put(&ex[11].req, "id=sw op=sweep fn=log lo=%08x count=%d", 0xbf800000u - 2500, SW);
    put(&ex[11].want, "id=sw sha256=%s", hex);

    sbuf all = {0};
    for (int k = 0; k < N; k++)
        put(&all, "%s\n", ex[k].req.p);
    char *out, *err;
    int st = serve(all.p, all.len, &out, &err);
    cr_assert_eq(st, 0, "exit %d, stderr:\n%s", st, err);
    cr_assert_eq(count_lines(out), N, "%d responses to %d requests; stderr:\n%s", count_lines(out), N, err);
    for (int k = 0; k < N; k++) {
        expect_line(out, k, ex[k].want.p);
        free(ex[k].req.p);
        free(ex[k].want.p);
    }
    cr_assert_str_empty(err, "stderr: %s", err);
    free(all.p);
    free(out);
    free(err);
}

Test(ops, a_sweep_of_nothing_is_refused_and_of_one_input_is_its_digest, .init = test_make_tmpdir,
     .fini = test_remove_tmpdir)
{
    /* P5.1 (1.0.1): count is 1..2^32; 0 would answer the digest of no bytes,
     * a result that checks nothing */
    static const char req[] = "id=0 op=sweep fn=exp lo=ffffffff count=0\n"
                              "id=1 op=sweep fn=exp lo=ffffffff count=1\n";
    char *out, *err;
    cr_assert_eq(serve(req, sizeof req - 1, &out, &err), 0);
    /* SHA-256 of the 4 bytes 00 00 c0 7f (canonical NaN) */
    expect_line(out, 0, "id=0 error=bad-request");
    cr_assert(strstr(err, "input 'count': 0 is too small (at least 1)"), "%s", err);
    unsigned char d[32];
    char hex[65], want[128];
    const unsigned char nan_le[4] = {0x00, 0x00, 0xc0, 0x7f};
    it_sha256(nan_le, 4, d);
    it_hex(d, 32, hex);
    snprintf(want, sizeof want, "id=1 sha256=%s", hex);
    expect_line(out, 1, want);
    free(out);
    free(err);
}

Test(ops, an_unknown_op_is_unsupported, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    static const char req[] = "id=u/1 op=frobnicate x=3f800000\nid=u/2 op=exp x=00000000\n";
    char *out, *err;
    cr_assert_eq(serve(req, sizeof req - 1, &out, &err), 0);
    expect_line(out, 0, "id=u/1 error=unsupported");
    expect_line(out, 1, "id=u/2 y=3f800000");
    cr_assert(strstr(err, "unsupported op 'frobnicate'"), "%s", err);
    free(out);
    free(err);
}

/* A request, the answer it must get (a refusal's whole, else its start),
 * and for a refusal what stderr must say (which also proves that a refusal
 * just inside a range is for another reason than the range). */
typedef struct {
    const char *line, *answer, *why;
} edge;

/* The cases' lines in one session, then `last` (NULL: none) answered
 * `last_answer`: one answer per line, each its case's */
static void serve_cases(const edge *cases, int n, const char *last, const char *last_answer)
{
    sbuf req = {0};
    for (int i = 0; i < n; i++)
        put(&req, "%s\n", cases[i].line);
    if (last)
        put(&req, "%s\n", last);
    char *out, *err;
    int st = serve(req.p, req.len, &out, &err);
    cr_assert_eq(st, 0, "exit %d", st);
    int lines = n + (last != NULL);
    cr_assert_eq(count_lines(out), lines, "%d answers to %d lines:\n%.2000s", count_lines(out), lines, out);
    for (int i = 0; i < n; i++) {
        char *got = line_of(out, i);
        size_t len = strlen(cases[i].answer) + (cases[i].why ? 1 : 0); /* a refusal: its '\0' too */
        cr_assert(got && strncmp(got, cases[i].answer, len) == 0, "'%s'\n got  %.200s\n want %s%s", cases[i].line,
                  got, cases[i].answer, cases[i].why ? "" : "...");
        if (cases[i].why)
            cr_assert(strstr(err, cases[i].why), "stderr does not say '%s' for '%s':\n%s", cases[i].why,
                      cases[i].line, err);
        else
            cr_assert_null(strstr(got, "error="), "'%s' was refused: %s", cases[i].line, got);
        free(got);
    }
    if (last)
        expect_line(out, n, last_answer);
    free(req.p);
    free(out);
    free(err);
}

/* Each malformed request, its answer, and what stderr says. */
static const edge BAD[] = {
    {"id=m1 op=exp x=3f80000", "id=m1 error=bad-request", "input 'x': element 0 has 7 characters"},
    {"id=m2 op=exp", "id=m2 error=bad-request", "missing input 'x'"},
    {"id=m3 op=dot a=3f800000 b=3f800000,3f800000", "id=m3 error=bad-request", "input 'b' has 2 elements, expected 1"},
    {"id=m4 op=softmax_xent_forward z=3f800000 target=1", "id=m4 error=bad-request", "input 'target': 1 is too large (at most 0)"},
    {"id=m5 op=linear_forward in=2 out=1 w=3f800000 b=00000000 x=3f800000,3f800000", "id=m5 error=bad-request",
     "input 'w' has 1 elements, expected 2 (out*in)"},
    {"id=m6 op=linear_forward in=0 out=1 w=3f800000 b=00000000 x=3f800000", "id=m6 error=bad-request", "input 'in': 0 is too small"},
    {"op=exp id=m7 x=3f800000", "id=? error=bad-request", "the first token must be id"},
    {"id=m8 x=3f800000 op=exp", "id=m8 error=bad-request", "the second token must be op"},
    {"id=m9", "id=m9 error=bad-request", "the second token must be op"},
    {"id=m10 op=exp x=3f800000 x=3f800000", "id=m10 error=bad-request", "key 'x' appears twice"},
    {"id=m11 op=sweep fn=tanh lo=00000000 count=1", "id=m11 error=bad-request", "'tanh' cannot be swept"},
    {"id=m12 op=sweep fn=exp lo=ffffffff count=2", "id=m12 error=bad-request", "runs past 2^32"},
    {"id=m13 op=sweep fn=exp lo=00000000 count=4294967297", "id=m13 error=bad-request", "too large"},
    {"id=m14 op=u32_below r=00000001 n=0", "id=m14 error=bad-request", "input 'n': 0 is too small (at least 1)"},
    {"id=m15 op=mlp13k_init tensor=w3", "id=m15 error=bad-request", "'w3' is not a tensor of mlp13k"},
    {"id=m16 op=mlp13k_batch step=0", "id=m16 error=bad-request", "input 'step': 0 is too small"},
    {"id=m17 op=rng_u32 seed=0000000000000000 stream=0 index=ffffffffffffffff count=2", "id=m17 error=bad-request", "past 2^64-1"},
    {"id=m18 op=rng_u32 seed=0 stream=0 index=0000000000000000 count=2", "id=m18 error=bad-request", "exactly 16 hex digits"},
    {"id=m19 op=rng_u32 seed=0000000000000000 stream=0 index=0000000000000000 count=9999999", "id=m19 error=bad-request",
     "would not fit in a 4 MiB response line"},
    {"id=m20 op=embedding_backward dim=2 de=00000000,00000000,00000000 tokens=0 dout=00000000,00000000", "id=m20 error=bad-request",
     "not a multiple of dim=2"},
    {"id=m21 op=embedding_backward dim=1 de=00000000,00000000 tokens=0,2 dout=00000000,00000000", "id=m21 error=bad-request",
     "input 'tokens': element 1: 2 is too large (at most 1)"},
    {"id=m22 op=mlp13k_loss_grad params=3f800000 x=1 y=2", "id=m22 error=bad-request", "expected 13088"},
    {"id=m23 op=exp x=3f800000\r", "id=m23 error=bad-request", "\\r\\n"},
    {"", "id=? error=bad-request", "empty line"},
    {"id=m24 op=Exp x=3f800000", "id=m24 error=bad-request", "has 'E'"},
    {"id=m25 op=philox ctr=00000000 key=00000000,00000000", "id=m25 error=bad-request", "input 'ctr' has 1 elements, expected 4"},
    {"id=m26 op=tanh_backward y=3f800000 dy=", "id=m26 error=bad-request", "input 'dy': empty array"},
    {"id=m27 op=sgd p=3f800000 g=3f800000 lr=3f800000,3f800000", "id=m27 error=bad-request", "input 'lr' has 2 elements, expected 1"},
    {"id=m28 op=softmax_xent_backward probs=3f800000 target=0", "id=m28 error=bad-request", "missing input 'scale'"},
    {"id=m29 op=embedding_forward dim=1 e=3f800000 token=01", "id=m29 error=bad-request", "leading zero"},
    {"id=m30 op=exp x=3f800000 op2", "id=m30 error=bad-request", "no '='"},
};

Test(ops, malformed_requests_get_bad_request_and_the_server_goes_on, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    serve_cases(BAD, (int)(sizeof BAD / sizeof BAD[0]), "id=ok op=exp x=00000000", "id=ok y=3f800000");
}

Test(ops, a_line_over_4_MiB_is_refused_and_the_next_is_served, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    /* a 4 MiB line fits exactly; one byte more does not */
    const char *head_fit = "id=fit op=exp x=3f800000 pad=", *head_big = "id=big op=exp x=3f800000 pad=";
    size_t pad_fit = MAX_LINE - strlen(head_fit);
    size_t total = 2 * (MAX_LINE + 2) + 64;
    char *req = malloc(total), *p = req;
    cr_assert(req);
    p += sprintf(p, "%s", head_fit);
    memset(p, 'a', pad_fit);
    p += pad_fit;
    *p++ = '\n';
    p += sprintf(p, "%s", head_big);
    memset(p, 'a', pad_fit + 1);
    p += pad_fit + 1;
    *p++ = '\n';
    p += sprintf(p, "id=after op=exp x=00000000\n");
    char *out, *err;
    cr_assert_eq(serve(req, (size_t)(p - req), &out, &err), 0);
    expect_line(out, 0, "id=fit y=402df854");
    expect_line(out, 1, "id=big error=bad-request");
    expect_line(out, 2, "id=after y=3f800000");
    cr_assert(strstr(err, "longer than 4 MiB"), "%s", err);
    free(req);
    free(out);
    free(err);
}

Test(ops, end_of_input_ends_the_server, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    char *out, *err;
    cr_assert_eq(serve("", 0, &out, &err), 0, "empty input");
    cr_assert_str_empty(out);
    free(out);
    free(err);
    /* a last line without its newline is answered, then the server exits 0 */
    static const char req[] = "id=1 op=exp x=00000000\nid=2 op=exp x=00000000";
    cr_assert_eq(serve(req, sizeof req - 1, &out, &err), 0);
    expect_line(out, 0, "id=1 y=3f800000");
    expect_line(out, 1, "id=2 error=bad-request");
    cr_assert(strstr(err, "no terminating newline"), "%s", err);
    free(out);
    free(err);
}

/* Reads one line from fd within the time limit (P3: the runner may wait for
 * each answer before it sends the next request, so answers must be flushed). */
static int read_line_within(int fd, char *buf, size_t cap, int ms)
{
    size_t n = 0;
    while (n + 1 < cap) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, ms) != 1)
            return -1;
        ssize_t r = read(fd, buf + n, 1);
        if (r != 1)
            return -1;
        if (buf[n] == '\n') {
            buf[n] = '\0';
            return 0;
        }
        n++;
    }
    return -1;
}

Test(ops, answers_each_request_before_the_next_arrives)
{
    int to_child[2], from_child[2];
    cr_assert(pipe(to_child) == 0 && pipe(from_child) == 0);
    signal(SIGPIPE, SIG_IGN);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "exec %s ops", test_env("IT_CLI"));
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        close(to_child[1]);
        close(from_child[0]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    char line[256];
    const char *reqs[2] = {"id=a op=exp x=3f800000\n", "id=b op=dot a=3f800000 b=40000000\n"};
    const char *want[2] = {"id=a y=402df854", "id=b y=40000000"};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(write(to_child[1], reqs[i], strlen(reqs[i])), (ssize_t)strlen(reqs[i]));
        int got = read_line_within(from_child[0], line, sizeof line, 30000);
        if (got != 0)
            kill(pid, SIGKILL);
        cr_assert_eq(got, 0, "no answer to request %d within 30 s while stdin stays open: not flushed?", i);
        cr_assert_str_eq(line, want[i]);
    }
    close(to_child[1]);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the server did not exit 0 at end of input");
    close(from_child[0]);
}

/* ---- every integer input at its range's edges (P5, 1.0.1) -------------------- */

/* each with its answer and, for a refusal, what stderr says */
static const edge EDGES[] = {
    /* linear_forward / linear_backward: in, out in 1..2^32-1 */
    {"id=e1 op=linear_forward in=0 out=1 w=3f800000 b=00000000 x=3f800000", "id=e1 error=bad-request",
     "input 'in': 0 is too small (at least 1)"},
    {"id=e2 op=linear_forward in=1 out=1 w=3f800000 b=00000000 x=3f800000", "id=e2 y=3f800000", NULL},
    {"id=e3 op=linear_forward in=4294967295 out=1 w=3f800000 b=00000000 x=3f800000", "id=e3 error=bad-request",
     "input 'w' has 1 elements, expected 4294967295"},
    {"id=e4 op=linear_forward in=4294967296 out=1 w=3f800000 b=00000000 x=3f800000", "id=e4 error=bad-request",
     "input 'in': 4294967296 is too large (at most 4294967295)"},
    {"id=e5 op=linear_backward in=1 out=0 w=3f800000 x=3f800000 dy=3f800000 dw=00000000 db=00000000",
     "id=e5 error=bad-request", "input 'out': 0 is too small (at least 1)"},
    {"id=e6 op=linear_backward in=1 out=4294967296 w=3f800000 x=3f800000 dy=3f800000 dw=00000000 db=00000000",
     "id=e6 error=bad-request", "input 'out': 4294967296 is too large"},
    {"id=e7 op=linear_backward in=1 out=1 w=3f800000 x=3f800000 dy=3f800000 dw=00000000 db=00000000",
     "id=e7 dw=3f800000 db=3f800000 dx=3f800000", NULL},
    {"id=e7b op=linear_forward in=1 out=4294967295 w=3f800000 b=00000000 x=3f800000", "id=e7b error=bad-request",
     "input 'w' has 1 elements, expected 4294967295"},
    /* softmax_xent_*: target in 0..n-1 */
    {"id=e8 op=softmax_xent_forward z=3f800000,3f800000,3f800000 target=0", "id=e8 probs=", NULL},
    {"id=e9 op=softmax_xent_forward z=3f800000,3f800000,3f800000 target=2", "id=e9 probs=", NULL},
    {"id=e10 op=softmax_xent_forward z=3f800000,3f800000,3f800000 target=3", "id=e10 error=bad-request",
     "input 'target': 3 is too large (at most 2)"},
    {"id=e11 op=softmax_xent_backward probs=3f000000,3f000000 target=1 scale=3f800000", "id=e11 dz=3f000000,bf000000",
     NULL},
    {"id=e12 op=softmax_xent_backward probs=3f000000,3f000000 target=2 scale=3f800000", "id=e12 error=bad-request",
     "input 'target': 2 is too large (at most 1)"},
    /* embedding_*: dim in 1..2^32-1, token(s) in 0..rows-1 */
    {"id=e13 op=embedding_forward dim=0 e=3f800000 token=0", "id=e13 error=bad-request",
     "input 'dim': 0 is too small (at least 1)"},
    {"id=e14 op=embedding_forward dim=1 e=3f800000,40000000 token=0", "id=e14 out=3f800000", NULL},
    {"id=e15 op=embedding_forward dim=1 e=3f800000,40000000 token=1", "id=e15 out=40000000", NULL},
    {"id=e16 op=embedding_forward dim=1 e=3f800000,40000000 token=2", "id=e16 error=bad-request",
     "input 'token': 2 is too large (at most 1)"},
    {"id=e17 op=embedding_forward dim=4294967296 e=3f800000 token=0", "id=e17 error=bad-request",
     "input 'dim': 4294967296 is too large"},
    {"id=e17b op=embedding_forward dim=4294967295 e=3f800000 token=0", "id=e17b error=bad-request",
     "not a multiple of dim=4294967295"},
    {"id=e17c op=embedding_backward dim=4294967296 de=00000000 tokens=0 dout=3f800000", "id=e17c error=bad-request",
     "input 'dim': 4294967296 is too large"},
    {"id=e18 op=embedding_backward dim=1 de=00000000,00000000 tokens=0,1,0 dout=3f800000,40000000,3f800000",
     "id=e18 de=40000000,40000000", NULL},
    {"id=e19 op=embedding_backward dim=1 de=00000000,00000000 tokens=1,2 dout=3f800000,3f800000",
     "id=e19 error=bad-request", "input 'tokens': element 1: 2 is too large (at most 1)"},
    {"id=e20 op=embedding_backward dim=0 de=00000000 tokens=0 dout=3f800000", "id=e20 error=bad-request",
     "input 'dim': 0 is too small"},
    /* rng_u32: stream in 0..2^32-1, count in 1..2^32-1, index+count-1 <= 2^64-1 */
    {"id=e21 op=rng_u32 seed=0000000000000000 stream=4294967295 index=0000000000000000 count=1", "id=e21 r=", NULL},
    {"id=e22 op=rng_u32 seed=0000000000000000 stream=4294967296 index=0000000000000000 count=1",
     "id=e22 error=bad-request", "input 'stream': 4294967296 is too large (at most 4294967295)"},
    {"id=e23 op=rng_u32 seed=0000000000000000 stream=0 index=0000000000000000 count=0", "id=e23 error=bad-request",
     "input 'count': 0 is too small (at least 1)"},
    {"id=e24 op=rng_u32 seed=0000000000000000 stream=0 index=fffffffffffffffe count=2", "id=e24 r=", NULL},
    {"id=e25 op=rng_u32 seed=0000000000000000 stream=0 index=fffffffffffffffe count=3", "id=e25 error=bad-request",
     "past 2^64-1"},
    {"id=e26 op=rng_u32 seed=0000000000000000 stream=0 index=0000000000000000 count=4294967296",
     "id=e26 error=bad-request", "input 'count': 4294967296 is too large (at most 4294967295)"},
    {"id=e27 op=rng_u32 seed=0000000000000000 stream=0 index=0000000000000000 count=4294967295",
     "id=e27 error=bad-request", "would not fit in a 4 MiB response line"},
    /* u32_below: n in 1..2^32-1 */
    {"id=e28 op=u32_below r=ffffffff n=1", "id=e28 k=00000000", NULL},
    {"id=e29 op=u32_below r=ffffffff n=4294967295", "id=e29 k=fffffffe", NULL},
    {"id=e30 op=u32_below r=ffffffff n=4294967296", "id=e30 error=bad-request",
     "input 'n': 4294967296 is too large (at most 4294967295)"},
    /* mlp13k_batch: step in 1..2^32-1 */
    {"id=e31 op=mlp13k_batch step=1", "id=e31 x=110,108,99,101,101,114,", NULL},
    {"id=e32 op=mlp13k_batch step=4294967295", "id=e32 x=", NULL},
    {"id=e33 op=mlp13k_batch step=4294967296", "id=e33 error=bad-request",
     "input 'step': 4294967296 is too large (at most 4294967295)"},
    /* sweep: count in 1..2^32 (2^32 is the vectors' whole-function sweep),
     * lo + count <= 2^32 */
    {"id=e34 op=sweep fn=log lo=00000000 count=4294967297", "id=e34 error=bad-request",
     "input 'count': 4294967297 is too large (at most 4294967296)"},
    {"id=e35 op=sweep fn=log lo=00000001 count=4294967296", "id=e35 error=bad-request", "runs past 2^32"},
    {"id=e36 op=sweep fn=log lo=fffffffe count=2", "id=e36 sha256=", NULL},
    /* P4: an int has no leading zeros, no sign; "0" is zero */
    {"id=e37 op=u32_below r=ffffffff n=01", "id=e37 error=bad-request", "input 'n': '01' has a leading zero"},
    {"id=e38 op=embedding_forward dim=1 e=3f800000 token=00", "id=e38 error=bad-request", "leading zero"},
    {"id=e39 op=u32_below r=ffffffff n=+1", "id=e39 error=bad-request", "'+' at byte 0 is not a decimal digit"},
    /* P4: hex digits in a request may be upper or lower case, even mixed */
    {"id=e40 op=exp x=3F800000,3f800000", "id=e40 y=402df854,402df854", NULL},
    {"id=e41 op=rng_u32 seed=69736F747261696e stream=0 index=0000000000000000 count=1", "id=e41 r=cdbd248c", NULL},
    {"id=e42 op=exp x=3f80000G", "id=e42 error=bad-request", "'G' is not a hex digit"},
    /* P3: no key twice, unknown keys included; unknown keys once are ignored */
    {"id=e43 op=exp x=3f800000 note=a note=b", "id=e43 error=bad-request", "key 'note' appears twice"},
    {"id=e44 op=exp x=3f800000 note=a", "id=e44 y=402df854", NULL},
    /* P3 (1.1.0): a syntax error is bad-request even for an op nobody implements */
    {"id=e45 op=frobnicate a=1 a=2", "id=e45 error=bad-request", "key 'a' appears twice"},
    /* P3 (1.1.1): an empty value is valid syntax; no P4 type is empty, so it
     * is malformed as an input of a known op, ignored as an unknown key, and
     * unchecked for an op the IUT does not implement */
    {"id=e46 op=exp x=3f800000 note=", "id=e46 y=402df854", NULL},
    {"id=e47 op=exp x=", "id=e47 error=bad-request", "input 'x': empty array"},
    {"id=e48 op=frobnicate x=", "id=e48 error=unsupported", "unsupported op 'frobnicate'"},
    {"id=e49 op=", "id=e49 error=bad-request", "empty name"},
    {"id= op=exp x=3f800000", "id=? error=bad-request", "the first token must be id"},
    /* P3 (1.1.1): an id followed by \r is not readable (the \r is neither a
     * space nor the end of the line): id=?; with a space after the id it is */
    {"id=e50\r", "id=? error=bad-request", "\\r\\n"},
    {"id=e51 op=exp x=3f800000\r", "id=e51 error=bad-request", "\\r\\n"},
};

Test(ops, every_integer_input_is_refused_just_outside_its_range, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    serve_cases(EDGES, (int)(sizeof EDGES / sizeof EDGES[0]), NULL, NULL);
}

Test(ops, mlp13k_loss_grad_takes_bytes_0_to_255, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    static float params[IT_MLP13K_NPARAMS], grads[IT_MLP13K_NPARAMS];
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    it_mlp13k_init(&r, params);
    const unsigned char x[2] = {0, 255}, y[2] = {255, 0};
    float loss = it_mlp13k_loss_grad(params, x, y, 2, grads);
    sbuf req = {0}, want = {0};
    const char *xy[3] = {"x=0,255 y=255,0", "x=0,256 y=255,0", "x=0,255 y=255,256"};
    for (int k = 0; k < 3; k++) {
        put(&req, "id=g%d op=mlp13k_loss_grad", k);
        put_f32s(&req, "params", params, IT_MLP13K_NPARAMS);
        put(&req, " %s\n", xy[k]);
    }
    put(&want, "id=g0");
    put_f32s(&want, "loss", &loss, 1);
    put_f32s(&want, "grads", grads, IT_MLP13K_NPARAMS);
    char *out, *err;
    cr_assert_eq(serve(req.p, req.len, &out, &err), 0);
    expect_line(out, 0, want.p);
    expect_line(out, 1, "id=g1 error=bad-request");
    expect_line(out, 2, "id=g2 error=bad-request");
    cr_assert(strstr(err, "input 'x': element 1: 256 is too large (at most 255)"), "%s", err);
    cr_assert(strstr(err, "input 'y': element 1: 256 is too large (at most 255)"), "%s", err);
    free(req.p);
    free(want.p);
    free(out);
    free(err);
}

/* P3/P5: the largest rng_u32 answer is exactly the 4 MiB cap, counting the
 * echoed id; one word more is refused, never answered with a longer line. */
Test(ops, rng_u32_answers_up_to_exactly_the_line_cap, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    const char *ids[2] = {"r", "a-longer-case-id/rng_u32/0017"};
    sbuf req = {0};
    uint64_t most[2];
    for (int k = 0; k < 2; k++) {
        most[k] = (MAX_LINE - 5 - strlen(ids[k])) / 9; /* 9*count + len(id) + 5 <= 4 MiB */
        put(&req, "id=%s op=rng_u32 seed=0000000000000001 stream=2 index=0000000000000003 count=%llu\n", ids[k],
            (unsigned long long)most[k]);
        put(&req, "id=%s op=rng_u32 seed=0000000000000001 stream=2 index=0000000000000003 count=%llu\n", ids[k],
            (unsigned long long)most[k] + 1);
    }
    char *out, *err;
    cr_assert_eq(serve(req.p, req.len, &out, &err), 0);
    for (int k = 0; k < 2; k++) {
        char *fit = line_of(out, 2 * k), *over = line_of(out, 2 * k + 1), want[96];
        cr_assert(fit && over);
        cr_assert_eq(strlen(fit), 9 * most[k] + strlen(ids[k]) + 5);
        cr_assert_leq(strlen(fit), MAX_LINE, "a %zu-byte line", strlen(fit));
        cr_assert_gt(strlen(fit) + 9, MAX_LINE, "count %llu is not the largest that fits",
                     (unsigned long long)most[k]);
        snprintf(want, sizeof want, "id=%s r=", ids[k]);
        cr_assert(strncmp(fit, want, strlen(want)) == 0);
        /* the last word is word index+count-1 of the stream */
        char last[9];
        snprintf(last, sizeof last, "%08x", (unsigned)it_rng_u32(1, 2, 3 + most[k] - 1));
        cr_assert_str_eq(fit + strlen(fit) - 8, last);
        snprintf(want, sizeof want, "id=%s error=bad-request", ids[k]);
        cr_assert_str_eq(over, want);
        free(fit);
        free(over);
    }
    cr_assert(strstr(err, "would not fit in a 4 MiB response line"), "%s", err);
    free(req.p);
    free(out);
    free(err);
}

/* P3 (1.1.0): an id is 1 to 256 bytes; a longer one is not echoed, so no
 * error line can approach the cap, even for a line over 4 MiB that is all id. */
Test(ops, ids_up_to_256_bytes_are_echoed_and_longer_ones_are_not, .init = test_make_tmpdir,
     .fini = test_remove_tmpdir)
{
    char id256[257], id257[258];
    memset(id256, 'i', 256);
    id256[256] = '\0';
    memset(id257, 'j', 257);
    id257[257] = '\0';
    sbuf req = {0};
    put(&req, "id=%s op=exp x=3f800000\n", id256);
    put(&req, "id=%s op=exp x=3f800000\n", id257);
    put(&req, "id=%s op=exp x=3f8\n", id257);
    /* over 4 MiB: once with a short id, once all id */
    put(&req, "id=long op=exp x=3f800000 pad=");
    for (size_t i = 0; i < MAX_LINE; i++)
        put(&req, "p");
    put(&req, "\nid=");
    for (size_t i = 0; i < MAX_LINE + 10; i++)
        put(&req, "q");
    put(&req, "\nid=after op=exp x=00000000\n");
    char *out, *err, want[300];
    cr_assert_eq(serve(req.p, req.len, &out, &err), 0);
    snprintf(want, sizeof want, "id=%s y=402df854", id256);
    expect_line(out, 0, want);
    expect_line(out, 1, "id=? error=bad-request");
    expect_line(out, 2, "id=? error=bad-request");
    expect_line(out, 3, "id=long error=bad-request");
    expect_line(out, 4, "id=? error=bad-request");
    expect_line(out, 5, "id=after y=3f800000");
    cr_assert_eq(count_lines(out), 6);
    cr_assert(strstr(err, "the id has 257 bytes (at most 256)"), "%s", err);
    cr_assert(strstr(err, "longer than 4 MiB"), "%s", err);
    free(req.p);
    free(out);
    free(err);
}

/* P3: parsing is linear in the line; the duplicate-key check used to be
 * pairwise (about 284 s for this line). The bound is loose on purpose: it
 * tells O(n log n) from O(n^2), not a fast machine from a slow one. */
Test(ops, a_4_MiB_request_of_400k_distinct_keys_is_answered_in_seconds, .init = test_make_tmpdir,
     .fini = test_remove_tmpdir)
{
    sbuf req = {0};
    put(&req, "id=many op=exp x=3f800000");
    size_t keys = 0;
    while (req.len + 10 + 10 <= MAX_LINE) { /* room for the repeated key below */
        uint32_t v = (uint32_t)(keys * 2654435761u) % 308915776u; /* distinct for keys < 26^6 */
        char key[8];
        key[0] = 'k';
        for (int i = 6; i >= 1; i--, v /= 26)
            key[i] = (char)('a' + v % 26);
        key[7] = '\0';
        put(&req, " %s=v", key);
        keys++;
    }
    cr_assert_geq(keys, 300000);
    size_t one = req.len;
    put(&req, "\n");
    /* the same request again with its first extra key repeated at its end
     * (put may move req.p, so it never reads from req itself) */
    char *first = strndup(req.p, one);
    cr_assert(first);
    first[5] = 'd'; /* id=many -> id=mady */
    put(&req, "%s %.7s=w\n", first, first + 26);
    free(first);
    cr_assert_leq(req.len - one - 2, MAX_LINE, "the second request must fit in a line");
    struct timespec a, b;
    char *out, *err;
    timespec_get(&a, TIME_UTC);
    cr_assert_eq(serve(req.p, req.len, &out, &err), 0);
    timespec_get(&b, TIME_UTC);
    double s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    expect_line(out, 0, "id=many y=402df854");
    expect_line(out, 1, "id=mady error=bad-request");
    char want[64];
    snprintf(want, sizeof want, "key '%.7s' appears twice", req.p + 26);
    cr_assert(strstr(err, want), "stderr does not say %s:\n%.300s", want, err);
    cr_assert_lt(s, 10.0, "two requests of %zu keys took %.1f s", keys, s);
    free(req.p);
    free(out);
    free(err);
}
