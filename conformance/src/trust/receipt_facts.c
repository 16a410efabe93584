/* receipt_facts.c — see receipt_facts.h. */
#include "trust/receipt_facts.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* A string field, at most 4 KiB (a path, a digest, a version line), copied;
 * NULL when absent, null or not a string. */
static char *str_copy(const rv *scope, rf_id k)
{
    const char *v = rv_str(scope, k);
    return v ? sanitized(v, strlen(v), 4096) : NULL;
}

static int is_digest(const char *s)
{
    return s && strlen(s) == 64 && is_lower_hex(s, 64);
}

/* iut.code_mapped and iut.loader_environment, when the receipt has them
 * (issue 27 item 4); a receipt that has them names every process's path. */
static void read_code(const char *file, const rv *top, receipt_facts *f, problems *pr)
{
    int cm = rv_at(top, RF_IUT_CODE_MAPPED)->present, le = rv_at(top, RF_IUT_LOADER_ENVIRONMENT)->present;
    if (cm && (!rv_has(top, RF_IUT_CODE_MAPPED) || rv_len(top, RF_IUT_CODE_MAPPED) > FACTS_MAX_CODE)) {
        problems_add(pr, "%s: iut.code_mapped: expected an array of at most %d files", file, FACTS_MAX_CODE);
        cm = 0;
    }
    f->code_recorded = cm;
    for (size_t i = 0; cm && i < rv_len(top, RF_IUT_CODE_MAPPED); i++) {
        const rv *x = rv_el(top, RF_IUT_CODE_MAPPED, i);
        facts_code *c = &f->code[f->n_code];
        c->path = str_copy(x, RF_IUT_CODE_MAPPED_PATH);
        c->sha256 = str_copy(x, RF_IUT_CODE_MAPPED_SHA256);
        c->is_subject = rv_true(x, RF_IUT_CODE_MAPPED_IS_SUBJECT);
        if (!c->path || !c->path[0] || (c->sha256 && !is_digest(c->sha256)) ||
            (!c->sha256 && !rv_at(x, RF_IUT_CODE_MAPPED_SHA256)->null))
            problems_add(pr, "%s: iut.code_mapped[%zu]: expected a non-empty path and sha256 (64 lowercase hex "
                             "digits, or null)", file, f->n_code);
        f->n_code++;
    }
    if (le && (!rv_has(top, RF_IUT_LOADER_ENVIRONMENT) || rv_len(top, RF_IUT_LOADER_ENVIRONMENT) > FACTS_MAX_ENV)) {
        problems_add(pr, "%s: iut.loader_environment: expected an array of at most %d strings", file, FACTS_MAX_ENV);
        le = 0;
    }
    f->env_recorded = le;
    for (size_t i = 0; le && i < rv_len(top, RF_IUT_LOADER_ENVIRONMENT); i++) {
        const char *x = rv_el_str(top, RF_IUT_LOADER_ENVIRONMENT, i);
        if (!x || !strchr(x, '='))
            problems_add(pr, "%s: iut.loader_environment[%zu]: expected \"NAME=VALUE\"", file, f->n_env);
        else
            f->env[f->n_env++] = sanitized(x, strlen(x), 512);
    }
    for (size_t i = 0; f->code_recorded && i < f->n_procs; i++)
        if (!f->procs[i].path || !f->procs[i].path[0])
            problems_add(pr, "%s: iut.processes_seen[%zu].path: expected a non-empty path", file, i);
}

