/* vectors_load.c — vectors/FORMAT.md §1-§3: the loader, which is the lint. */
#include "vectorset/vectors_load.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "isotrain.h"
#include "core/json_checked.h"
#include "core/util.h"

enum { VECTOR_FILE_MAX = 512 << 20 };

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of dir/sub, sorted. */
static char **list_json(const char *dir, const char *sub, size_t *n, problems *pr)
{
    char *d = xasprintf("%s/%s", dir, sub);
    DIR *h = opendir(d);
    *n = 0;
    if (!h) {
        problems_add(pr, "%s: cannot list directory: %s (a vector set has ops/ and train/, FORMAT.md §1)", d,
                     strerror(errno));
        free(d);
        return NULL;
    }
    char **names = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(h)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l <= 5 || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            names = xrealloc(names, cap * sizeof *names);
        }
        names[(*n)++] = xstrdup(e->d_name);
    }
    closedir(h);
    free(d);
    if (*n)
        qsort(names, *n, sizeof *names, cmp_str);
    return names;
}

static int is_clause(const char *s)
{
    if (!*s)
        return 0;
    int digit = 0;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9')
            digit = 1;
        else if (*s == '.' && digit)
            digit = 0;
        else
            return 0;
    }
    return digit;
}

static int is_flag(const char *s)
{
    if (*s < 'A' || *s > 'Z')
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

static int is_group_name(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

/* x.y.z against x.y.z, numerically (both already checked by jx_is_version). */
static int version_cmp(const char *a, const char *b)
{
    unsigned long x[3] = {0, 0, 0}, y[3] = {0, 0, 0};
    sscanf(a, "%lu.%lu.%lu", &x[0], &x[1], &x[2]);
    sscanf(b, "%lu.%lu.%lu", &y[0], &y[1], &y[2]);
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* The header fields every vector file shares: schema, versions, generator.
 * Returns the file's own spec_version (a copy; "?" when it has none). */
static char *check_header(jctx *c, const cJSON *root, const char *schema, const manifest_info *m, vector_set *vs)
{
    const char *own = NULL;
    const char *s = jx_str(c, root, "$", "schema");
    if (s && strcmp(s, schema) != 0)
        jx_expect(c, "$.schema", cJSON_GetObjectItemCaseSensitive(root, "schema"), "\"%s\"", schema);
    const char *keys[] = {"spec_version", "vector_version"};
    for (int i = 0; i < 2; i++) {
        const char *v = jx_str(c, root, "$", keys[i]);
        char path[32];
        snprintf(path, sizeof path, "$.%s", keys[i]);
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, keys[i]);
        if (!v)
            continue;
        if (!jx_is_version(v)) {
            jx_expect(c, path, it, "a version x.y.z");
            continue;
        }
        if (i == 0)
            own = v;
        const char *want = m ? (i ? m->vector_version : m->spec_version) : (i ? vs->vector_version : vs->spec_version);
        /* FORMAT.md §1: a file keeps the version that introduced it, so a
         * set's files carry the set's version or an earlier one (v1.1.0
         * holds v1.0.0's files byte for byte) */
        if (m && want && strcmp(want, "?") != 0 && version_cmp(v, want) > 0)
            jx_expect(c, path, it, "\"%s\" or an earlier version (MANIFEST.json's)", want);
        else if (!m && want && strcmp(want, "?") != 0 && strcmp(v, want) != 0)
            jx_expect(c, path, it, "\"%s\" (as in %s)", want, "the other vector files");
        else if (!want) {
            if (i)
                vs->vector_version = xstrdup(v);
            else
                vs->spec_version = xstrdup(v);
        }
    }
    const char *g = jx_str(c, root, "$", "generator");
    if (g && !*g)
        jx_expect(c, "$.generator", cJSON_GetObjectItemCaseSensitive(root, "generator"), "a non-empty string");
    const char *cl = jx_str(c, root, "$", "spec_clause");
    if (cl && !is_clause(cl))
        jx_expect(c, "$.spec_clause", cJSON_GetObjectItemCaseSensitive(root, "spec_clause"),
                  "a spec clause number such as \"5.4\"");
    return xstrdup(own ? own : "?");
}

/* A case's tc_id (1, 2, 3, ... in file order) and comment; 1 if bad. */
static int case_id(jctx *c, const cJSON *t, const char *path, size_t index, const char *group, op_case *oc)
{
    int bad = 0;
    uint64_t tc;
    if (jx_uint(c, t, path, "tc_id", 0xffffffffu, &tc) != 0)
        bad = 1;
    else if (tc != index + 1) {
        char p[80];
        snprintf(p, sizeof p, "%s.tc_id", path);
        jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(t, "tc_id"), "%zu (tc_id is 1, 2, 3, ... in file order)",
                  index + 1);
        bad = 1;
    }
    oc->tc_id = (unsigned)(index + 1);
    oc->id = xasprintf("%s/%zu", group, index + 1);
    const char *comment = jx_str(c, t, path, "comment");
    if (comment && !*comment) {
        char p[80];
        snprintf(p, sizeof p, "%s.comment", path);
        jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(t, "comment"), "a non-empty comment (why the case exists)");
        bad = 1;
    }
    oc->comment = xstrdup(comment ? comment : "");
    return bad;
}

