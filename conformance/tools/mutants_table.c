/* mutants_table: the mutation matrix table (spec/mutants.md) from the mutants
 * list (spec/mutants/mutants.tsv) and, per mutant, what ci/mutants.sh left in
 * DIR/<id>/: build.status ("ok" or "failed") and the runner's receipt.json.
 *
 *   mutants_table LIST DIR > table.md
 *
 * Exit 0 when every mutant came out as the list expects (killed, or
 * equivalent: the suite passes it), 1 when one survived, was killed though
 * recorded as equivalent, or could not be built or run; 2 on bad input.
 * Timings are written after the marker line TIMINGS_MARKER, which
 * `make check-mutants` excludes from its comparison. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trust/dsse.h"

#define TIMINGS_MARKER "<!-- timings: everything below is excluded from make check-mutants -->"

enum { F_ID, F_DEFECT, F_SPEC, F_BUILD, F_CFLAGS, F_LDFLAGS, F_RUN, F_EXPECTED, F_EVIDENCE, N_FIELDS };

typedef struct {
    char *f[N_FIELDS];
    char result[128];
    char first_op[256];
    char first_step[128];
    char where[1024];
    double seconds;
    int ok; /* came out as expected */
} mutant;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Appends printf output to a fixed buffer, truncating. */
static void cat(char *dst, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(dst);
    if (len + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst + len, cap - len, fmt, ap);
    va_end(ap);
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int num(const cJSON *o, const char *k, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(v))
        return 0;
    *out = v->valuedouble;
    return 1;
}

/* Markdown table cells: no '|' and no newline. */
static void cell(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else if (*s == '\n')
            fputc(' ', out);
        else
            fputc(*s, out);
    }
}

/* A full certification: PASS, or against a recipe set PASS (recipe
 * sha256:...) (conformance/README.md "Recipe vector sets") */
static int passed(const char *verdict)
{
    return !strcmp(verdict, "PASS") || !strncmp(verdict, "PASS (recipe sha256:", 20);
}

/* When neither an op case nor the run failed: a failed refusal case of a
 * recipe set (fresh/<recipe>/corpus-digest), with its reason. Only that
 * case: its reason names no run seed, so the table stays the same from run
 * to run (another fresh case's reason names the seed it drew). */
static void first_fresh(mutant *m, const cJSON *r)
{
    if (m->where[0])
        return;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "cases"))
    {
        const char *lv = str(c, "level"), *v = str(c, "verdict"), *id = str(c, "id"), *why = str(c, "reason");
        const size_t n = id ? strlen(id) : 0;
        if (lv && v && n > 14 && !strcmp(lv, "fresh") && !strcmp(id + n - 14, "/corpus-digest") &&
            (!strcmp(v, "FAIL") || !strcmp(v, "ERROR"))) {
            cat(m->where, sizeof m->where, "fresh %s: %s.", id, why ? why : v);
            return;
        }
    }
}

