/* testutil.c — see testutil.h. */
#include "testutil.h"
#include "trust/dsse.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "isotrain.h"
#include "protocol/iut_keeper.h"
#include "protocol/iut_process.h"
#include "vectorset/manifest.h"
#include "core/util.h"

const char *tu_env(const char *name)
{
    const char *v = getenv(name);
    cr_assert(v && *v, "environment variable %s is not set (run the tests through make test-conformance)", name);
    return v;
}

/* Every directory tu_tmpdir made in this process, removed when the process
 * exits: a test that fails half-way, or forgets its own clean-up, still
 * leaves nothing in the build tree (make test's check-leftovers fails on
 * anything left). Only the process that made a directory removes it: a
 * forked child that exits must not take its parent's files. */
enum { TU_MAX_DIRS = 64 };
static char *made_dirs[TU_MAX_DIRS];
static size_t n_made_dirs;
static pid_t made_by;

static void remove_made_dirs(void)
{
    if (getpid() != made_by)
        return;
    for (size_t i = 0; i < n_made_dirs; i++)
        remove_tree(made_dirs[i]);
}

char *tu_tmpdir(void)
{
    char err[256];
    char *d = make_temp_dir("conform-test", err, sizeof err);
    cr_assert(d, "%s", err);
    if (made_by != getpid()) { /* first in this process (a test is a fork) */
        made_by = getpid();
        n_made_dirs = 0;
        static int registered;
        if (!registered++)
            atexit(remove_made_dirs);
    }
    cr_assert(n_made_dirs < TU_MAX_DIRS, "tu_tmpdir: more than %d directories in one test", TU_MAX_DIRS);
    made_dirs[n_made_dirs++] = xstrdup(d);
    return d;
}

void tu_rmtree(const char *dir)
{
    remove_tree(dir);
}

/* A command a test runs may take this long before the test fails as hung:
 * the full certifications of the versions suite took over 120 s under a
 * load of 10 at nice 19 (two failed at the old 120 s bound), 20-40 s idle. */
static const double TU_COMMAND_DEADLINE_S = 300.0;

static tu_result run_cmd(const char *cmd, const char *verb, const char **args, size_t n)
{
    contain_init();
    iut_result r;
    char err[256];
    cr_assert(iut_run(cmd, verb, args, n, NULL, TU_COMMAND_DEADLINE_S, 1, 64u << 20, NULL, NULL, &r, err, sizeof err) == 0, "%s", err);
    tu_result t;
    t.code = r.exit_code;
    t.signal = r.signal;
    t.out = xstrdup(r.out ? r.out : "");
    t.err = xstrdup(r.err_tail ? r.err_tail : "");
    t.seconds = r.seconds;
    cr_assert(!r.timed_out, "timed out: %s %s", cmd, verb);
    iut_result_free(&r);
    return t;
}

/* The verdict word of the closing line "N passed, N failed[, N skipped
 * (why; why)]; VERDICT[ (full certification)][: reasons]", or "" if there
 * is none: the first "; " outside the parentheses ends the counts. */
static void closing_verdict(const char *out, char *word, size_t cap)
{
    word[0] = '\0';
    const char *line = NULL;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *q = p;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q > p && !strncmp(q, " passed, ", 9))
            line = p;
    }
    const char *semi = NULL;
    int depth = 0;
    for (const char *q = line; q && *q && *q != '\n' && !semi; q++) {
        depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
        if (depth == 0 && q[0] == ';' && q[1] == ' ')
            semi = q;
    }
    if (!semi)
        return;
    semi += 2;
    size_t n = strcspn(semi, ": (\n");
    if (!strncmp(semi + n, " (recipe sha256:", 16)) /* a recipe's PASS names its recipe */
        n += strcspn(semi + n, ")\n") + 1;
    snprintf(word, cap, "%.*s", (int)n, semi);
}

/* Property of every receipt the runner writes (issue 16 §2): `verify`
 * accepts it (unsigned, so with --allow-unsigned) and recomputes the very
 * verdict the run printed; a REPRODUCTION verifies but is said to be no
 * certification evidence (exit 1). */