/* A case's flags, each a name $.notes explains; 1 if bad. */
static int case_flags(jctx *c, const cJSON *t, const char *path, const cJSON *notes, op_case *oc)
{
    const cJSON *flags = jx_arr(c, t, path, "flags");
    if (!flags)
        return 1;
    int bad = 0;
    oc->flags = xcalloc((size_t)cJSON_GetArraySize(flags) + 1, sizeof *oc->flags);
    size_t k = 0;
    for (const cJSON *f = flags->child; f; f = f->next, k++) {
        char p[96];
        snprintf(p, sizeof p, "%s.flags[%zu]", path, k);
        if (!cJSON_IsString(f) || !is_flag(f->valuestring)) {
            jx_expect(c, p, f, "a flag name [A-Z][A-Za-z0-9]*");
            bad = 1;
            continue;
        }
        if (notes && !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(notes, f->valuestring))) {
            jx_expect(c, p, f, "a flag explained in $.notes (every flag used has an entry there)");
            bad = 1;
        }
        oc->flags[oc->n_flags++] = xstrdup(f->valuestring);
    }
    return bad;
}

/* The inputs (io 0, into in_v and oc->in_raw) or outputs (io 1, into
 * oc->out) object: exactly the op's keys of P5, each a P4 encoding of its
 * type; 1 if bad. */
static int case_values(jctx *c, const char *path, int io, const cJSON *obj, const op_def *d, value *in_v, op_case *oc)
{
    int bad = 0;
    char p[96];
    snprintf(p, sizeof p, "%s.%s", path, io ? "outputs" : "inputs");
    if (jx_no_duplicates(c, obj, p) != 0)
        bad = 1;
    const op_field *fs = io ? d->out : d->in;
    size_t nf = io ? d->n_out : d->n_in;
    for (const cJSON *it = obj->child; it; it = it->next) {
        int known = 0;
        for (size_t k = 0; k < nf; k++)
            known |= strcmp(it->string, fs[k].key) == 0;
        if (!known) {
            problems_add(c->pr, "%s: %s.%s: not a%s key of op %s (expected exactly the keys of P5)", c->file, p,
                         it->string, io ? "n output" : "n input", d->name);
            bad = 1;
        }
    }
    for (size_t k = 0; k < nf; k++) {
        char kp[128], why[160];
        snprintf(kp, sizeof kp, "%s.%s", p, fs[k].key);
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, fs[k].key);
        if (!it) {
            problems_add(c->pr, "%s: %s: missing key \"%s\" of op %s (%s)", c->file, p, fs[k].key, d->name,
                         val_type_describe(fs[k].type));
            bad = 1;
            continue;
        }
        value *dst = io ? &oc->out[k] : &in_v[k];
        if (!cJSON_IsString(it) ||
            value_parse(fs[k].type, it->valuestring, strlen(it->valuestring), 1, dst, why, sizeof why) != 0) {
            if (cJSON_IsString(it))
                jx_expect(c, kp, NULL, "%s: %s", val_type_describe(fs[k].type), why);
            else
                jx_expect(c, kp, it, "a string holding %s", val_type_describe(fs[k].type));
            bad = 1;
            continue;
        }
        if (!io)
            oc->in_raw[k] = xstrdup(it->valuestring);
    }
    return bad;
}

/* FORMAT.md §2: one test object. Returns 0 when the case is usable. */
static int load_case(jctx *c, const cJSON *t, size_t index, const char *group, const cJSON *notes, op_case *oc)
{
    char path[64];
    snprintf(path, sizeof path, "$.tests[%zu]", index);
    static const char *const fields[] = {"tc_id", "comment", "flags", "op", "inputs", "outputs"};
    if (jx_fields(c, t, path, fields, 6) != 0)
        return -1;
    int bad = case_id(c, t, path, index, group, oc);
    bad |= case_flags(c, t, path, notes, oc);
    const char *op = jx_str(c, t, path, "op");
    oc->op = op ? op_find(op, strlen(op)) : NULL;
    if (op && !oc->op) {
        char p[80];
        snprintf(p, sizeof p, "%s.op", path);
        jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(t, "op"), "an op of spec/iut-protocol.md P5");
    }
    const cJSON *in = jx_obj(c, t, path, "inputs");
    const cJSON *out = jx_obj(c, t, path, "outputs");
    if (!oc->op || !in || !out)
        return -1;
    const op_def *d = oc->op;
    value in_v[8];
    memset(in_v, 0, sizeof in_v);
    bad |= case_values(c, path, 0, in, d, in_v, oc);
    bad |= case_values(c, path, 1, out, d, in_v, oc);
    if (!bad) {
        int where_out;
        size_t where;
        char why[200];
        if (op_check(d, in_v, oc->out, &where_out, &where, why, sizeof why) != 0) {
            problems_add(c->pr, "%s: %s.%s.%s: %s (P5 lengths and ranges of op %s)", c->file, path,
                         where_out ? "outputs" : "inputs", where_out ? d->out[where].key : d->in[where].key, why,
                         d->name);
            bad = 1;
        }
    }
    for (size_t k = 0; k < 8; k++)
        value_free(&in_v[k]);
    return bad ? -1 : 0;
}