/* trust_rules (absent: the first rules) and the emulator. */
static void read_head(const char *file, const rv *top, receipt_facts *f, problems *pr)
{
    f->rules = 1;
    if (rv_at(top, RF_TRUST_RULES)->present) {
        double d;
        if (rv_num(top, RF_TRUST_RULES, &d) != 0 || !isfinite(d) || d != floor(d) || d < 1 || d > 1000)
            problems_add(pr, "%s: trust_rules: expected a whole number", file);
        else
            f->rules = (int)d;
    }
    f->host_isa = str_copy(top, RF_HOST_ISA);
    if (rv_has(top, RF_EMULATOR)) {
        f->emulated = 1;
        f->emu_name = str_copy(top, RF_EMULATOR_NAME);
        f->emu_cpu = str_copy(top, RF_EMULATOR_CPU);
        f->emu_source = str_copy(top, RF_EMULATOR_SOURCE);
        f->emu_path = str_copy(top, RF_EMULATOR_PATH);
        f->emu_sha256 = str_copy(top, RF_EMULATOR_SHA256);
        f->emu_version = str_copy(top, RF_EMULATOR_VERSION);
        f->emu_is_executable = rv_true(top, RF_EMULATOR_IS_EXECUTABLE);
    }
}

/* A string member of a facts struct and the field it is copied from: the
 * subject's files and the executables seen are read from these rows. */
typedef struct {
    rf_id id;
    size_t at;
} str_member;

static const str_member file_strs[] = {
    {RF_IUT_SUBJECT_FILES_ROLE, offsetof(facts_file, role)},
    {RF_IUT_SUBJECT_FILES_PATH, offsetof(facts_file, path)},
    {RF_IUT_SUBJECT_FILES_SHA256, offsetof(facts_file, sha256)},
    {RF_IUT_SUBJECT_FILES_SHA256_AFTER, offsetof(facts_file, sha256_after)},
    {RF_IUT_SUBJECT_FILES_FORMAT, offsetof(facts_file, format)},
    {RF_IUT_SUBJECT_FILES_ISA, offsetof(facts_file, isa)},
};
static const str_member proc_strs[] = {
    {RF_IUT_PROCESSES_SEEN_PATH, offsetof(facts_proc, path)},
    {RF_IUT_PROCESSES_SEEN_SHA256, offsetof(facts_proc, sha256)},
    {RF_IUT_PROCESSES_SEEN_FORMAT, offsetof(facts_proc, format)},
    {RF_IUT_PROCESSES_SEEN_ISA, offsetof(facts_proc, isa)},
};

static void copy_strs(const rv *x, const str_member *m, size_t n, void *into)
{
    for (size_t k = 0; k < n; k++)
        *(char **)((char *)into + m[k].at) = str_copy(x, m[k].id);
}

/* The subject's files (the argv form). */
static void read_files(const char *file, const rv *top, receipt_facts *f, problems *pr)
{
    size_t n = rv_len(top, RF_IUT_SUBJECT_FILES);
    if (!rv_has(top, RF_IUT_SUBJECT_FILES) || n < 1 || n > FACTS_MAX_FILES) {
        problems_add(pr, "%s: iut.subject.files: expected 1 to %d files", file, FACTS_MAX_FILES);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const rv *x = rv_el(top, RF_IUT_SUBJECT_FILES, i);
        facts_file *ff = &f->files[f->n_files];
        copy_strs(x, file_strs, sizeof file_strs / sizeof file_strs[0], ff);
        ff->executed = rv_true(x, RF_IUT_SUBJECT_FILES_EXECUTED);
        if (!ff->role || !ff->path || !is_digest(ff->sha256))
            problems_add(pr, "%s: iut.subject.files[%zu]: expected role, path and sha256 (64 lowercase hex digits)",
                         file, f->n_files);
        if (ff->role && !strcmp(ff->role, "guest"))
            f->guest = (int)f->n_files;
        f->n_files++;
    }
}

