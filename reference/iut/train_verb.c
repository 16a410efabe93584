/* The train verb of iut-protocol P7 for every front end: the checks in one
 * order (syntax 2, the profile 64, the other usage checks 2, DIR and FILE
 * 4, the §2.2 probe 3), the run through the profile table's one loop, and
 * the failure line. */
#define _POSIX_C_SOURCE 200809L /* mkdir, stat: --checkpoint-dir is created (P7) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifdef _WIN32
#include <direct.h>
#define it_mkdir(path) _mkdir(path) /* Windows has no permission bits for mkdir */
#else
#define it_mkdir(path) mkdir((path), 0777)
#endif

#include "fpenv_force.h"
#include "iut.h"
#include "iut_options.h"

static void say(const iut_front *f, const char *fmt, ...)
{
    if (!f->writer)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s train: ", f->prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int agree(const iut_front *f, int status) { return f->agree ? f->agree(f, status) : status; }

/* ISOTRAIN_THREADS sets the default so a runner that knows nothing of
 * --threads still gets a fast run; ISOTRAIN_EVAL=0 leaves out §13.7's
 * optional evaluation keys (under QEMU each costs three training steps) */
static int environment(iut_train_request *r, char *err, size_t cap)
{
    const char *t = getenv("ISOTRAIN_THREADS"), *e = getenv("ISOTRAIN_EVAL");
    char *end;
    if (iut_given(r, "--threads")) /* the option outranks the environment's default */
        t = NULL;
    else
        r->threads = 1;
    if (t && *t) {
        unsigned long v = strtoul(t, &end, 10);
        if (*end || t[0] == '-' || v < 1 || v > 64)
            return it_errf(err, cap, IUT_EXIT_USAGE, "ISOTRAIN_THREADS expects 1..64, got '%s'", t);
        r->threads = (uint32_t)v;
    }
    r->cfg.eval = !(e && strcmp(e, "0") == 0);
    return 0;
}

/* iut-protocol P7 (1.1.0): an unknown profile is like a verb the IUT lacks
 * (P1), so the runner skips what it cannot run instead of failing it */
/* P7 (1.3.0): --recipe FILE in place of --profile: a member of the GPT
 * family (spec §16), refused (2) with its file and field named when it is
 * not a recipe */
static int choose_recipe(iut_train_request *r, char *err, size_t cap)
{
    if (r->profile_name)
        return it_errf(err, cap, IUT_EXIT_USAGE, "--profile and --recipe exclude each other");
    r->recipe = calloc(1, sizeof *r->recipe);
    r->recipe_row = calloc(1, sizeof *r->recipe_row);
    if (!r->recipe || !r->recipe_row)
        return it_errf(err, cap, IUT_EXIT_USAGE, "--recipe: out of memory");
    char why[768];
    if (it_gpt_recipe_load(r->recipe_path, r->recipe, why, sizeof why))
        return it_errf(err, cap, IUT_EXIT_USAGE, "--recipe: %s", why);
    if (it_gpt_profile_make(r->recipe, r->recipe_row))
        return it_errf(err, cap, IUT_EXIT_USAGE, "--recipe %s: out of memory", r->recipe_path);
    r->profile = &r->recipe_row->p;
    return 0;
}

static int choose_profile(iut_train_request *r, char *err, size_t cap)
{
    char known[128];
    it_profile_names(", ", known, sizeof known);
    if (r->recipe_path) {
        int rc = choose_recipe(r, err, cap);
        if (rc)
            return rc;
    } else if (!r->profile_name)
        return it_errf(err, cap, IUT_EXIT_USAGE, "--profile is required, or --recipe FILE (known: %s)", known);
    else if (!(r->profile = it_profile_find(r->profile_name)))
        return it_errf(err, cap, IUT_EXIT_UNSUPPORTED, "unsupported profile '%s' (known: %s)", r->profile_name, known);
    const it_profile *p = r->profile;
    int eval = r->cfg.eval;
    r->cfg = it_train_config_default(p);
    r->cfg.eval = eval && p->n_eval_steps > 0;
    r->cfg.threads = p->threaded ? r->threads : 1;
    if (iut_given(r, "--seed"))
        r->cfg.seed = r->seed;
    if (!iut_given(r, "--steps"))
        r->steps = p->steps;
    return 0;
}

static int beyond(const uint32_t *list, size_t n, uint32_t steps, const char *what, char *err, size_t cap)
{
    for (size_t k = 0; k < n; k++)
        if (list[k] > steps)
            return it_errf(err, cap, IUT_EXIT_USAGE, "%s step %u is beyond --steps %u", what, (unsigned)list[k],
                         (unsigned)steps);
    return 0;
}

/* the usage checks after the profile (P7); a request that cannot be
 * honoured is an error, not a silent no-op */
static int check_request(const iut_train_request *r, char *err, size_t cap)
{
    const it_profile *p = r->profile;
    /* a scheduled profile's learning rate is defined for its own steps only (§7.4) */
    if (p->schedule != IT_LR_CONSTANT && r->steps > p->steps)
        return it_errf(err, cap, IUT_EXIT_USAGE, "%s has %u steps (spec %s.1), --steps %u is beyond them", p->name,
                     (unsigned)p->steps, p->clause, (unsigned)r->steps);
    /* spec 8.4, P7 (1.2.0): --resume and --from-step come together */
    if (!iut_given(r, "--resume") != !iut_given(r, "--from-step"))
        return it_errf(err, cap, IUT_EXIT_USAGE, "--resume DIR and --from-step K go together");
    if (iut_given(r, "--resume") && r->from_step > r->steps)
        return it_errf(err, cap, IUT_EXIT_USAGE, "--from-step %u is beyond --steps %u", (unsigned)r->from_step,
                     (unsigned)r->steps);
    if (r->n_sk && !r->dir)
        return it_errf(err, cap, IUT_EXIT_USAGE, "--state-steps needs --checkpoint-dir");
    int rc = beyond(r->sk, r->n_sk, r->steps, "state", err, cap);
    if (rc)
        return rc;
    if (iut_given(r, "--checkpoint-steps") && !r->dir)
        return it_errf(err, cap, IUT_EXIT_USAGE, "--checkpoint-steps needs --checkpoint-dir");
    return beyond(r->ck, r->n_ck, r->steps, "checkpoint", err, cap);
}

/* the checkpoint list of the run: the option's, "all" (every step 0..N,
 * whatever order the options came in), or the profile's */
static int checkpoint_list(iut_train_request *r, char *err, size_t cap)
{
    const it_profile *p = r->profile;
    r->opt.checkpoint_steps = r->ck;
    r->opt.n_checkpoint_steps = r->n_ck;
    if (!iut_given(r, "--checkpoint-steps")) {
        r->opt.checkpoint_steps = p->checkpoint_steps;
        r->opt.n_checkpoint_steps = p->n_checkpoint_steps;
    } else if (r->all_steps) {
        if ((uint64_t)r->steps + 1 > SIZE_MAX / sizeof *r->all || !(r->all = malloc(((size_t)r->steps + 1) * sizeof *r->all)))
            return it_errf(err, cap, IUT_EXIT_USAGE, "--checkpoint-steps all: cannot hold %llu steps",
                         (unsigned long long)r->steps + 1);
        for (uint64_t t = 0; t <= r->steps; t++)
            r->all[t] = (uint32_t)t;
        r->opt.checkpoint_steps = r->all;
        r->opt.n_checkpoint_steps = (size_t)r->steps + 1;
    }
    r->opt.steps = r->steps;
    r->opt.state_steps = r->sk;
    r->opt.n_state_steps = r->n_sk;
    return 0;
}

/* Everything before a file is touched: syntax, profile, usage. */
static int prepare(int argc, char **argv, const iut_front *f, iut_train_request *r, char *err, size_t cap)
{
    int rc = iut_parse_train_options(argc, argv, f->data_parallel, r, err, cap);
    if (!rc)
        rc = environment(r, err, cap);
    if (!rc)
        rc = choose_profile(r, err, cap);
    if (!rc)
        rc = check_request(r, err, cap);
    if (!rc && f->check)
        rc = f->check(f, r, err, cap);
    if (!rc)
        rc = checkpoint_list(r, err, cap);
    return rc;
}

/* iut-protocol P7 (1.1.0): DIR and its missing parents are created, as
 * mkdir -p does, each with mode 0777 less the umask; an existing directory
 * is used as it is */
static int make_checkpoint_dir(const iut_front *f, const char *dir)
{
    size_t n = strlen(dir);
    char *p = malloc(n + 1);
    if (!p) {
        say(f, "out of memory");
        return -1;
    }
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        char c = p[i];
        p[i] = '\0';
        if (it_mkdir(p) != 0 && errno != EEXIST) {
            say(f, "cannot create checkpoint directory %s: %s", p, strerror(errno));
            free(p);
            return -1;
        }
        p[i] = c;
    }
    free(p);
    struct stat st;
    if (stat(dir, &st) != 0)
        say(f, "cannot create checkpoint directory %s: %s", dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        say(f, "--checkpoint-dir %s exists and is not a directory", dir);
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* The writer's files, before anything runs (P7: a run that cannot write
 * its checkpoints leaves nothing behind); every process agrees. */
static int open_outputs(const iut_front *f, iut_train_request *r)
{
    int st = 0;
    if (f->writer) {
        if (r->dir && make_checkpoint_dir(f, r->dir) != 0)
            st = IUT_EXIT_IO;
        else if (!r->trace_path || strcmp(r->trace_path, "-") == 0)
            r->opt.trace = stdout;
        else if (!(r->opt.trace = fopen(r->trace_path, "wb"))) {
            say(f, "cannot create trace %s: %s", r->trace_path, strerror(errno));
            st = IUT_EXIT_IO;
        }
        r->opt.checkpoint_dir = r->dir;
    }
    return agree(f, st);
}

static int close_trace(const iut_front *f, const iut_train_request *r, it_status *st, char *err, size_t cap)
{
    if (!r->opt.trace)
        return 0;
    if (r->opt.trace == stdout)
        return fflush(stdout);
    if (fclose(r->opt.trace) != 0 && *st == IT_OK) {
        snprintf(err, cap, "cannot close trace %s: %s", r->trace_path, strerror(errno));
        *st = IT_ERR_IO;
    }
    (void)f;
    return 0;
}

/* iut-protocol P7: a failed run names its failure and the step it failed in */
static int report(const iut_front *f, it_status st, const it_train_state *s, const char *err)
{
    if (st == IT_OK)
        return 0;
    say(f, "FAILED (%s): %s", it_status_name(st), err);
    uint32_t step;
    if (f->writer && it_train_failure_step(st, s, &step))
        fprintf(stderr, "failure=%s step=%lu\n", it_status_name(st), (unsigned long)step);
    return st == IT_ERR_FPENV ? IUT_EXIT_FPENV : st == IT_ERR_IO ? IUT_EXIT_IO : IUT_EXIT_TRAIN_FAILED;
}

/* spec 8.4: every process reads the state it resumes from before any step
 * (a process that cannot would leave the others waiting in a step) */
static int resume_readable(const iut_front *f, const iut_train_request *r, it_train_state *s)
{
    char err[512];
    int st = 0;
    if (f->agree && r->opt.resume_dir &&
        it_state_read(r->opt.resume_dir, r->from_step, r->profile->nparams, s->params, s->m, s->v, err, sizeof err) !=
            IT_OK) {
        /* every process: each names its own file */
        fprintf(stderr, "%s train: FAILED (%s): %s\n", f->prog, it_status_name(IT_ERR_IO), err);
        st = IUT_EXIT_IO;
    }
    return agree(f, st);
}

/* spec §2.2: every process of a job probes its own environment before any
 * step (one that stopped alone would leave the others waiting); a single
 * process leaves it to the run loop */
static int probe_all(const iut_front *f)
{
    char err[512];
    int st = 0;
    if (f->agree && it_fpenv_check(err, sizeof err) != IT_OK) {
        fprintf(stderr, "%s train: FAILED (%s): %s\n", f->prog, it_status_name(IT_ERR_FPENV), err);
        st = IUT_EXIT_FPENV;
    }
    st = agree(f, st);
    if (st == IUT_EXIT_FPENV && f->writer)
        fprintf(stderr, "failure=%s step=0\n", it_status_name(IT_ERR_FPENV));
    return st;
}

/* What a process read or parsed for itself beyond its command line (which
 * the MPI front end compares first): the profile row (a recipe's is made
 * from its file) with the options that size and count the run, the corpus
 * (a recipe's is a file), the state it resumes from (its files). Ranks on
 * hosts with different files would otherwise size their buffers, count
 * their steps or compute their partials from different data. */
enum { PART_ROW, PART_CORPUS, PART_STATE, N_PARTS };

static void put_u64(it_sha256_ctx *c, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    it_sha256_update(c, b, sizeof b);
}

static void put_str(it_sha256_ctx *c, const char *s)
{
    s = s ? s : "";
    it_sha256_update(c, s, strlen(s) + 1);
}

/* the processes of one job share a byte order (isotrain_mpi.c checks it
 * first): the floats' storage is their bits alike on each */
static void put_f32s(it_sha256_ctx *c, const float *x, size_t n)
{
    if (x && n)
        it_sha256_update(c, x, n * sizeof *x);
}

static void request_digests(const iut_train_request *r, const it_train_state *s, unsigned char d[N_PARTS][32])
{
    const it_profile *p = r->profile;
    it_sha256_ctx c;
    it_sha256_init(&c);
    /* a table row is its name in its spec version (the vectors never
     * change under a name); a recipe's row is its document, every field of
     * it (the row keeps only what the run loop needs) */
    put_str(&c, IT_SPEC_VERSION);
    put_str(&c, p->name);
    if (r->recipe)
        it_sha256_update(&c, r->recipe->sha256, sizeof r->recipe->sha256);
    uint32_t lr;
    memcpy(&lr, &r->cfg.lr, sizeof lr);
    const uint64_t v[] = {r->steps, r->from_step, r->block_bytes, r->cfg.seed, lr};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        put_u64(&c, v[i]);
    it_sha256_final(&c, d[PART_ROW]);
    it_sha256_init(&c);
    put_u64(&c, r->cfg.corpus ? r->cfg.corpus_len : 0);
    if (r->cfg.corpus)
        it_sha256_update(&c, r->cfg.corpus, r->cfg.corpus_len);
    it_sha256_final(&c, d[PART_CORPUS]);
    it_sha256_init(&c);
    if (r->opt.resume_dir) {
        put_f32s(&c, s->params, p->nparams);
        put_f32s(&c, s->m, p->nparams);
        put_f32s(&c, s->v, p->nparams);
    }
    it_sha256_final(&c, d[PART_STATE]);
}

static int run(const iut_front *f, iut_train_request *r)
{
    int pr = probe_all(f);
    if (pr != 0)
        return pr;
    it_train_state *s = it_train_state_new(r->profile);
    int rc = agree(f, s ? 0 : IUT_EXIT_IO);
    if (rc != 0) {
        say(f, "out of memory for the state of profile %s", r->profile->name);
        it_train_state_free(s);
        return rc;
    }
    if ((rc = resume_readable(f, r, s)) != 0) {
        it_train_state_free(s);
        return rc;
    }
    if (f->same) {
        static const char *const names[N_PARTS] = {"the profile row and the run's options", "the corpus",
                                                   "the state it resumes from"};
        unsigned char d[N_PARTS][32];
        request_digests(r, s, d);
        if ((rc = f->same(f, (const unsigned char(*)[32])d, names, N_PARTS)) != 0) {
            it_train_state_free(s);
            return rc;
        }
    }
    char err[512];
    r->opt.from_step = r->from_step;
    it_status st = f->run ? f->run(f, r, s, err, sizeof err)
                          : it_train_run_profile(r->profile, &r->cfg, &r->opt, NULL, s, err, sizeof err);
    close_trace(f, r, &st, err, sizeof err);
    rc = report(f, st, s, err);
    /* the writer alone writes, so it alone sees an I/O failure */
    if (st == IT_ERR_IO && f->abort_job)
        f->abort_job(f, rc);
    it_train_state_free(s);
    return rc;
}

int iut_train(int argc, char **argv, const iut_front *f)
{
    iut_train_request r;
    memset(&r, 0, sizeof r);
    r.trace_path = "-";
    r.block_bytes = 16384; /* a block of a partial gradient between ranks: speed only */
    char err[512];
    int rc = prepare(argc, argv, f, &r, err, sizeof err);
    if (rc != 0)
        say(f, "%s", err);
    /* every process, whatever it concluded: one that refused alone (a file
     * only its host lacks) must not leave the others in the next collective */
    if (f->refused)
        rc = f->refused(f, rc, err);
    /* spec §2.2: every process turns flushing on itself (a negative control) */
    if (rc == 0) {
        if (r.force_ftz && it_fpenv_force_flush() != 0) {
            fprintf(stderr, "%s train: --force-ftz: no flush mode known on %s\n", f->prog, it_host_isa());
            rc = IUT_EXIT_USAGE;
        }
        rc = agree(f, rc);
    }
    if (rc == 0)
        rc = open_outputs(f, &r);
    if (rc == 0)
        rc = run(f, &r);
    else if (r.opt.trace && r.opt.trace != stdout)
        fclose(r.opt.trace);
    free(r.ck);
    free(r.sk);
    free(r.all);
    if (r.recipe_row)
        it_gpt_profile_free(r.recipe_row);
    if (r.recipe)
        it_gpt_recipe_free(r.recipe);
    free(r.recipe_row);
    free(r.recipe);
    return rc;
}

void iut_usage(FILE *out, const char *head, const char *prog, int data_parallel, const char *rest)
{
    char known[128];
    fputs(head, out);
    it_profile_names("|", known, sizeof known);
    fprintf(out,
            "  %s train --profile %s|--recipe FILE [--steps N] [--trace FILE|-] [--seed S]\n"
            "           [--checkpoint-dir DIR] [--checkpoint-steps S,S,...|all]\n"
            "           [--state-steps S,S,...] [--resume DIR --from-step K]\n"
            "           [--threads N] [--force-ftz]%s\n",
            prog, known, data_parallel ? " [--block-bytes B] [--stats]" : "");
    fputs(rest, out);
}