static void check_receipt_property(const char *receipt, const char *vectors, const tu_result *run)
{
    char word[96];
    closing_verdict(run->out, word, sizeof word);
    cr_assert(word[0], "the run printed no closing line:\n%s", run->out);
    struct stat st;
    cr_assert(stat(receipt, &st) == 0, "the run (exit %d, %s) wrote no receipt %s", run->code, word, receipt);
    const char *args[8];
    size_t n = 0;
    args[n++] = "--allow-unsigned";
    if (vectors) {
        args[n++] = "--vectors";
        args[n++] = vectors;
    }
    args[n++] = receipt;
    char *cmd = xasprintf("'%s'", tu_env("IT_CONFORM"));
    contain_init();
    iut_result r;
    char err[256];
    cr_assert(iut_run(cmd, "verify", args, n, NULL, TU_COMMAND_DEADLINE_S, 1, 16u << 20, NULL, NULL, &r, err, sizeof err) == 0, "%s", err);
    free(cmd);
    char *want = !strcmp(word, "REPRODUCTION") ? xasprintf(": NOT CERTIFICATION EVIDENCE: verdict REPRODUCTION recomputed")
                                               : xasprintf(": OK: verdict %s recomputed", word);
    int code_ok = !strcmp(word, "REPRODUCTION") ? r.exit_code == 1 : r.exit_code == 0;
    cr_assert(code_ok && r.out && strstr(r.out, want),
              "the runner's own receipt does not verify as its printed verdict %s (verify exit %d):\n%s\n%s", word,
              r.exit_code, r.out ? r.out : "", r.err_tail ? r.err_tail : "");
    free(want);
    iut_result_free(&r);
}

/* Runs IT_CONFORM arg0, then the npre arguments pre, then those of ap. */
static tu_result conform_v(const char *arg0, const char *const *pre, size_t npre, va_list ap)
{
    const char *args[72];
    size_t n = 0;
    const char *a;
    /* a run writes a receipt, always: into a file of our own if the test
     * does not name one (the option goes first, before any "--") */
    int is_run = !strcmp(arg0, "run"), has_receipt = 0, signs = 0;
    const char *vectors = NULL, *receipt = NULL;
    char *own_dir = NULL, *own_receipt = NULL;
    if (is_run) {
        args[n++] = "--receipt";
        args[n++] = NULL; /* filled below */
    }
    int after_dashdash = 0;
    size_t k = 0;
    while ((a = k < npre ? pre[k++] : va_arg(ap, const char *)) != NULL && n < 64) {
        if (!after_dashdash && !strcmp(a, "--"))
            after_dashdash = 1;
        if (is_run && !after_dashdash && n >= 3) {
            if (!strcmp(args[n - 1], "--receipt"))
                has_receipt = 1, receipt = a;
            else if (!strcmp(args[n - 1], "--vectors"))
                vectors = a;
            else if (!strcmp(a, "--sign-key"))
                signs = 1;
        }
        args[n++] = a;
    }
    const char *const *argv = args;
    size_t argc = n;
    if (is_run && has_receipt) {
        argv = args + 2; /* the test's own --receipt */
        argc = n - 2;
    } else if (is_run) {
        own_dir = tu_tmpdir();
        own_receipt = xasprintf("%s/receipt.json", own_dir);
        args[1] = own_receipt;
        receipt = own_receipt;
    }
    char *cmd = xasprintf("'%s'", tu_env("IT_CONFORM"));
    tu_result r = run_cmd(cmd, arg0, (const char **)argv, argc);
    free(cmd);
    /* the property, for every run that got as far as a verdict (exit 2:
     * refused before anything ran; a signed one: the test checks its key) */
    if (is_run && r.code != 2 && r.signal == 0 && !signs)
        check_receipt_property(receipt, vectors, &r);
    if (own_dir) {
        tu_rmtree(own_dir);
        free(own_dir);
        free(own_receipt);
    }
    return r;
}

tu_result tu_conform(const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    tu_result r = conform_v(arg0, NULL, 0, ap);
    va_end(ap);
    return r;
}

static void free_row_indices(struct criterion_test_params *p)
{
    cr_free(p->params);
}

struct criterion_test_params tu_row_indices(size_t n)
{
    size_t *rows = cr_malloc(n * sizeof *rows);
    for (size_t i = 0; i < n; i++)
        rows[i] = i;
    return cr_make_param_array(size_t, rows, n, free_row_indices);
}

tu_result tu_run_script(const char *script, const char *vectors, ...)
{
    char *iut = tu_iut(script);
    const char *const pre[] = {"--iut-exec", iut, "--vectors", vectors};
    va_list ap;
    va_start(ap, vectors);
    tu_result r = conform_v("run", pre, sizeof pre / sizeof *pre, ap);
    va_end(ap);
    free(iut);
    return r;
}