/* The executables seen running. */
static void read_procs(const char *file, const rv *top, receipt_facts *f, problems *pr)
{
    size_t n = rv_len(top, RF_IUT_PROCESSES_SEEN);
    if (!rv_has(top, RF_IUT_PROCESSES_SEEN) || n > FACTS_MAX_PROCS) {
        problems_add(pr, "%s: iut.processes_seen: expected an array of at most %d executables", file, FACTS_MAX_PROCS);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const rv *x = rv_el(top, RF_IUT_PROCESSES_SEEN, i);
        facts_proc *p = &f->procs[f->n_procs];
        copy_strs(x, proc_strs, sizeof proc_strs / sizeof proc_strs[0], p);
        p->is_subject = rv_true(x, RF_IUT_PROCESSES_SEEN_IS_SUBJECT);
        if (!is_digest(p->sha256))
            problems_add(pr, "%s: iut.processes_seen[%zu].sha256: expected 64 lowercase hex digits", file, f->n_procs);
        f->n_procs++;
    }
}

int receipt_facts_read(const char *file, const rv *top, receipt_facts *f, problems *pr)
{
    memset(f, 0, sizeof *f);
    f->guest = -1;
    size_t before = pr->n;
    read_head(file, top, f, pr);
    if (f->rules < 2)
        return pr->n == before ? 0 : -1;
    /* the current rules: the subject, what ran, the containment */
    const char *form = rv_str(top, RF_IUT_SUBJECT_FORM);
    if (!form || (strcmp(form, "argv") && strcmp(form, "shell")) || !rv_has(top, RF_IUT_SUBJECT_BOUND)) {
        problems_add(pr, "%s: iut.subject: expected form \"argv\" or \"shell\" and bound (true or false)", file);
        return -1;
    }
    f->argv_form = !strcmp(form, "argv");
    f->bound = rv_true(top, RF_IUT_SUBJECT_BOUND);
    if (f->bound && !f->argv_form)
        problems_add(pr, "%s: iut.subject.bound: the shell form binds nothing", file);
    f->unbound_reason = str_copy(top, RF_IUT_SUBJECT_REASON);
    if (f->argv_form)
        read_files(file, top, f, pr);
    read_procs(file, top, f, pr);
    f->containment = str_copy(top, RF_IUT_CONTAINMENT);
    read_code(file, top, f, pr);
    return pr->n == before ? 0 : -1;
}

void receipt_facts_free(receipt_facts *f)
{
    for (size_t i = 0; i < f->n_files; i++) {
        facts_file *x = &f->files[i];
        free(x->role), free(x->path), free(x->sha256), free(x->sha256_after), free(x->format), free(x->isa);
    }
    for (size_t i = 0; i < f->n_procs; i++)
        free(f->procs[i].path), free(f->procs[i].sha256), free(f->procs[i].format), free(f->procs[i].isa);
    free(f->unbound_reason), free(f->emu_name), free(f->emu_cpu), free(f->emu_source), free(f->emu_path);
    free(f->emu_sha256), free(f->emu_version), free(f->containment), free(f->host_isa);
    for (size_t i = 0; i < f->n_code; i++)
        free(f->code[i].path), free(f->code[i].sha256);
    for (size_t i = 0; i < f->n_env; i++)
        free(f->env[i]);
    memset(f, 0, sizeof *f);
}

const char *receipt_facts_program_isa(const receipt_facts *f)
{
    if (f->guest >= 0 && f->files[f->guest].isa)
        return f->files[f->guest].isa;
    for (size_t i = 0; i < f->n_files; i++)
        if (f->files[i].executed && f->files[i].isa)
            return f->files[i].isa;
    return "";
}

const char *receipt_facts_subject_word(const receipt_facts *f)
{
    if (f->rules < 2)
        return "not recorded (first trust rules)";
    return f->bound ? "bound" : "UNBOUND (shell form)";
}

/* An executable that runs code it reads itself (a script's modules, a
 * shell's commands), which no digest of the executable binds. */
static int is_interpreter(const char *path)
{
    static const char *const exact[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "tclsh",
                                        "Rscript", "julia", "env"};
    static const char *const prefix[] = {"python", "pypy", "perl", "ruby", "node", "java", "lua", "php"};
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (!strcmp(b, exact[i]))
            return 1;
    for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
        if (!strncmp(b, prefix[i], strlen(prefix[i])))
            return 1;
    return 0;
}