/* Reads and parses one vector file; NULL, with the problem recorded, when it
 * cannot be read or is not JSON. */
static cJSON *read_json(jctx *c, const manifest_info *m, const char *rel)
{
    char err[512];
    char *text;
    size_t len;
    if (m) {
        /* FORMAT.md §4: the bytes the manifest check hashed, not the file again */
        const manifest_file *mf = manifest_bytes(m, rel);
        if (!mf) {
            problems_add(c->pr, "%s: not a file the manifest check verified (MANIFEST.json does not list %s)", c->file,
                         rel);
            return NULL;
        }
        return jx_parse(c, (const char *)mf->data, mf->len);
    }
    if (read_file(c->file, VECTOR_FILE_MAX, &text, &len, err, sizeof err) != 0) {
        problems_add(c->pr, "%s", err);
        return NULL;
    }
    cJSON *root = jx_parse(c, text, len);
    free(text);
    return root;
}

/* The object of sub/name (c->file names it in messages), or NULL after
 * saying why (unreadable, not listed by the manifest, not an object). */
static cJSON *read_object(jctx *c, const char *sub, const char *name, const manifest_info *m)
{
    char *rel = xasprintf("%s/%s", sub, name);
    cJSON *root = read_json(c, m, rel);
    free(rel);
    if (root && !cJSON_IsObject(root)) {
        jx_expect(c, "$", root, "an object");
        cJSON_Delete(root);
        root = NULL;
    }
    return root;
}

/* $.notes: one non-empty explanation per flag name, no key twice. */
static const cJSON *ops_notes(jctx *c, const cJSON *root)
{
    const cJSON *notes = jx_obj(c, root, "$", "notes");
    if (!notes)
        return NULL;
    jx_no_duplicates(c, notes, "$.notes");
    for (const cJSON *n = notes->child; n; n = n->next) {
        char p[128];
        snprintf(p, sizeof p, "$.notes.%s", n->string);
        if (!is_flag(n->string))
            problems_add(c->pr, "%s: %s: expected a flag name [A-Z][A-Za-z0-9]* as key", c->file, p);
        if (!cJSON_IsString(n) || !n->valuestring[0])
            jx_expect(c, p, n, "a non-empty string explaining the flag");
    }
    return notes;
}

/* FORMAT.md §2: ops/<group>.json */
static void load_ops_file(const char *dir, const char *name, const manifest_info *m, vector_set *vs, problems *pr)
{
    char *file = xasprintf("%s/ops/%s", dir, name);
    jctx c = {file, pr};
    cJSON *root = read_object(&c, "ops", name, m);
    if (!root) {
        free(file);
        return;
    }
    static const char *const fields[] = {"schema", "spec_version", "vector_version", "group", "spec_clause",
                                         "generator", "notes", "number_of_tests", "tests"};
    jx_fields(&c, root, "$", fields, 9);
    char *since = check_header(&c, root, "isotrain-op-vectors-v1", m, vs);
    const char *group = jx_str(&c, root, "$", "group");
    size_t stem = strlen(name) - 5;
    if (group && (strlen(group) != stem || strncmp(group, name, stem) != 0 || !is_group_name(group, stem)))
        jx_expect(&c, "$.group", cJSON_GetObjectItemCaseSensitive(root, "group"),
                  "\"%.*s\" (the file's stem, [a-z0-9_]+)", (int)stem, name);
    const cJSON *notes = ops_notes(&c, root);
    const cJSON *tests = jx_arr(&c, root, "$", "tests");
    uint64_t count;
    if (jx_uint(&c, root, "$", "number_of_tests", 0xffffffffu, &count) == 0 && tests &&
        count != (uint64_t)cJSON_GetArraySize(tests))
        jx_expect(&c, "$.number_of_tests", cJSON_GetObjectItemCaseSensitive(root, "number_of_tests"),
                  "%d (the length of tests)", cJSON_GetArraySize(tests));
    op_group g;
    memset(&g, 0, sizeof g);
    g.group = xstrndup(name, stem);
    g.file = xstrdup(file);
    g.spec_version = since;
    const char *cl = jx_str(&c, root, "$", "spec_clause");
    g.spec_clause = xstrdup(cl ? cl : "?");
    if (tests) {
        size_t n = (size_t)cJSON_GetArraySize(tests);
        g.cases = xcalloc(n, sizeof *g.cases);
        size_t i = 0;
        for (const cJSON *t = tests->child; t; t = t->next, i++)
            load_case(&c, t, i, g.group, notes, &g.cases[g.n_cases++]);
        if (n == 0)
            problems_add(pr, "%s: $.tests: expected at least one test", file);
    }
    cJSON_Delete(root);
    vs->groups = xrealloc(vs->groups, (vs->n_groups + 1) * sizeof *vs->groups);
    vs->groups[vs->n_groups++] = g;
    vs->n_files++;
    free(file);
}