void tu_conform_exits(int code, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    tu_result r = conform_v(arg0, NULL, 0, ap);
    va_end(ap);
    cr_assert_eq(r.code, code, "%s: exit %d, expected %d\n%s%s", arg0, r.code, code, r.out, r.err);
    tu_result_free(&r);
}

void tu_conform_says(int code, int on_err, const char *says, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    tu_result r = conform_v(arg0, NULL, 0, ap);
    va_end(ap);
    cr_assert_eq(r.code, code, "%s: exit %d, expected %d\n%s%s", arg0, r.code, code, r.out, r.err);
    tu_assert_has(on_err ? r.err : r.out, says);
    tu_result_free(&r);
}

tu_result tu_sh(const char *cmdline)
{
    char *c = xasprintf("%s #", cmdline); /* comments out the "$@" P1 appends */
    tu_result r = run_cmd(c, "", NULL, 0);
    free(c);
    return r;
}

void tu_result_free(tu_result *r)
{
    free(r->out);
    free(r->err);
}

char *tu_at(const char *dir, const char *name)
{
    return xasprintf("%s/%s", dir, name);
}

void tu_put(const char *dir, const char *name, const char *text, int mode)
{
    char *p = tu_at(dir, name);
    char err[256];
    make_parent_dirs(p);
    cr_assert(write_file(p, text, strlen(text), err, sizeof err) == 0, "%s", err);
    if (mode)
        cr_assert(chmod(p, (mode_t)mode) == 0, "chmod %s", p);
    free(p);
}

void tu_sh_ok(const char *cmdline)
{
    tu_result s = tu_sh(cmdline);
    cr_assert_eq(s.code, 0, "%s: %s%s", cmdline, s.out, s.err);
    tu_result_free(&s);
}

char *tu_sh_line(const char *cmdline)
{
    tu_result s = tu_sh(cmdline);
    cr_assert_eq(s.code, 0, "%s: %s%s", cmdline, s.out, s.err);
    char *line = xstrndup(s.out, strcspn(s.out, "\n"));
    tu_result_free(&s);
    return line;
}

long tu_read_pid(const char *dir, const char *name)
{
    char *p = tu_at(dir, name);
    FILE *f = fopen(p, "r");
    free(p);
    long pid = -1;
    if (f) {
        if (fscanf(f, "%ld", &pid) != 1)
            pid = -1;
        fclose(f);
    }
    return pid;
}

char *tu_iut(const char *script)
{
    return tu_at(tu_env("IT_IUTS"), script);
}

struct cJSON *tu_receipt_json(const char *path)
{
    char *t = tu_read(path);
    problems pr;
    problems_init(&pr);
    dsse_opened o;
    cr_assert(dsse_open(path, t, strlen(t), &o, &pr) == 0, "%s: not a DSSE envelope: %s", path,
              pr.n ? pr.items[0] : "?");
    cJSON *r = cJSON_Duplicate(o.receipt, 1);
    dsse_opened_free(&o);
    problems_free(&pr);
    free(t);
    return r;
}

char *tu_read(const char *path)
{
    char *d;
    size_t n;
    char err[256];
    cr_assert(read_file(path, 256u << 20, &d, &n, err, sizeof err) == 0, "%s", err);
    return d;
}

static void write_json(const char *path, cJSON *root)
{
    char *text = cJSON_Print(root);
    sbuf b;
    sbuf_init(&b);
    sbuf_adds(&b, text);
    sbuf_addc(&b, '\n');
    char err[256];
    cr_assert(write_file(path, b.p, b.len, err, sizeof err) == 0, "%s", err);
    sbuf_free(&b);
    free(text);
    cJSON_Delete(root);
}

static char *hex_f32(const float *x, size_t n)
{
    sbuf b;
    sbuf_init(&b);
    for (size_t i = 0; i < n; i++)
        sbuf_printf(&b, "%s%08x", i ? "," : "", (unsigned)it_f32_bits(x[i]));
    return sbuf_take(&b);
}

/* the version the fixture's files and manifest carry (tu_fixture_version) */
static const char *fixture_version = "1.0.0";

