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

Test(ops, sweep_of_nothing_is_the_empty_digest, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    static const char req[] = "id=0 op=sweep fn=exp lo=ffffffff count=0\n"
                              "id=1 op=sweep fn=exp lo=ffffffff count=1\n";
    char *out, *err;
    cr_assert_eq(serve(req, sizeof req - 1, &out, &err), 0);
    /* SHA-256 of zero bytes, and of the 4 bytes 00 00 c0 7f (canonical NaN) */
    expect_line(out, 0, "id=0 sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
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

/* Each malformed request, the id its answer carries, and what stderr says. */
static const struct {
    const char *line, *id, *why;
} BAD[] = {
    {"id=m1 op=exp x=3f80000", "m1", "input 'x': element 0 has 7 characters"},
    {"id=m2 op=exp", "m2", "missing input 'x'"},
    {"id=m3 op=dot a=3f800000 b=3f800000,3f800000", "m3", "input 'b' has 2 elements, expected 1"},
    {"id=m4 op=softmax_xent_forward z=3f800000 target=1", "m4", "input 'target': 1 is too large (at most 0)"},
    {"id=m5 op=linear_forward in=2 out=1 w=3f800000 b=00000000 x=3f800000,3f800000", "m5",
     "input 'w' has 1 elements, expected 2 (out*in)"},
    {"id=m6 op=linear_forward in=0 out=1 w=3f800000 b=00000000 x=3f800000", "m6", "input 'in': 0 is too small"},
    {"op=exp id=m7 x=3f800000", "?", "the first token must be id"},
    {"id=m8 x=3f800000 op=exp", "m8", "the second token must be op"},
    {"id=m9", "m9", "the second token must be op"},
    {"id=m10 op=exp x=3f800000 x=3f800000", "m10", "key 'x' appears twice"},
    {"id=m11 op=sweep fn=tanh lo=00000000 count=1", "m11", "'tanh' cannot be swept"},
    {"id=m12 op=sweep fn=exp lo=ffffffff count=2", "m12", "runs past 2^32"},
    {"id=m13 op=sweep fn=exp lo=00000000 count=4294967297", "m13", "too large"},
    {"id=m14 op=u32_below r=00000001 n=0", "m14", "input 'n': 0 is too small (at least 1)"},
    {"id=m15 op=mlp13k_init tensor=w3", "m15", "'w3' is not a tensor of mlp13k"},
    {"id=m16 op=mlp13k_batch step=0", "m16", "input 'step': 0 is too small"},
    {"id=m17 op=rng_u32 seed=0000000000000000 stream=0 index=ffffffffffffffff count=2", "m17", "past 2^64-1"},
    {"id=m18 op=rng_u32 seed=0 stream=0 index=0000000000000000 count=2", "m18", "exactly 16 hex digits"},
    {"id=m19 op=rng_u32 seed=0000000000000000 stream=0 index=0000000000000000 count=9999999", "m19",
     "would not fit in a 4 MiB response line"},
    {"id=m20 op=embedding_backward dim=2 de=00000000,00000000,00000000 tokens=0 dout=00000000,00000000", "m20",
     "not a multiple of dim=2"},
    {"id=m21 op=embedding_backward dim=1 de=00000000,00000000 tokens=0,2 dout=00000000,00000000", "m21",
     "input 'tokens': element 1: 2 is too large (at most 1)"},
    {"id=m22 op=mlp13k_loss_grad params=3f800000 x=1 y=2", "m22", "expected 13088"},
    {"id=m23 op=exp x=3f800000\r", "m23", "\\r\\n"},
    {"", "?", "empty line"},
    {"id=m24 op=Exp x=3f800000", "m24", "has 'E'"},
    {"id=m25 op=philox ctr=00000000 key=00000000,00000000", "m25", "input 'ctr' has 1 elements, expected 4"},
    {"id=m26 op=tanh_backward y=3f800000 dy=", "m26", "input 'dy': empty array"},
    {"id=m27 op=sgd p=3f800000 g=3f800000 lr=3f800000,3f800000", "m27", "input 'lr' has 2 elements, expected 1"},
    {"id=m28 op=softmax_xent_backward probs=3f800000 target=0", "m28", "missing input 'scale'"},
    {"id=m29 op=embedding_forward dim=1 e=3f800000 token=01", "m29", "leading zero"},
    {"id=m30 op=exp x=3f800000 op2", "m30", "no '='"},
};

Test(ops, malformed_requests_get_bad_request_and_the_server_goes_on, .init = test_make_tmpdir, .fini = test_remove_tmpdir)
{
    const int n = (int)(sizeof BAD / sizeof BAD[0]);
    sbuf req = {0};
    for (int i = 0; i < n; i++)
        put(&req, "%s\n", BAD[i].line);
    put(&req, "id=ok op=exp x=00000000\n");
    char *out, *err;
    int st = serve(req.p, req.len, &out, &err);
    cr_assert_eq(st, 0, "exit %d", st);
    cr_assert_eq(count_lines(out), n + 1, "%d answers to %d lines:\n%s", count_lines(out), n + 1, out);
    for (int i = 0; i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, "id=%s error=bad-request", BAD[i].id);
        expect_line(out, i, want);
        cr_assert(strstr(err, BAD[i].why), "stderr does not say '%s' for '%s':\n%s", BAD[i].why, BAD[i].line, err);
    }
    expect_line(out, n, "id=ok y=3f800000");
    free(req.p);
    free(out);
    free(err);
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