static int is_hex64(const char *s)
{
    return s && strlen(s) == 64 && is_lower_hex(s, 64);
}

/* FORMAT.md §3: one trace entry. */
static void load_trace_entry(jctx *c, const cJSON *e, size_t i, train_vec *tv)
{
    char path[48];
    snprintf(path, sizeof path, "$.trace[%zu]", i);
    static const char *const f0[] = {"step", "digest"};
    static const char *const f1[] = {"step", "loss", "digest"};
    if (jx_fields(c, e, path, i ? f1 : f0, i ? 3 : 2) != 0)
        return;
    uint64_t step;
    char p[80];
    if (jx_uint(c, e, path, "step", 0xffffffffu, &step) == 0 && step != i) {
        snprintf(p, sizeof p, "%s.step", path);
        jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(e, "step"), "%zu (one entry per step 0..steps in order)", i);
    }
    const char *d = jx_str(c, e, path, "digest");
    if (d && !is_hex64(d)) {
        snprintf(p, sizeof p, "%s.digest", path);
        jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(e, "digest"), "64 lowercase hex digits");
    } else if (d)
        memcpy(tv->trace[i].digest, d, 65);
    tv->trace[i].step = (uint32_t)i;
    if (i) {
        const char *l = jx_str(c, e, path, "loss");
        if (l && (strlen(l) != 8 || !is_lower_hex(l, 8))) {
            snprintf(p, sizeof p, "%s.loss", path);
            jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(e, "loss"), "8 lowercase hex digits (binary32 bits)");
        } else if (l) {
            tv->trace[i].has_loss = 1;
            tv->trace[i].loss = (uint32_t)strtoul(l, NULL, 16);
        }
    }
}

/* $.tensors: contiguous, named, their sizes summing to the parameters. */
static void train_tensors(jctx *c, const cJSON *root, train_vec *tv, int have_params, uint64_t params)
{
    const cJSON *tensors = jx_arr(c, root, "$", "tensors");
    if (!tensors)
        return;
    size_t n = (size_t)cJSON_GetArraySize(tensors), i = 0;
    tv->tensors = xcalloc(n, sizeof *tv->tensors);
    uint64_t next = 0;
    for (const cJSON *t = tensors->child; t; t = t->next, i++) {
        char path[48], p[64];
        snprintf(path, sizeof path, "$.tensors[%zu]", i);
        static const char *const tf[] = {"name", "rows", "cols", "offset"};
        if (jx_fields(c, t, path, tf, 4) != 0)
            continue;
        tensor_desc *td = &tv->tensors[tv->n_tensors];
        const char *nm = jx_str(c, t, path, "name");
        if (nm && !is_group_name(nm, strlen(nm))) {
            snprintf(p, sizeof p, "%s.name", path);
            jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(t, "name"), "a name [a-z0-9_]+");
        }
        if (!nm || jx_uint(c, t, path, "rows", UINT64_C(1) << 32, &td->rows) != 0 ||
            jx_uint(c, t, path, "cols", UINT64_C(1) << 32, &td->cols) != 0 ||
            jx_uint(c, t, path, "offset", UINT64_C(1) << 32, &td->offset) != 0)
            continue;
        if (td->offset != next) {
            snprintf(p, sizeof p, "%s.offset", path);
            jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(t, "offset"),
                      "%llu (tensors are contiguous: the sum of the sizes before)", (unsigned long long)next);
        }
        td->name = xstrdup(nm);
        next = td->offset + td->rows * td->cols;
        tv->n_tensors++;
    }
    if (have_params && next != params)
        jx_expect(c, "$.tensors", tensors, "tensors whose sizes sum to parameters = %llu (they sum to %llu)",
                  (unsigned long long)params, (unsigned long long)next);
}

