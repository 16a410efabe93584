/* Output files, the manifest, and the one case emitter (FORMAT.md §1-§4).
 * Every op case of every group goes through op_case(), which checks the
 * case's keys and kinds against the op's signature (opsig.c) and spells
 * each value through the CLI's own P4 encoder (wire.c), so a vector says
 * exactly what the reference IUT would. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "mv.h"

const char *SPEC_VERSION = "1.0.0", *VECTOR_VERSION = "1.0.0", *GENERATOR = "isotrain make_vectors 1.0.0";

/* ---- output files and the manifest ------------------------------------------------- */

const char *outdir;

typedef struct {
    char path[64];
    size_t size;
    char sha256[65];
} manifest_entry;
static manifest_entry manifest[256];
static size_t n_manifest;

/* the sets' files are at most megabytes; a bigger one is not a vector file */
#define VECTOR_FILE_MAX ((off_t)1 << 28)

unsigned char *read_whole(const char *dir, const char *rel, size_t *len)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, rel) >= (int)sizeof path)
        die("path too long under %s", dir);
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0)
        die("cannot open %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode) || st.st_size > VECTOR_FILE_MAX)
        die("%s: expected a regular file of at most %lld bytes", path, (long long)VECTOR_FILE_MAX);
    *len = (size_t)st.st_size;
    unsigned char *buf = malloc(*len + 1);
    if (!buf)
        die("out of memory reading %s", path);
    if (fread(buf, 1, *len, f) != *len || fgetc(f) != EOF)
        die("cannot read %s whole (did it change while read?)", path);
    fclose(f);
    return buf;
}

void make_dir(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", outdir, *rel ? "/" : "", rel);
    if (mkdir(path, 0777) != 0)
        die("cannot create directory %s: %s", path, strerror(errno));
}

void emit(const char *rel, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, rel);
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create %s: %s", path, strerror(errno));
    if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
        die("cannot write %s: %s", path, strerror(errno));
    if (strcmp(rel, "MANIFEST.json") == 0)
        return;
    if (n_manifest == sizeof manifest / sizeof manifest[0] || strlen(rel) >= sizeof manifest[0].path)
        die("internal: manifest table too small for %s", rel);
    manifest_entry *m = &manifest[n_manifest++];
    strcpy(m->path, rel);
    m->size = len;
    unsigned char d[32];
    it_sha256(data, len, d);
    it_hex(d, 32, m->sha256);
}

/* cJSON's formatted printer, plus a final newline. */
void emit_json(const char *rel, cJSON *root)
{
    char *text = cJSON_Print(root);
    if (!text)
        die("out of memory printing %s", rel);
    size_t n = strlen(text);
    char *with_nl = malloc(n + 2);
    if (!with_nl)
        die("out of memory");
    memcpy(with_nl, text, n);
    with_nl[n] = '\n';
    emit(rel, with_nl, n + 1);
    free(with_nl);
    cJSON_free(text);
    cJSON_Delete(root);
}

cJSON *checked(cJSON *item)
{
    if (!item)
        die("out of memory building JSON");
    return item;
}

void add_str(cJSON *obj, const char *key, const char *s) { checked(cJSON_AddStringToObject(obj, key, s)); }
void add_num(cJSON *obj, const char *key, double v) { checked(cJSON_AddNumberToObject(obj, key, v)); }
/* ---- groups and cases (FORMAT.md §2) ---- */