static const char *base_name(const char *p)
{
    const char *b = p ? strrchr(p, '/') : NULL;
    return b ? b + 1 : p ? p : "?";
}

/* The UNBOUND parts, "; "-separated, into u; the recorded-only part into r. */
static void unbound_parts(const receipt_facts *f, sbuf *u, sbuf *r)
{
    for (size_t i = 0; i < f->n_procs; i++) {
        const facts_proc *p = &f->procs[i];
        const char *path = p->path && p->path[0] ? p->path : "(unnamed)";
        if (!p->is_subject)
            sbuf_printf(u, "%s%s ran but the subject does not name it", u->len ? "; " : "", path);
        if (is_interpreter(path))
            sbuf_printf(u, "%sinterpreted code: %s runs code it loads itself (scripts, modules), which no digest binds",
                        u->len ? "; " : "", path);
    }
    for (size_t i = 0; i < f->n_env; i++)
        sbuf_printf(u, "%sloader environment %s", u->len ? "; " : "", f->env[i]);
    size_t others = 0;
    for (size_t i = 0; i < f->n_code; i++) {
        if (!f->code[i].sha256)
            sbuf_printf(u, "%s%s was replaced after it was mapped (no digest)", u->len ? "; " : "", f->code[i].path);
        else if (!f->code[i].is_subject)
            sbuf_printf(r, "%s%s", others++ ? ", " : "", base_name(f->code[i].path));
    }
}

receipt_binding receipt_facts_binding(const receipt_facts *f)
{
    if (f->rules < 2)
        return BINDING_CLAIMED;
    if (!f->bound)
        return BINDING_SHELL;
    sbuf u, r;
    sbuf_init(&u), sbuf_init(&r);
    unbound_parts(f, &u, &r);
    int unbound = u.len > 0;
    sbuf_free(&u), sbuf_free(&r);
    if (unbound)
        return BINDING_NOT_FULLY;
    return f->code_recorded && f->env_recorded ? BINDING_BOUND : BINDING_PARTLY_RECORDED;
}

const char *receipt_binding_cell(receipt_binding b)
{
    static const char *const cell[] = {"claimed", "UNBOUND", "NOT FULLY BOUND", "bound", "bound"};
    return cell[b];
}

char *receipt_facts_subject_text(const receipt_facts *f)
{
    receipt_binding b = receipt_facts_binding(f);
    if (b == BINDING_CLAIMED || b == BINDING_SHELL)
        return xstrdup(receipt_facts_subject_word(f));
    sbuf u, r, out;
    sbuf_init(&u), sbuf_init(&r), sbuf_init(&out);
    unbound_parts(f, &u, &r);
    int all_recorded = f->code_recorded && f->env_recorded;
    sbuf_printf(&out, "%s: the program (argv form, %zu file%s named by the subject)",
                b == BINDING_NOT_FULLY ? "NOT FULLY BOUND"
                : b == BINDING_BOUND   ? "bound"
                                       : "PARTLY RECORDED, the program bound",
                f->n_files, f->n_files == 1 ? "" : "s");
    if (u.len)
        sbuf_printf(&out, "; UNBOUND: %s", u.p);
    if (!all_recorded)
        sbuf_printf(&out, "; not recorded (a receipt written before they were): %s%s%s",
                    f->code_recorded ? "" : "the files mapped executable", !f->code_recorded && !f->env_recorded ? ", " : "",
                    f->env_recorded ? "" : "the loader environment");
    if (r.len)
        sbuf_printf(&out, "; recorded with digests, not bound: %s", r.p);
    char *s = xstrdup(out.p);
    sbuf_free(&u), sbuf_free(&r), sbuf_free(&out);
    return s;
}