static cJSON *op_file(const char *group, const char *clause, const char *const *flags, const char *const *notes,
                      size_t n_notes)
{
    (void)flags;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "schema", "isotrain-op-vectors-v1");
    cJSON_AddStringToObject(r, "spec_version", fixture_version);
    cJSON_AddStringToObject(r, "vector_version", fixture_version);
    cJSON_AddStringToObject(r, "group", group);
    cJSON_AddStringToObject(r, "spec_clause", clause);
    cJSON_AddStringToObject(r, "generator", "conformance/tests fixture");
    cJSON *no = cJSON_AddObjectToObject(r, "notes");
    for (size_t i = 0; i < n_notes; i++)
        cJSON_AddStringToObject(no, notes[2 * i], notes[2 * i + 1]);
    return r;
}

static void add_case(cJSON *tests, const char *comment, const char *flag, const char *op, const char *const *in,
                     size_t n_in, const char *const *out, size_t n_out)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddNumberToObject(t, "tc_id", cJSON_GetArraySize(tests) + 1);
    cJSON_AddStringToObject(t, "comment", comment);
    cJSON *f = cJSON_AddArrayToObject(t, "flags");
    if (flag)
        cJSON_AddItemToArray(f, cJSON_CreateString(flag));
    cJSON_AddStringToObject(t, "op", op);
    cJSON *i = cJSON_AddObjectToObject(t, "inputs");
    for (size_t k = 0; k < n_in; k++)
        cJSON_AddStringToObject(i, in[2 * k], in[2 * k + 1]);
    cJSON *o = cJSON_AddObjectToObject(t, "outputs");
    for (size_t k = 0; k < n_out; k++)
        cJSON_AddStringToObject(o, out[2 * k], out[2 * k + 1]);
    cJSON_AddItemToArray(tests, t);
}

static void finish_ops(const char *dir, const char *group, cJSON *r, cJSON *tests)
{
    cJSON_AddNumberToObject(r, "number_of_tests", cJSON_GetArraySize(tests));
    cJSON_AddItemToObject(r, "tests", tests);
    char *p = xasprintf("%s/ops/%s.json", dir, group);
    write_json(p, r);
    free(p);
}

/* P5.1: the SHA-256 of fn over [lo, lo+count), NaN written as 0x7fc00000. */
static void sweep_digest(const char *fn, uint32_t lo, uint32_t count, char hex[65])
{
    it_sha256_ctx c;
    it_sha256_init(&c);
    for (uint32_t i = 0; i < count; i++) {
        float x = it_f32_from_bits(lo + i);
        float y = fn[0] == 'e' ? it_expf(x) : it_logf(x);
        uint32_t u = it_f32_bits(y);
        if ((u & 0x7fffffffu) > 0x7f800000u)
            u = 0x7fc00000u;
        unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                              (unsigned char)(u >> 24)};
        it_sha256_update(&c, b, 4);
    }
    unsigned char d[32];
    it_sha256_final(&c, d);
    it_hex(d, 32, hex);
}