static const struct {
    const char *name, *note;
} FLAGS[N_FLAGS] = {
    {"SpecialValue", "An input or output is an infinity or a NaN, or a signed zero that is the point of the case: "
                     "the IEEE 754 special-value rules, and where a sign of zero comes from."},
    {"Subnormal", "A subnormal input, output or intermediate (the comment says which). Subnormals are kept "
                  "(spec 2.2): flush-to-zero or denormals-are-zero gives other bits here."},
    {"OrderSensitive", "The result depends on the order of a sum. The spec writes one order (ascending index from "
                       "+0, bias after the dot product, positions ascending); make_vectors checked that another "
                       "order (reversed, pairwise or bias-first) gives other bits."},
    {"FmaSensitive", "A fused multiply-add (or any contraction of a*b+c) gives other bits; spec 2.1 forbids it. "
                     "make_vectors checked the fused result with exact binary64 arithmetic."},
    {"Tie", "An exact tie between two binary32 neighbours, broken to even (checked by make_vectors)."},
    {"Overflow", "A result or intermediate overflows to infinity, or would in an unshifted or naive formulation "
                 "(the comment says which)."},
    {"Underflow", "A result or intermediate underflows to zero or into the subnormal range, or sits at that "
                  "threshold."},
    {"NaN", "An output is NaN. NaNs are compared by class, not payload or sign (iut-protocol P6)."},
    {"Edge", "At a boundary: the last input before a result changes, a threshold of the spec's sequence, a "
             "domain limit, an extreme index."},
    {"Typical", "Ordinary values taken from the real mlp13k training run (the comment names the step, position "
                "and tensor)."},
    {"Quick", "A sweep of 2^20 consecutive inputs over an interesting range; run by default."},
    {"Chunk", "One of the 256 sweeps of 2^24 consecutive inputs that cover all 2^32; run with --exhaustive."},
    {"Exhaustive", "All 2^32 inputs in one digest; run with --exhaustive."},
    {"Model", "Values the addmod113 model computes (spec 13.5): the parameters of a step of the reference run "
              "and the activations of one of its pairs (the comment says which)."},
    {"RealRun", "Values the gptchar model computes (spec 14.6): the parameters of a step of the reference run, "
                "its activations or gradients (the comment names the step, layer and rows)."},
};

static int group_counts_n;
static struct {
    const char *name;
    int n;
} group_counts[48];

void group_begin(group *g, const char *name, const char *clause)
{
    g->name = name;
    g->clause = clause;
    g->tests = checked(cJSON_CreateArray());
    g->used = 0;
    g->n = 0;
}

cJSON *json_header(const char *schema, const char *what_key, const char *what, const char *clause)
{
    cJSON *root = checked(cJSON_CreateObject());
    add_str(root, "schema", schema);
    add_str(root, "spec_version", SPEC_VERSION);
    add_str(root, "vector_version", VECTOR_VERSION);
    if (what_key)
        add_str(root, what_key, what);
    if (clause)
        add_str(root, "spec_clause", clause);
    add_str(root, "generator", GENERATOR);
    return root;
}

void group_end(group *g)
{
    cJSON *root = json_header("isotrain-op-vectors-v1", "group", g->name, g->clause);
    cJSON *notes = checked(cJSON_AddObjectToObject(root, "notes"));
    for (int f = 0; f < N_FLAGS; f++)
        if (g->used & FL(f))
            add_str(notes, FLAGS[f].name, FLAGS[f].note);
    add_num(root, "number_of_tests", g->n);
    cJSON_AddItemToObject(root, "tests", g->tests);
    char rel[64];
    snprintf(rel, sizeof rel, "ops/%s.json", g->name);
    emit_json(rel, root);
    if (group_counts_n == (int)(sizeof group_counts / sizeof group_counts[0]))
        die("internal: too many groups");
    group_counts[group_counts_n].name = g->name;
    group_counts[group_counts_n++].n = g->n;
}

void print_group_counts(void)
{
    for (int i = 0; i < group_counts_n; i++)
        fprintf(stderr, "  ops/%-18s %4d cases\n", group_counts[i].name, group_counts[i].n);
}

size_t manifest_files(void) { return n_manifest; }

static const char *KIND_NAME[] = {"", "f32", "u32", "int[]", "int[]", "int", "u64", "name", "sha256"};

/* The value in its P4 encoding; f32 values also mark the case's flags. */
static void put_value(cJSON *obj, const val *x, unsigned *flags)
{
    wire_buf b;
    wire_buf_init(&b);
    switch ((val_kind)x->kind) {
    case K_F32: {
        const float *v = x->p;
        wire_put_f32s(&b, v, x->n);
        for (size_t i = 0; i < x->n; i++) {
            if (is_nan(v[i]))
                *flags |= FL(SPECIAL) | (x->out ? FL(NAN_) : 0);
            else if (is_inf(v[i]))
                *flags |= FL(SPECIAL);
            else if (is_subnormal(v[i]))
                *flags |= FL(SUBNORMAL);
        }
        break;
    }
    case K_U32: wire_put_hex32s(&b, x->p, x->n); break;
    case K_INTS: wire_put_ints(&b, x->p, x->n); break;
    case K_BYTES: {
        const unsigned char *s = x->p;
        uint32_t *t = malloc((x->n ? x->n : 1) * sizeof *t);
        if (!t)
            die("out of memory");
        for (size_t i = 0; i < x->n; i++)
            t[i] = s[i];
        wire_put_ints(&b, t, x->n);
        free(t);
        break;
    }
    case K_INT: wire_put_int(&b, x->v); break;
    case K_U64: wire_put_u64(&b, x->v); break;
    case K_NAME:
    case K_HEX: wire_put_str(&b, x->p); break;
    case K_END: die("internal: K_END has no value");
    }
    if (b.failed || !b.p)
        die("out of memory encoding %s", x->key);
    add_str(obj, x->key, b.p);
    wire_buf_free(&b);
}