static void read_receipt(mutant *m, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/build.status", dir, m->f[F_ID]);
    char *status = slurp(path);
    if (!status || strncmp(status, "ok", 2) != 0) {
        snprintf(m->result, sizeof m->result, "NOT BUILT");
        snprintf(m->where, sizeof m->where, "build failed: see %s/%s/build.log", dir, m->f[F_ID]);
        free(status);
        return;
    }
    free(status);
    snprintf(path, sizeof path, "%s/%s/seconds", dir, m->f[F_ID]);
    char *secs = slurp(path);
    if (secs)
        m->seconds = strtod(secs, NULL);
    free(secs);
    snprintf(path, sizeof path, "%s/%s/receipt.json", dir, m->f[F_ID]);
    char *text = slurp(path);
    /* the receipt inside its DSSE envelope (trust/dsse.h) */
    cJSON *r = NULL;
    if (text) {
        problems pr;
        problems_init(&pr);
        dsse_opened o;
        if (dsse_open(path, text, strlen(text), &o, &pr) == 0)
            r = cJSON_Duplicate(o.receipt, 1);
        dsse_opened_free(&o);
        problems_free(&pr);
    }
    free(text);
    const char *verdict = r ? str(r, "verdict") : NULL;
    if (!verdict) {
        snprintf(m->result, sizeof m->result, "NOT RUN");
        snprintf(m->where, sizeof m->where, "no readable receipt: see %s/%s/run.log", dir, m->f[F_ID]);
        cJSON_Delete(r);
        return;
    }
    int killed = !passed(verdict);
    snprintf(m->result, sizeof m->result, "%s", killed ? "killed" : "survived");

    /* the first failing op case, in the receipt's (the runner's) order */
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "cases"))
    {
        const char *suite = str(c, "suite"), *v = str(c, "verdict"), *id = str(c, "id");
        if (!suite || !v || !id || strncmp(suite, "ops/", 4) != 0)
            continue;
        if (strcmp(v, "FAIL") == 0 || strcmp(v, "ERROR") == 0) {
            snprintf(m->first_op, sizeof m->first_op, "%s", id);
            const char *why = str(c, "reason");
            if (why) {
                char shortwhy[160];
                snprintf(shortwhy, sizeof shortwhy, "%s", why);
                char *semi = strchr(shortwhy, ';'); /* "...; 23 of 32 elements differ" */
                if (semi)
                    *semi = '\0';
                cat(m->where, sizeof m->where, "ops %s: %s. ", id, shortwhy);
            }
            break;
        }
    }
    if (!m->first_op[0])
        snprintf(m->first_op, sizeof m->first_op, "none");

    const cJSON *levels = cJSON_GetObjectItemCaseSensitive(r, "levels");
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(levels, "ops");
    const char *ops_note = ops ? str(ops, "note") : NULL;
    if (ops_note && !strcmp(m->first_op, "none"))
        cat(m->where, sizeof m->where, "ops: %s. ", ops_note);
    const cJSON *train = cJSON_GetObjectItemCaseSensitive(levels, "train");
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(train, "profiles"), 0);
    snprintf(m->first_step, sizeof m->first_step, "none");
    if (p) {
        const char *prof = str(p, "profile"), *failure = str(p, "failure"), *problem = str(p, "problem");
        double step;
        const cJSON *loc = cJSON_GetObjectItemCaseSensitive(p, "localization");
        if (num(p, "first_differing_step", &step) && step >= 0)
            snprintf(m->first_step, sizeof m->first_step, "%s/%.0f", prof ? prof : "?", step);
        if (failure) {
            if (!strcmp(m->first_step, "none"))
                snprintf(m->first_step, sizeof m->first_step, "%s/run", prof ? prof : "?");
            /* the runner records the IUT's own failure line, e.g. "failure=fpenv-flush step=0" */
            cat(m->where, sizeof m->where, "train: the IUT reported %s (%s). ", failure,
                str(p, "status") ? str(p, "status") : "?");
        } else if (problem) {
            if (!strcmp(m->first_step, "none"))
                snprintf(m->first_step, sizeof m->first_step, "%s/run", prof ? prof : "?");
            cat(m->where, sizeof m->where, "train: %s. ", problem);
        }
        if (loc) {
            const char *tensor = str(loc, "tensor");
            double row, col, ulp, through;
            if (num(loc, "first_step", &step))
                cat(m->where, sizeof m->where, "train step %.0f", step);
            if (tensor && num(loc, "row", &row) && num(loc, "col", &col))
                cat(m->where, sizeof m->where, ": %s (%.0f, %.0f) IUT 0x%s ref 0x%s", tensor, row, col,
                    str(loc, "iut") ? str(loc, "iut") : "?", str(loc, "reference") ? str(loc, "reference") : "?");
            if (num(loc, "ulp", &ulp))
                cat(m->where, sizeof m->where, " %.0f ULP", ulp);
            /* worth saying only when the loss hid a parameter difference */
            if (num(loc, "loss_identical_through", &through) && num(loc, "first_step", &step) && through >= step &&
                through > 0)
                cat(m->where, sizeof m->where, ", loss bits same through step %.0f", through);
            const cJSON *op = cJSON_GetObjectItemCaseSensitive(loc, "first_op");
            double pos, k, el;
            if (op && str(op, "op") && num(op, "position", &pos) && num(op, "op_in_position", &k)) {
                cat(m->where, sizeof m->where, "; first differing op: %s (position %.0f, op %.0f of 10)", str(op, "op"),
                    pos, k);
                if (str(op, "output") && num(op, "element", &el))
                    cat(m->where, sizeof m->where, " %s[%.0f] IUT 0x%s ref 0x%s", str(op, "output"), el,
                        str(op, "iut") ? str(op, "iut") : "?", str(op, "reference") ? str(op, "reference") : "?");
            } else if (str(loc, "op_note")) {
                cat(m->where, sizeof m->where, "; op replay: %s", str(loc, "op_note"));
            }
            cat(m->where, sizeof m->where, ". ");
        }
    }
    first_fresh(m, r);
    size_t wl = strlen(m->where);
    while (wl > 0 && m->where[wl - 1] == ' ')
        m->where[--wl] = '\0';
    cJSON_Delete(r);
}