static void fixture_ops(const char *dir)
{
    static const char *const exp_notes[] = {"SpecialValue", "exact special results", "Typical", "ordinary values",
                                            "Quick", "a sweep run by default", "Chunk", "a sweep run with --exhaustive"};
    cJSON *r = op_file("exp", "3.2", NULL, exp_notes, 4);
    cJSON *tests = cJSON_CreateArray();
    {
        const char *in[] = {"x", "00000000"}, *out[] = {"y", "3f800000"};
        add_case(tests, "exp(+0) is exactly 1", "SpecialValue", "exp", in, 1, out, 1);
    }
    {
        float x[4] = {0.5f, -1.0f, 3.25f, -20.0f}, y[4];
        for (int i = 0; i < 4; i++)
            y[i] = it_expf(x[i]);
        char *xs = hex_f32(x, 4), *ys = hex_f32(y, 4);
        const char *in[] = {"x", xs}, *out[] = {"y", ys};
        add_case(tests, "ordinary arguments", "Typical", "exp", in, 1, out, 1);
        free(xs);
        free(ys);
    }
    {
        char h[65];
        sweep_digest("exp", 0x3f800000u, 4096, h);
        const char *in[] = {"fn", "exp", "lo", "3f800000", "count", "4096"}, *out[] = {"sha256", h};
        add_case(tests, "a quick sweep above 1", "Quick", "sweep", in, 3, out, 1);
        sweep_digest("exp", 0, 65536, h);
        const char *in2[] = {"fn", "exp", "lo", "00000000", "count", "65536"}, *out2[] = {"sha256", h};
        add_case(tests, "a chunk (small here)", "Chunk", "sweep", in2, 3, out2, 1);
    }
    finish_ops(dir, "exp", r, tests);

    static const char *const dot_notes[] = {"OrderSensitive", "the result depends on the order"};
    r = op_file("dot", "4.2", NULL, dot_notes, 1);
    tests = cJSON_CreateArray();
    {
        float a[3] = {1.0f, 1e8f, -1e8f}, b[3] = {1.0f, 1.0f, 1.0f};
        float y = it_dot(a, b, 3);
        char *as = hex_f32(a, 3), *bs = hex_f32(b, 3), *ys = hex_f32(&y, 1);
        const char *in[] = {"a", as, "b", bs}, *out[] = {"y", ys};
        add_case(tests, "ascending order loses the 1", "OrderSensitive", "dot", in, 2, out, 1);
        free(as);
        free(bs);
        free(ys);
    }
    finish_ops(dir, "dot", r, tests);

    static const char *const lin_notes[] = {"Typical", "ordinary values"};
    r = op_file("linear", "5.2", NULL, lin_notes, 1);
    tests = cJSON_CreateArray();
    {
        float w[6] = {0.5f, -0.25f, 1.0f, 2.0f, -1.5f, 0.125f}, b[2] = {0.1f, -0.2f}, x[3] = {1.0f, 2.0f, 3.0f}, y[2];
        it_linear_forward(w, b, x, 3, 2, y);
        char *ws = hex_f32(w, 6), *bs = hex_f32(b, 2), *xs = hex_f32(x, 3), *ys = hex_f32(y, 2);
        const char *in[] = {"in", "3", "out", "2", "w", ws, "b", bs, "x", xs}, *out[] = {"y", ys};
        add_case(tests, "a 3 -> 2 layer", "Typical", "linear_forward", in, 5, out, 1);
        free(ws);
        free(bs);
        free(xs);
        free(ys);
    }
    finish_ops(dir, "linear", r, tests);
}

static void fixture_train(const char *dir, unsigned steps)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "schema", "isotrain-train-vectors-v1");
    cJSON_AddStringToObject(r, "spec_version", fixture_version);
    cJSON_AddStringToObject(r, "vector_version", fixture_version);
    cJSON_AddStringToObject(r, "profile", "mlp13k");
    cJSON_AddStringToObject(r, "spec_clause", "11");
    cJSON_AddStringToObject(r, "generator", "conformance/tests fixture");
    cJSON_AddNumberToObject(r, "parameters", IT_MLP13K_NPARAMS);
    cJSON *ts = cJSON_AddArrayToObject(r, "tensors");
    for (int t = 0; t < 5; t++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", it_mlp13k_tensors[t].name);
        cJSON_AddNumberToObject(o, "rows", (double)it_mlp13k_tensors[t].rows);
        cJSON_AddNumberToObject(o, "cols", (double)it_mlp13k_tensors[t].cols);
        cJSON_AddNumberToObject(o, "offset", (double)it_mlp13k_tensors[t].offset);
        cJSON_AddItemToArray(ts, o);
    }
    unsigned char d[32];
    char hex[65];
    it_sha256(it_mlp13k_corpus, it_mlp13k_corpus_len, d);
    it_hex(d, 32, hex);
    cJSON_AddStringToObject(r, "corpus_sha256", hex);
    cJSON_AddNumberToObject(r, "steps", steps);
    cJSON *cks = cJSON_AddArrayToObject(r, "checkpoint_steps");
    cJSON_AddItemToArray(cks, cJSON_CreateNumber(0));
    cJSON_AddItemToArray(cks, cJSON_CreateNumber(steps));
    cJSON *tr = cJSON_AddArrayToObject(r, "trace");
    cJSON *ckf = cJSON_CreateArray();
    it_mlp13k_recipe rec = it_mlp13k_default_recipe();
    static it_mlp13k_state s;
    it_mlp13k_start(&rec, &s);
    char *sub = xasprintf("%s/train/mlp13k", dir);
    mkdir(sub, 0777);
    for (unsigned k = 0; k <= steps; k++) {
        if (k)
            cr_assert(it_mlp13k_step(&rec, &s) == IT_OK);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "step", k);
        if (k) {
            char l[16];
            snprintf(l, sizeof l, "%08x", (unsigned)it_f32_bits(s.last_loss));
            cJSON_AddStringToObject(e, "loss", l);
        }
        it_params_digest(s.params, IT_MLP13K_NPARAMS, hex);
        cJSON_AddStringToObject(e, "digest", hex);
        cJSON_AddItemToArray(tr, e);
        if (k == 0 || k == steps) {
            static unsigned char bytes[4 * IT_MLP13K_NPARAMS];
            it_store_f32le(s.params, IT_MLP13K_NPARAMS, bytes);
            char *f = xasprintf("%s/step-%06u.bin", sub, k);
            char err[256];
            cr_assert(write_file(f, (const char *)bytes, sizeof bytes, err, sizeof err) == 0, "%s", err);
            free(f);
            cJSON *c = cJSON_CreateObject();
            cJSON_AddNumberToObject(c, "step", k);
            char rel[64];
            snprintf(rel, sizeof rel, "mlp13k/step-%06u.bin", k);
            cJSON_AddStringToObject(c, "file", rel);
            cJSON_AddStringToObject(c, "sha256", hex);
            cJSON_AddItemToArray(ckf, c);
        }
    }
    cJSON_AddItemToObject(r, "checkpoints", ckf);
    char *p = xasprintf("%s/train/mlp13k.json", dir);
    write_json(p, r);
    free(p);
    free(sub);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_files(const char *dir, const char *rel, char ***out, size_t *n)
{
    char *full = rel[0] ? xasprintf("%s/%s", dir, rel) : xstrdup(dir);
    DIR *d = opendir(full);
    cr_assert(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        char *r = rel[0] ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
        if (!rel[0] && (!strcmp(r, "MANIFEST.json") || !strcmp(r, "receipts"))) {
            free(r);
            continue;
        }
        char *f = xasprintf("%s/%s", dir, r);
        struct stat st;
        stat(f, &st);
        if (S_ISDIR(st.st_mode)) {
            list_files(dir, r, out, n);
            free(r);
        } else {
            *out = xrealloc(*out, (*n + 1) * sizeof **out);
            (*out)[(*n)++] = r;
        }
        free(f);
    }
    closedir(d);
    free(full);
}