/* $.checkpoint_steps: ascending, no repeats, none past the steps. */
static const cJSON *train_ck_steps(jctx *c, const cJSON *root, train_vec *tv, int have_steps, uint64_t steps)
{
    const cJSON *cks = jx_arr(c, root, "$", "checkpoint_steps");
    if (!cks)
        return NULL;
    size_t n = (size_t)cJSON_GetArraySize(cks), i = 0;
    tv->ck_steps = xcalloc(n, sizeof *tv->ck_steps);
    for (const cJSON *s = cks->child; s; s = s->next, i++) {
        char path[48];
        snprintf(path, sizeof path, "$.checkpoint_steps[%zu]", i);
        uint64_t v;
        if (jx_item_uint(c, s, path, have_steps ? steps : 0xffffffffu, &v) != 0)
            continue;
        if (tv->n_ck && v <= tv->ck_steps[tv->n_ck - 1]) {
            jx_expect(c, path, s, "a step after %u (ascending, no repeats)", (unsigned)tv->ck_steps[tv->n_ck - 1]);
            continue;
        }
        tv->ck_steps[tv->n_ck++] = (uint32_t)v;
    }
    return cks;
}

/* A checkpoint file's size and digest: the bytes the manifest check hashed
 * (FORMAT.md §4), or the file itself without a manifest. */
static void checkpoint_file(jctx *c, const char *dir, const manifest_info *m, const char *path, const char *f,
                            const char *h, int have_params, uint64_t params)
{
    char *full = xasprintf("%s/train/%s", dir, f);
    char hex[65], err[512];
    uint64_t size = 0;
    char *crel = xasprintf("train/%s", f);
    const manifest_file *mf = m ? manifest_bytes(m, crel) : NULL;
    free(crel);
    int got;
    if (m && !mf) {
        snprintf(err, sizeof err, "%s: not a file the manifest check verified", full);
        got = -1;
    } else if (mf) {
        unsigned char d[32];
        it_sha256(mf->data, mf->len, d);
        it_hex(d, 32, hex);
        size = mf->len;
        got = 0;
    } else
        got = sha256_file(full, hex, &size, err, sizeof err);
    if (got != 0)
        problems_add(c->pr, "%s: %s.file: %s", c->file, path, err);
    else if (have_params && size != 4 * params)
        problems_add(c->pr, "%s: %s.file: %s has %llu bytes, expected exactly 4*parameters = %llu", c->file, path,
                     full, (unsigned long long)size, (unsigned long long)(4 * params));
    else if (strcmp(hex, h) != 0)
        problems_add(c->pr, "%s: %s.file: %s hashes to %s, expected %s", c->file, path, full, hex, h);
    free(full);
}

/* One entry of $.checkpoints: its step the checkpoint_steps entry's, its
 * digest the trace's, its file inside train/ and of that digest. */
static void train_checkpoint(jctx *c, const char *dir, const manifest_info *m, const cJSON *e, size_t i, train_vec *tv,
                             int have_params, uint64_t params, uint64_t steps)
{
    char path[48], p[80];
    snprintf(path, sizeof path, "$.checkpoints[%zu]", i);
    static const char *const cf[] = {"step", "file", "sha256"};
    if (jx_fields(c, e, path, cf, 3) != 0)
        return;
    uint64_t step;
    const char *f = jx_str(c, e, path, "file");
    const char *h = jx_str(c, e, path, "sha256");
    if (jx_uint(c, e, path, "step", 0xffffffffu, &step) != 0 || !f || !h)
        return;
    if (i < tv->n_ck && step != tv->ck_steps[i]) {
        snprintf(p, sizeof p, "%s.step", path);
        jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(e, "step"), "%u (checkpoint_steps[%zu])",
                  (unsigned)tv->ck_steps[i], i);
    }
    if (!is_hex64(h)) {
        snprintf(p, sizeof p, "%s.sha256", path);
        jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(e, "sha256"), "64 lowercase hex digits");
        return;
    }
    if (f[0] == '/' || strstr(f, "..") || !*f) {
        snprintf(p, sizeof p, "%s.file", path);
        jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(e, "file"), "a path relative to train/");
        return;
    }
    ckpt_vec *cv = &tv->ckpts[i];
    cv->step = (uint32_t)step;
    cv->file = xstrdup(f);
    memcpy(cv->sha256, h, 65);
    if (tv->trace && step <= steps && tv->trace[step].digest[0] && strcmp(tv->trace[step].digest, h) != 0) {
        snprintf(p, sizeof p, "%s.sha256", path);
        jx_expect(c, p, cJSON_GetObjectItemCaseSensitive(e, "sha256"), "the digest of trace step %llu (%s)",
                  (unsigned long long)step, tv->trace[step].digest);
    }
    checkpoint_file(c, dir, m, path, f, h, have_params, params);
}

/* $.trace: one entry per step 0..steps. The table is sized by the entries
 * the file really has, never by the steps it claims (a claim of 2^32 steps
 * must not allocate). */