static int parse_list(const char *path, mutant **out, size_t *n_out)
{
    char *text = slurp(path);
    if (!text) {
        fprintf(stderr, "mutants_table: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    mutant *ms = NULL;
    size_t n = 0, lineno = 0;
    for (char *line = text, *next; line && *line; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        mutant m;
        memset(&m, 0, sizeof m);
        size_t k = 0;
        for (char *f = line; f && k < N_FIELDS; k++) {
            m.f[k] = f;
            f = strchr(f, '\t');
            if (f)
                *f++ = '\0';
            else if (k + 1 < N_FIELDS) {
                fprintf(stderr, "mutants_table: %s:%zu: %zu fields, expected %d\n", path, lineno, k + 1, N_FIELDS);
                return -1;
            }
        }
        if (strcmp(m.f[F_EXPECTED], "killed") != 0 && strcmp(m.f[F_EXPECTED], "equivalent") != 0) {
            fprintf(stderr, "mutants_table: %s:%zu: expected must be killed or equivalent\n", path, lineno);
            return -1;
        }
        mutant *nm = realloc(ms, (n + 1) * sizeof *ms);
        if (!nm)
            return -1;
        ms = nm;
        ms[n++] = m;
    }
    *out = ms;
    *n_out = n;
    return 0; /* text stays allocated: the fields point into it */
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mutants_table LIST DIR > table.md\n");
        return 2;
    }
    mutant *ms;
    size_t n;
    if (parse_list(argv[1], &ms, &n) != 0)
        return 2;
    size_t killed = 0, equivalent = 0, bad = 0;
    for (size_t i = 0; i < n; i++) {
        mutant *m = &ms[i];
        read_receipt(m, argv[2]);
        if (!strcmp(m->result, "killed"))
            m->ok = !strcmp(m->f[F_EXPECTED], "killed"), killed++;
        else if (!strcmp(m->result, "survived") && !strcmp(m->f[F_EXPECTED], "equivalent"))
            m->ok = 1, equivalent++, snprintf(m->result, sizeof m->result, "equivalent");
        if (!m->ok) {
            bad++;
            char tmp[40];
            snprintf(tmp, sizeof tmp, "%s", m->result);
            for (char *s = tmp; *s; s++)
                if (*s >= 'a' && *s <= 'z')
                    *s = (char)(*s - 'a' + 'A');
            snprintf(m->result, sizeof m->result, "%s (expected %s)", tmp, m->f[F_EXPECTED]);
        }
    }

    FILE *o = stdout;
    fprintf(o, "# Mutation matrix\n\n"
               "Generated by `make mutants` from `spec/mutants/mutants.tsv`; do not edit (`make check-mutants`\n"
               "regenerates it and requires this text, timings excepted). Each mutant is the reference\n"
               "built with exactly one known source of non-determinism: a flag, or one patch of\n"
               "`spec/mutants/` applied to a copy of the tree (its comment names the spec rule). Each is run\n"
               "through `isotrain-conform run --level all` against `vectors/v1.0.0` (a mutant of addmod113's\n"
               "rules against `vectors/v1.1.0`, profile addmod113, 2 steps; of gptchar's against\n"
               "`vectors/v1.2.0`, profile gptchar, 3 steps, or all 500 for a defect that reads the run's own\n"
               "length; of the GPT family's, spec §16, against the set `isotrain-conform vectors --recipe`\n"
               "makes of `spec/recipes/tiny.json`, all 5 steps), natively or under the emulator named (build\n"
               "`mpi`: the data-parallel trainer `isotrain-mpi` under `mpirun -np N`, spec §15, the train\n"
               "level only: its defects are in how a step's sums pass between ranks), with the\n"
               "portable kernel set, or the avx2 set for a mutant of the SIMD kernels (the best set of a CPU\n"
               "without AVX2), so the table is the same on every x86_64 machine with AVX2 (`ci/mutants.sh`).\n"
               "*killed*: the runner failed it; *equivalent*: it passes, and the list\n"
               "records why no conforming comparison can tell it from the reference.\n\n"
               "First op vector: the first failing op case in the runner's order. First train step: the\n"
               "first step whose checkpoint digest differs (`/run`: the run itself failed). Localization:\n"
               "what the runner reported (first failing op case, the train failure, first differing\n"
               "tensor element and first differing op of the replayed step; when neither failed, a recipe's\n"
               "failed refusal case `fresh/<recipe>/corpus-digest`).\n\n");
    fprintf(o, "| mutant | defect | spec | build, run | expected | result | first op vector | first train step | localization |\n");
    fprintf(o, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < n; i++) {
        mutant *m = &ms[i];
        fprintf(o, "| `%s` | ", m->f[F_ID]);
        cell(o, m->f[F_DEFECT]);
        fprintf(o, " | %s | %s", m->f[F_SPEC], m->f[F_BUILD]);
        if (strcmp(m->f[F_CFLAGS], "-") != 0)
            fprintf(o, " `%s`", m->f[F_CFLAGS]);
        fprintf(o, ", %s | %s | **%s** | %s | %s | ", m->f[F_RUN], m->f[F_EXPECTED], m->result, m->first_op,
                m->first_step);
        cell(o, m->where);
        if (!strcmp(m->f[F_EXPECTED], "equivalent")) {
            fputs(" Evidence of equivalence: ", o);
            cell(o, m->f[F_EVIDENCE]);
        }
        fputs(" |\n", o);
    }
    fprintf(o, "\n%zu mutants: %zu killed, %zu equivalent, %zu not as expected.\n\n", n, killed, equivalent, bad);
    fprintf(o, "%s\n\n## Timings\n\n| mutant | seconds (build + run) |\n| --- | --- |\n", TIMINGS_MARKER);
    for (size_t i = 0; i < n; i++)
        fprintf(o, "| `%s` | %.1f |\n", ms[i].f[F_ID], ms[i].seconds);
    return bad ? 1 : 0;
}