void tu_remanifest(const char *dir)
{
    char **files = NULL;
    size_t n = 0;
    list_files(dir, "", &files, &n);
    qsort(files, n, sizeof *files, cmp_str);
    manifest_file *mf = xcalloc(n, sizeof *mf);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "schema", "isotrain-manifest-v1");
    cJSON_AddStringToObject(r, "spec_version", fixture_version);
    cJSON_AddStringToObject(r, "vector_version", fixture_version);
    cJSON_AddStringToObject(r, "generator", "conformance/tests fixture");
    cJSON *arr = cJSON_AddArrayToObject(r, "files");
    for (size_t i = 0; i < n; i++) {
        char *f = xasprintf("%s/%s", dir, files[i]);
        char err[256];
        cr_assert(sha256_file(f, mf[i].sha256, &mf[i].size, err, sizeof err) == 0, "%s", err);
        mf[i].path = files[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", files[i]);
        cJSON_AddNumberToObject(o, "size", (double)mf[i].size);
        cJSON_AddStringToObject(o, "sha256", mf[i].sha256);
        cJSON_AddItemToArray(arr, o);
        free(f);
    }
    char digest[65];
    manifest_digest_of(mf, n, digest);
    cJSON_AddStringToObject(r, "manifest_digest", digest);
    char *p = xasprintf("%s/MANIFEST.json", dir);
    write_json(p, r);
    free(p);
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    free(mf);
}

void tu_fixture_version(const char *dir, unsigned steps, const char *version)
{
    fixture_version = version;
    tu_fixture(dir, steps);
}

void tu_fixture(const char *dir, unsigned steps)
{
    char *o = xasprintf("%s/ops", dir), *t = xasprintf("%s/train", dir);
    mkdir(dir, 0777);
    mkdir(o, 0777);
    mkdir(t, 0777);
    free(o);
    free(t);
    fixture_ops(dir);
    fixture_train(dir, steps);
    tu_remanifest(dir);
}

void tu_edit(const char *dir, const char *file, const char *from, const char *to)
{
    char *p = xasprintf("%s/%s", dir, file);
    char *text = tu_read(p);
    char *at = strstr(text, from);
    cr_assert(at, "'%s' not found in %s", from, p);
    sbuf b;
    sbuf_init(&b);
    sbuf_add(&b, text, (size_t)(at - text));
    sbuf_adds(&b, to);
    sbuf_adds(&b, at + strlen(from));
    char err[256];
    cr_assert(write_file(p, b.p, b.len, err, sizeof err) == 0, "%s", err);
    sbuf_free(&b);
    free(text);
    free(p);
}