static void train_trace(jctx *c, const cJSON *root, train_vec *tv, int have_steps, uint64_t steps)
{
    const cJSON *trace = jx_arr(c, root, "$", "trace");
    if (!trace || !have_steps)
        return;
    if ((uint64_t)cJSON_GetArraySize(trace) != steps + 1) {
        jx_expect(c, "$.trace", trace, "%llu entries (one per step 0..steps)", (unsigned long long)steps + 1);
        return;
    }
    tv->trace = xcalloc((size_t)steps + 1, sizeof *tv->trace);
    size_t i = 0;
    for (const cJSON *e = trace->child; e && i <= steps; e = e->next, i++)
        load_trace_entry(c, e, i, tv);
}

/* The file's own fields: profile (its stem), clause, corpus digest. */
static void train_names(jctx *c, const cJSON *root, const char *name, train_vec *tv)
{
    tv->profile = xstrndup(name, strlen(name) - 5);
    tv->file = xstrdup(c->file);
    const char *prof = jx_str(c, root, "$", "profile");
    if (prof && strcmp(prof, tv->profile) != 0)
        jx_expect(c, "$.profile", cJSON_GetObjectItemCaseSensitive(root, "profile"), "\"%s\" (the file's stem)",
                  tv->profile);
    const char *cl = jx_str(c, root, "$", "spec_clause");
    tv->spec_clause = xstrdup(cl ? cl : "?");
}

static void train_corpus(jctx *c, const cJSON *root, train_vec *tv)
{
    const char *corpus = jx_str(c, root, "$", "corpus_sha256");
    if (corpus && !is_hex64(corpus))
        jx_expect(c, "$.corpus_sha256", cJSON_GetObjectItemCaseSensitive(root, "corpus_sha256"),
                  "64 lowercase hex digits");
    else if (corpus)
        memcpy(tv->corpus_sha256, corpus, 65);
}

/* FORMAT.md §3: train/<profile>.json and its checkpoint files. */
static void load_train_file(const char *dir, const char *name, const manifest_info *m, vector_set *vs, problems *pr)
{
    char *file = xasprintf("%s/train/%s", dir, name);
    jctx c = {file, pr};
    cJSON *root = read_object(&c, "train", name, m);
    if (!root) {
        free(file);
        return;
    }
    static const char *const fields[] = {"schema", "spec_version", "vector_version", "profile", "spec_clause",
                                         "generator", "parameters", "tensors", "corpus_sha256", "steps",
                                         "checkpoint_steps", "trace", "checkpoints"};
    jx_fields(&c, root, "$", fields, 13);
    train_vec tv;
    memset(&tv, 0, sizeof tv);
    tv.spec_version = check_header(&c, root, "isotrain-train-vectors-v1", m, vs);
    train_names(&c, root, name, &tv);
    uint64_t params = 0, steps = 0;
    int have_params = jx_uint(&c, root, "$", "parameters", UINT64_C(1) << 32, &params) == 0 && params > 0;
    tv.parameters = params;
    train_tensors(&c, root, &tv, have_params, params);
    train_corpus(&c, root, &tv);
    int have_steps = jx_uint(&c, root, "$", "steps", 0xfffffffeu, &steps) == 0;
    tv.steps = (uint32_t)steps;
    const cJSON *cks = train_ck_steps(&c, root, &tv, have_steps, steps);
    train_trace(&c, root, &tv, have_steps, steps);
    const cJSON *ckf = jx_arr(&c, root, "$", "checkpoints");
    if (ckf) {
        size_t n = (size_t)cJSON_GetArraySize(ckf), i = 0;
        if (cks && n != (size_t)cJSON_GetArraySize(cks))
            jx_expect(&c, "$.checkpoints", ckf, "%d entries (one per checkpoint_steps entry)", cJSON_GetArraySize(cks));
        tv.ckpts = xcalloc(n, sizeof *tv.ckpts);
        tv.n_ckpts = n;
        for (const cJSON *e = ckf->child; e; e = e->next, i++)
            train_checkpoint(&c, dir, m, e, i, &tv, have_params, params, steps);
    }
    cJSON_Delete(root);
    vs->trains = xrealloc(vs->trains, (vs->n_trains + 1) * sizeof *vs->trains);
    vs->trains[vs->n_trains++] = tv;
    vs->n_files++;
    free(file);
}

/* FORMAT.md §1-§3 */

/* One state file of window w (spec 8.3): inside windows/, listed, of
 * 4*parameters bytes; the first the train file's digest of step from. 0, or
 * -1 when it is not usable. */