/* The case's keys of one direction, spelt like a signature: "a:f32 b:f32". */
static void spell(const val *vals, int out, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (const val *x = vals; x->kind != K_END; x++)
        if (x->out == out)
            len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s:%s", len ? " " : "", x->key,
                                    KIND_NAME[x->kind]);
    if (len >= cap)
        die("internal: signature too long");
}

void op_case(group *g, const char *op, unsigned flags, const val *vals, const char *why)
{
    require(why && why[0] != '\0', "case %d of %s has no comment", g->n + 1, g->name);
    for (int out = 0; out < 2; out++) {
        char got[512];
        const char *want = op_signature(op, out);
        spell(vals, out, got, sizeof got);
        require(want && strcmp(want, got) == 0, "case %d of %s: op %s %s are '%s', iut-protocol P5 says '%s'",
                g->n + 1, g->name, op, out ? "outputs" : "inputs", got, want ? want : "(unknown op)");
    }
    cJSON *in = checked(cJSON_CreateObject()), *outs = checked(cJSON_CreateObject());
    for (const val *x = vals; x->kind != K_END; x++)
        put_value(x->out ? outs : in, x, &flags);
    char comment[700];
    snprintf(comment, sizeof comment, "%s", why);
    cJSON *t = checked(cJSON_CreateObject());
    add_num(t, "tc_id", ++g->n);
    add_str(t, "comment", comment);
    cJSON *fl = checked(cJSON_AddArrayToObject(t, "flags"));
    for (int f = 0; f < N_FLAGS; f++)
        if (flags & FL(f))
            cJSON_AddItemToArray(fl, checked(cJSON_CreateString(FLAGS[f].name)));
    add_str(t, "op", op);
    cJSON_AddItemToObject(t, "inputs", in);
    cJSON_AddItemToObject(t, "outputs", outs);
    cJSON_AddItemToArray(g->tests, t);
    g->used |= flags;
}

/* ---- sets and the manifest (FORMAT.md §1, §4) ---- */

void set_begin(const char *dir, const char *prev_dir, const char *const *subdirs)
{
    manifest_entry prev[sizeof manifest / sizeof manifest[0]];
    size_t n_prev = n_manifest;
    memcpy(prev, manifest, sizeof prev);
    n_manifest = 0;
    outdir = dir;
    make_dir("");
    for (const char *const *s = subdirs; *s; s++)
        make_dir(*s);
    for (size_t i = 0; prev_dir && i < n_prev; i++) {
        size_t len;
        unsigned char *buf = read_whole(prev_dir, prev[i].path, &len);
        if (len != prev[i].size)
            die("%s/%s: %zu bytes, expected the %zu this run wrote", prev_dir, prev[i].path, len, prev[i].size);
        emit(prev[i].path, buf, prev[i].size);
        free(buf);
    }
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const manifest_entry *)a)->path, ((const manifest_entry *)b)->path);
}

void gen_manifest(void)
{
    qsort(manifest, n_manifest, sizeof manifest[0], by_path);
    cJSON *root = json_header("isotrain-manifest-v1", NULL, NULL, NULL);
    cJSON *files = checked(cJSON_AddArrayToObject(root, "files"));
    it_sha256_ctx listing;
    it_sha256_init(&listing);
    for (size_t i = 0; i < n_manifest; i++) {
        cJSON *o = checked(cJSON_CreateObject());
        add_str(o, "path", manifest[i].path);
        add_num(o, "size", (double)manifest[i].size);
        add_str(o, "sha256", manifest[i].sha256);
        cJSON_AddItemToArray(files, o);
        char line[256];
        int n = snprintf(line, sizeof line, "%s %zu %s\n", manifest[i].sha256, manifest[i].size, manifest[i].path);
        it_sha256_update(&listing, line, (size_t)n);
    }
    unsigned char d[32];
    char hex[65];
    it_sha256_final(&listing, d);
    it_hex(d, 32, hex);
    add_str(root, "manifest_digest", hex);
    emit_json("MANIFEST.json", root);
}