static int window_state(jctx *c, const manifest_info *m, const cJSON *f, const char *p2, const train_vec *tv,
                        const window_set *ws, window_vec *w, size_t k)
{
    static const char *const ff[] = {"file", "sha256"};
    if (jx_fields(c, f, p2, ff, 2) != 0)
        return -1;
    const char *fn = jx_str(c, f, p2, "file"), *h = jx_str(c, f, p2, "sha256");
    if (!fn || !h || !is_hex64(h) || fn[0] == '/' || strstr(fn, "..")) {
        jx_expect(c, p2, f, "a path relative to windows/ and 64 lowercase hex digits");
        return -1;
    }
    char *frel = xasprintf("windows/%s", fn);
    const manifest_file *mf = m ? manifest_bytes(m, frel) : NULL;
    if (m && (!mf || mf->len != 4 * ws->parameters))
        jx_expect(c, p2, f, "a file the manifest lists, of exactly 4*parameters = %llu bytes",
                  (unsigned long long)(4 * ws->parameters));
    free(frel);
    if (k == 0 && tv && tv->trace && strcmp(h, tv->trace[w->from].digest) != 0)
        jx_expect(c, p2, f, "the train file's digest of step %llu (%s)", (unsigned long long)w->from,
                  tv->trace[w->from].digest);
    w->files[k] = xstrdup(fn);
    memcpy(w->sha256[k], h, 65);
    return 0;
}

/* One entry of $.windows: from < to <= the profile's steps, ascending, its
 * state files (none from step 0). */
static void load_window(jctx *c, const manifest_info *m, const cJSON *e, size_t i, const train_vec *tv, window_set *ws)
{
    char path[48], p2[80];
    snprintf(path, sizeof path, "$.windows[%zu]", i);
    static const char *const wf[] = {"from", "to", "state"};
    uint64_t from, to;
    if (jx_fields(c, e, path, wf, 3) != 0 || jx_uint(c, e, path, "from", 0xffffffffu, &from) != 0 ||
        jx_uint(c, e, path, "to", 0xffffffffu, &to) != 0)
        return;
    if (to <= from || (tv && to > tv->steps) || (ws->n && from <= ws->w[ws->n - 1].from)) {
        snprintf(p2, sizeof p2, "%s.to", path);
        jx_expect(c, p2, cJSON_GetObjectItemCaseSensitive(e, "to"),
                  "from < to <= the profile's steps, windows in ascending from");
        return;
    }
    window_vec *w = &ws->w[ws->n];
    w->from = (uint32_t)from, w->to = (uint32_t)to;
    const cJSON *st = jx_arr(c, e, path, "state");
    size_t want = from == 0 ? 0 : 3, k = 0;
    if (st && (size_t)cJSON_GetArraySize(st) != want && !(from > 0 && cJSON_GetArraySize(st) == 1)) {
        snprintf(p2, sizeof p2, "%s.state", path);
        jx_expect(c, p2, st, "%zu state files (spec 8.3)", want);
        return;
    }
    for (const cJSON *f = st ? st->child : NULL; f && k < 3; f = f->next, k++) {
        snprintf(p2, sizeof p2, "%s.state[%zu]", path, k);
        if (window_state(c, m, f, p2, tv, ws, w, k) != 0)
            break;
    }
    w->n_files = k;
    ws->n++;
}

/* FORMAT.md §6: windows/<profile>.json, after the train files it refers to. */
static void load_windows_file(const char *dir, const char *name, const manifest_info *m, vector_set *vs,
                              problems *pr)
{
    char *file = xasprintf("%s/windows/%s", dir, name);
    jctx c = {file, pr};
    cJSON *root = read_object(&c, "windows", name, m);
    if (!root) {
        free(file);
        return;
    }
    static const char *const fields[] = {"schema", "spec_version", "vector_version", "profile", "spec_clause",
                                         "generator", "parameters", "windows"};
    jx_fields(&c, root, "$", fields, 8);
    free(check_header(&c, root, "isotrain-window-vectors-v1", m, vs)); /* the file's own spec version: not kept */
    window_set ws;
    memset(&ws, 0, sizeof ws);
    ws.profile = xstrndup(name, strlen(name) - 5);
    const char *prof = jx_str(&c, root, "$", "profile");
    if (prof && strcmp(prof, ws.profile) != 0)
        jx_expect(&c, "$.profile", cJSON_GetObjectItemCaseSensitive(root, "profile"), "\"%s\" (the file's stem)",
                  ws.profile);
    const train_vec *tv = vectors_train(vs, ws.profile);
    if (!tv)
        jx_expect(&c, "$.profile", cJSON_GetObjectItemCaseSensitive(root, "profile"),
                  "a profile with a train file (train/%s.json)", ws.profile);
    jx_uint(&c, root, "$", "parameters", UINT64_C(1) << 32, &ws.parameters);
    if (tv && ws.parameters != tv->parameters)
        jx_expect(&c, "$.parameters", cJSON_GetObjectItemCaseSensitive(root, "parameters"), "%llu (the train file's)",
                  (unsigned long long)tv->parameters);
    const cJSON *arr = jx_arr(&c, root, "$", "windows");
    if (arr) {
        size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
        ws.w = xcalloc(n ? n : 1, sizeof *ws.w);
        for (const cJSON *e = arr->child; e; e = e->next, i++)
            load_window(&c, m, e, i, tv, &ws);
    }
    vs->windows = xrealloc(vs->windows, (vs->n_windows + 1) * sizeof *vs->windows);
    vs->windows[vs->n_windows++] = ws;
    vs->n_files++;
    cJSON_Delete(root);
    free(file);
}

size_t vectors_load(const char *dir, const manifest_info *m, vector_set *vs, problems *pr)
{
    memset(vs, 0, sizeof *vs);
    vs->dir = xstrdup(dir);
    size_t before = pr->n;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        problems_add(pr, "%s: not a directory (expected a vector set, FORMAT.md §1)", dir);
        return pr->n - before;
    }
    size_t n = 0;
    /* a recipe set (recipe_set.h) holds no op vectors: the official set's
     * are the ops of every member of the family */
    char **names = m && m->recipe_path ? NULL : list_json(dir, "ops", &n, pr);
    for (size_t i = 0; i < n; i++) {
        load_ops_file(dir, names[i], m, vs, pr);
        free(names[i]);
    }
    free(names);
    names = list_json(dir, "train", &n, pr);
    for (size_t i = 0; i < n; i++) {
        load_train_file(dir, names[i], m, vs, pr);
        free(names[i]);
    }
    free(names);
    /* FORMAT.md §6 (from v1.2.0): an optional windows/ directory */
    char *wdir = xasprintf("%s/windows", dir);
    struct stat wst;
    int has_windows = stat(wdir, &wst) == 0 && S_ISDIR(wst.st_mode);
    free(wdir);
    names = has_windows ? list_json(dir, "windows", &n, pr) : NULL;
    for (size_t i = 0; has_windows && i < n; i++) {
        load_windows_file(dir, names[i], m, vs, pr);
        free(names[i]);
    }
    free(names);
    if (m) {
        if (!vs->spec_version)
            vs->spec_version = xstrdup(m->spec_version);
        if (!vs->vector_version)
            vs->vector_version = xstrdup(m->vector_version);
    }
    if (!vs->spec_version)
        vs->spec_version = xstrdup("?");
    if (!vs->vector_version)
        vs->vector_version = xstrdup("?");
    return pr->n - before;
}

void vectors_free(vector_set *vs)
{
    for (size_t g = 0; g < vs->n_groups; g++) {
        op_group *gr = &vs->groups[g];
        for (size_t i = 0; i < gr->n_cases; i++) {
            op_case *c = &gr->cases[i];
            free(c->id);
            free(c->comment);
            for (size_t k = 0; k < c->n_flags; k++)
                free(c->flags[k]);
            free(c->flags);
            for (size_t k = 0; k < 8; k++)
                free(c->in_raw[k]);
            for (size_t k = 0; k < 4; k++)
                value_free(&c->out[k]);
        }
        free(gr->cases);
        free(gr->group);
        free(gr->file);
        free(gr->spec_clause);
        free(gr->spec_version);
    }
    free(vs->groups);
    for (size_t t = 0; t < vs->n_trains; t++) {
        train_vec *tv = &vs->trains[t];
        for (size_t i = 0; i < tv->n_tensors; i++)
            free(tv->tensors[i].name);
        free(tv->tensors);
        free(tv->ck_steps);
        free(tv->trace);
        for (size_t i = 0; i < tv->n_ckpts; i++)
            free(tv->ckpts[i].file);
        free(tv->ckpts);
        free(tv->profile);
        free(tv->file);
        free(tv->spec_clause);
        free(tv->spec_version);
    }
    free(vs->trains);
    for (size_t i = 0; i < vs->n_windows; i++) {
        for (size_t k = 0; k < vs->windows[i].n; k++)
            for (size_t f = 0; f < vs->windows[i].w[k].n_files; f++)
                free(vs->windows[i].w[k].files[f]);
        free(vs->windows[i].w);
        free(vs->windows[i].profile);
    }
    free(vs->windows);
    free(vs->dir);
    free(vs->spec_version);
    free(vs->vector_version);
    memset(vs, 0, sizeof *vs);
}

int op_case_has_flag(const op_case *c, const char *flag)
{
    for (size_t i = 0; i < c->n_flags; i++)
        if (strcmp(c->flags[i], flag) == 0)
            return 1;
    return 0;
}

const train_vec *vectors_train(const vector_set *vs, const char *profile)
{
    for (size_t i = 0; i < vs->n_trains; i++)
        if (strcmp(vs->trains[i].profile, profile) == 0)
            return &vs->trains[i];
    return NULL;
}

const window_set *vectors_windows(const vector_set *vs, const char *profile)
{
    for (size_t i = 0; i < vs->n_windows; i++)
        if (strcmp(vs->windows[i].profile, profile) == 0)
            return &vs->windows[i];
    return NULL;
}
