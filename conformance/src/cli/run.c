/* run.c — `isotrain-conform run`: refuse a vector set whose manifest does not
 * verify (vectors/FORMAT.md §4), load and lint every vector file (§2, §3),
 * greet the IUT (spec/iut-protocol.md P2), run the selected levels, write the
 * receipt and JUnit, print the summary. */
#include "levels/levels.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/iut_keeper.h"
#include "protocol/iut_process.h"
#include "protocol/iut_room.h"
#include "report/junit.h"
#include "report/receipt.h"
#include "core/version.h"
#include "fresh/fresh.h"
#include "protocol/proc_seen.h"
#include "trust/set_signature.h"
#include "vectorset/ops_base.h"
#include "vectorset/recipe_set.h"

/* FORMAT.md §4: a vector set that does not verify or load runs no case; the
 * problems go to stderr, the refusal to the summary. Frees everything. */
static void refuse_vectors(run_ctx *rc, const char *dir, const char *why, problems *pr, size_t bad)
{
    fprintf(stderr, "isotrain-conform: refusing the vector set %s: %s:\n", dir, why);
    problems_print(pr, stderr, "  ");
    fprintf(rc->out, "vectors: REFUSED (%zu problem%s, see stderr); no case was run\n", bad, bad == 1 ? "" : "s");
    problems_free(pr);
    run_ctx_free(rc);
}

/* Why cases were skipped, in words the closing line can carry: the
 * exhaustive sweeps are not a gap, a profile out of --profile's scope or
 * newer than the IUT's spec is named as such (verdict/requirements.h). */
static void skipped_breakdown(FILE *out, const run_ctx *rc)
{
    static const char *const label[] = {"required", "exhaustive sweeps: --exhaustive", "out of scope: --profile",
                                        "not implemented: newer than the IUT's spec",
                                        "not required by spec"};
    size_t n[5] = {0, 0, 0, 0, 0}, kinds = 0, total = 0;
    for (size_t i = 0; i < rc->res.n; i++)
        if (rc->res.c[i].v == V_SKIP) {
            req_kind k = req_case_kind(&rc->req, &rc->res.c[i]);
            kinds += n[k]++ == 0;
            total++;
        }
    if (!total)
        return;
    fprintf(out, ", %zu skipped (", total);
    int first = 1;
    for (int k = 1; k <= 5; k++) { /* the required ones last */
        int kk = k % 5;
        if (!n[kk])
            continue;
        if (kinds > 1)
            fprintf(out, "%s%zu %s", first ? "" : "; ", n[kk], label[kk]);
        else
            fputs(label[kk], out);
        if (kk == RQ_PROFILE_SCOPE)
            fprintf(out, " %s", rc->a->profile);
        if (kk == RQ_BEYOND_IUT)
            fprintf(out, " %s", rc->req.iut_text);
        if (kk == RQ_NOT_CERTIFIED)
            fprintf(out, " %s", rc->req.certified_text);
        first = 0;
    }
    fputc(')', out);
}

/* The closing line: "N passed, N failed[, N skipped (why)]; VERDICT[: why]"
 * (errors count as failed): the scope travels with the counts, so a
 * narrower run can never be read as a certification, and a FAIL names the
 * first case that failed and its reason. */
static void closing_line(FILE *out, const run_ctx *rc)
{
    const run_verdict *v = &rc->verdict;
    tally t = results_tally(&rc->res, NULL);
    fprintf(out, "%zu passed, %zu failed", t.passed, t.failed + t.errors);
    skipped_breakdown(out, rc);
    fprintf(out, "; %s", v->word);
    if (!strcmp(v->word, "PASS"))
        fputs(" (full certification)", out);
    if (v->first_failure && !strcmp(v->word, "FAIL")) {
        size_t bad = t.failed + t.errors;
        fprintf(out, ": first failure: %s", v->first_failure);
        if (bad > 1)
            fprintf(out, " (and %zu more failed case%s)", bad - 1, bad == 2 ? "" : "s");
    } else
        for (size_t i = 0; i < v->n_reasons; i++)
            fprintf(out, "%s%s", i ? "; " : ": ", v->reasons[i]);
    fputc('\n', out);
}

/* What the argv form binds, one line per file. */
static void subject_print(FILE *out, const iut_target *t)
{
    fprintf(out, "subject: bound (argv form, no shell): every verb executes %s through the descriptor it was hashed from\n",
            t->f[t->exec_file].path);
    for (size_t i = 0; i < t->nf; i++) {
        const target_file *f = &t->f[i];
        fprintf(out, "subject: %-11s %s sha256 %s (%s%s%s)\n", f->role, f->path, f->sha256, exe_kind_name(f->fmt.kind),
                f->fmt.isa[0] ? " " : "", f->fmt.isa);
    }
    if (t->emulated)
        fprintf(out, "subject: emulator %s%s%s: %s\n", t->emu_name, t->emu_cpu ? " -cpu " : "",
                t->emu_cpu ? t->emu_cpu : "", t->emu_version ? t->emu_version : "");
}

/* After the run: each bound file as a later reader finds it. A change
 * during the run (or one refused before a verb) is the failing case
 * iut-binary; NULL if none. */
static char *subject_changed(iut_target *t)
{
    iut_target_finish(t);
    if (t->changed)
        return xstrdup(t->changed);
    for (size_t i = 0; i < t->nf; i++)
        if (strcmp(t->f[i].sha256, t->f[i].sha256_after) != 0)
            return xasprintf("the IUT binary changed during the run: the %s %s had SHA-256 %s before, %s after",
                             t->f[i].role, t->f[i].path, t->f[i].sha256,
                             t->f[i].sha256_after[0] ? t->f[i].sha256_after : "(unreadable)");
    return NULL;
}

/* DESIGN.md Wave 4, "the key not in the room": --sign-key only where the
 * IUT's tree can be kept from the key (protocol/iut_room.h); elsewhere the
 * run is refused before any IUT starts, and `sign` is the way. */
static int key_out_of_reach(run_ctx *rc, const char *key)
{
    char err[600];
    if (!contain_namespaced())
        snprintf(err, sizeof err, "--sign-key %s: this system gives the IUT no PID namespace (contain: %s), so the "
                                  "runner cannot keep the key out of its reach; run without --sign-key and sign the "
                                  "receipt afterwards with `isotrain-conform sign --sign-key KEY RECEIPT`",
                 key, getenv("ISOTRAIN_CONFORM_CONTAIN") ? "ISOTRAIN_CONFORM_CONTAIN=keeper" : "not permitted");
    else if (iut_room_hide(key, err, sizeof err) == 0) {
        fprintf(rc->out, "signing key: %s\n", iut_room_describe());
        return 0;
    }
    fprintf(stderr, "isotrain-conform: %s\n", err);
    fprintf(rc->out, "signing key: REFUSED: %s\n", err);
    run_ctx_free(rc);
    return -1;
}

/* A recipe set (vectorset/recipe_set.h) after its manifest verified: its
 * recipe, who signed it (signed_by: a key's fingerprint, NULL unsigned),
 * and the op vectors its certification runs; 0, or 2 once refused. */
static int recipe_vectors(run_ctx *rc, const char *signed_by)
{
    char err[640];
    if (recipe_set_open(rc, err, sizeof err) != 0) {
        fprintf(stderr, "isotrain-conform: refusing the vector set %s: its recipe: %s\n", rc->a->vectors, err);
        fprintf(rc->out, "vectors: REFUSED (its recipe, see stderr); no case was run\n");
        run_ctx_free(rc);
        return 2;
    }
    fprintf(rc->out, "vectors: RECIPE: recipe %s (%s) sha256:%s, made by %s; a PASS certifies this recipe's "
                     "run, not the official profiles\n",
            rc->recipe_name, rc->man.recipe_path, rc->man.recipe_sha256, rc->man.generator);
    snprintf(rc->recipe_signer, sizeof rc->recipe_signer, "%s", signed_by ? signed_by : "");
    if (signed_by)
        fprintf(rc->out, "vectors: signed: %s verifies over MANIFEST.json, by the key %s (whoever holds it: judge "
                         "the maker by that key)\n", RECIPE_SET_SIGNATURE, signed_by);
    else
        fprintf(rc->out, "vectors: UNSIGNED: no %s beside MANIFEST.json; nothing says who made this set\n",
                RECIPE_SET_SIGNATURE);
    if (recipe_ops_open(rc) != 0) {
        run_ctx_free(rc);
        return 2;
    }
    fprintf(rc->out, "vectors: the recipe's op vectors: %zu op groups the GPT family uses, of the official set "
                     "%s (manifest %s, pinned)\n", rc->vs.n_groups, rc->ops_dir, rc->ops_digest);
    return 0;
}

/* A signed set's MANIFEST.json.sig (trust/set_signature.h), before its
 * manifest is believed: the fingerprint into fp ("" unsigned); 0, or 2 once
 * a signature that does not verify refused the set. */
static int check_signature(run_ctx *rc, char fp[64])
{
    char err[1200];
    if (set_signature_check(rc->a->vectors, fp, err, sizeof err) != SET_BAD)
        return 0;
    fprintf(stderr, "isotrain-conform: ERROR: %s\n", err);
    fprintf(rc->out, "vectors: ERROR: %s; no case was run\n", err);
    run_ctx_free(rc);
    return 2;
}

/* The vector set, verified and loaded (FORMAT.md §4: no case runs on a
 * vector set that does not verify), described; 0, or 2 once refused. */
static int load_vectors(run_ctx *rc)
{
    const conform_args *a = rc->a;
    char fp[64];
    if (check_signature(rc, fp) != 0)
        return 2;
    const char *signed_by = fp[0] ? fp : NULL;
    problems pr;
    problems_init(&pr);
    double t0 = now_s();
    size_t bad = manifest_verify(a->vectors, &rc->man, &pr);
    rc->t_manifest = now_s() - t0;
    if (bad) {
        refuse_vectors(rc, a->vectors, "its manifest does not verify (FORMAT.md §4)", &pr, bad);
        return 2;
    }
    t0 = now_s();
    bad = vectors_load(a->vectors, &rc->man, &rc->vs, &pr);
    rc->t_load = now_s() - t0;
    if (bad) {
        refuse_vectors(rc, a->vectors, "malformed vector files (FORMAT.md §2, §3)", &pr, bad);
        return 2;
    }
    problems_free(&pr);
    size_t n_cases = 0;
    for (size_t g = 0; g < rc->vs.n_groups; g++)
        n_cases += rc->vs.groups[g].n_cases;
    fprintf(rc->out, "vectors: %s (spec %s, vectors %s), manifest %s: %zu files verified; %zu op groups (%zu cases), %zu train profile%s\n",
            a->vectors, rc->vs.spec_version, rc->vs.vector_version, rc->man.digest, rc->man.n_files, rc->vs.n_groups,
            n_cases, rc->vs.n_trains, rc->vs.n_trains == 1 ? "" : "s");
    rc->official = official_find(rc->man.digest);
    if (rc->man.recipe_path) /* a recipe set: its recipe, read as an IUT will read it */
        return recipe_vectors(rc, signed_by);
    if (rc->official)
        fprintf(rc->out, "vectors: OFFICIAL: vector set %s (manifest digest pinned in the runner)\n",
                rc->official->vector_version);
    else
        fprintf(rc->out, "vectors: UNOFFICIAL: manifest digest %s is not one the runner pins "
                         "(conformance/src/vectorset/official.c); this run cannot be a PASS\n", rc->man.digest);
    return 0;
}

/* The subject (protocol/iut_target.h): the argv form is opened and hashed
 * now, and every verb executes what was hashed; the shell form binds
 * nothing. 0, or 2 once refused. */
static int bind_subject(run_ctx *rc)
{
    const conform_args *a = rc->a;
    fprintf(rc->out, "iut: %s\n", a->iut);
    if (a->n_iut_argv) {
        char terr[512];
        rc->target = xcalloc(1, sizeof *rc->target);
        if (iut_target_open(rc->target, (char *const *)a->iut_argv, a->n_iut_argv, terr, sizeof terr) != 0) {
            fprintf(stderr, "isotrain-conform: %s\n", terr);
            fprintf(rc->out, "iut: REFUSED: %s\n", terr);
            run_ctx_free(rc);
            return 2;
        }
        iut_target_register(rc->target);
        subject_print(rc->out, rc->target);
    } else
        fprintf(rc->out, "subject: UNBOUND: the shell form (--iut) runs /bin/sh -c; the runner cannot bind the program "
                         "the shell runs (--iut-exec binds it); the verdict is at best PARTIAL\n");
    fflush(rc->out);
    /* the binary is hashed before it runs: a receipt binds to what ran */
    iut_binary_inspect(a->iut, &rc->bin_before);
    return 0;
}

/* A binary swapped while it ran: what was certified is not what the
 * receipt would name. */
static void binary_unchanged(run_ctx *rc)
{
    iut_binary after;
    iut_binary_inspect(rc->a->iut, &after);
    char *bound_changed = rc->target ? subject_changed(rc->target) : NULL;
    if (bound_changed) {
        results_add(&rc->res, "protocol", "protocol", "iut-binary", V_FAIL, bound_changed, 1, 0);
        fprintf(rc->out, "FAIL iut-binary: %s\n", bound_changed);
        free(bound_changed);
    } else if (!rc->target && strcmp(after.sha256, rc->bin_before.sha256) != 0) {
        char *why = xasprintf("the IUT binary changed during the run: %s had SHA-256 %s before, %s after",
                              rc->bin_before.path ? rc->bin_before.path : "?",
                              rc->bin_before.sha256[0] ? rc->bin_before.sha256 : "(none)",
                              after.sha256[0] ? after.sha256 : "(none)");
        results_add(&rc->res, "protocol", "protocol", "iut-binary", V_FAIL, why, 1, 0);
        fprintf(rc->out, "FAIL iut-binary: %s\n", why);
        free(why);
    }
    iut_binary_free(&after);
}

/* hello, then the selected levels; 1 if hello answered. */
static int run_levels(run_ctx *rc)
{
    const conform_args *a = rc->a;
    int hello_ok = hello_run(rc) == 0;
    rc->lv_ops = rc->lv_train = rc->lv_fresh = L_NOT_RUN;
    if (hello_ok) {
        /* a recipe set's op groups are the official set's (recipe_ops_open) */
        if (cli_level_on(a, "ops") && !a->fresh_only) /* --fresh-only: the fresh cases alone */
            level_ops_run(rc);
        if (cli_level_on(a, "train") && !a->fresh_only)
            level_train_run(rc);
        level_fresh_run(rc);
        binary_unchanged(rc);
        return 1;
    }
    if (cli_level_on(a, "ops")) {
        rc->lv_ops = L_NOT_REACHED;
        rc->ops_note = xstrdup("not run: hello failed");
    }
    if (cli_level_on(a, "train")) {
        rc->lv_train = L_NOT_REACHED;
        rc->train_note = xstrdup("not run: hello failed");
    }
    fprintf(rc->out, "levels: not run (hello failed: every IUT MUST answer hello, P1)\n");
    return 0;
}

/* P8: an interrupted run is never a verdict on the IUT; the signal or 0. */
static int interrupted(run_ctx *rc)
{
    int sig = contain_interrupted();
    if (!sig)
        return 0;
    rc->verdict.word = "ERROR";
    rc->verdict.exit_code = 128 + sig;
    run_warn(rc, "interrupted by signal %d (%s): the IUT's process tree was killed and the work directory "
                 "removed; this run says nothing about the IUT",
             sig, sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "signal");
    return sig;
}

/* The warnings, the summary, the spec judged by and the scope. */
static void print_summary(run_ctx *rc, const char *overall, const char *reached)
{
    for (size_t i = 0; i < rc->n_warnings; i++)
        fprintf(rc->out, "warning: %s\n", rc->warnings[i]);
    fprintf(rc->out, "summary: %s: ops %s, train %s, fresh %s; level reached: %s; %.1f s\n", overall,
            level_verdict_name(rc->lv_ops), level_verdict_name(rc->lv_train), level_verdict_name(rc->lv_fresh),
            reached, rc->t_total);
    char spec_line[512];
    req_describe(&rc->req, 0, spec_line, sizeof spec_line);
    if (!rc->req.iut_known || rc->req.major_apart)
        fprintf(rc->out, "spec: %s\n", spec_line);
    else
        fprintf(rc->out, "spec: %s %s\n", !strcmp(overall, "PASS") ? "certified:" : "judged by, not certified:",
                spec_line);
    if (rc->recipe_name && rc->verdict.exit_code == EXIT_RECIPE_PASS)
        fprintf(rc->out, "scope: recipe certification: the GPT family's op vectors of the official set v%s, fresh "
                         "cases, and every step of recipe %s (sha256:%s) as the set made by %s has it; not an "
                         "official certification\n", RECIPE_OPS_SET,
                rc->recipe_name, rc->man.recipe_sha256, rc->man.generator);
    else if (!strcmp(overall, "PASS"))
        fprintf(rc->out, "scope: full certification of spec %s against the official vector set %s, fresh cases included\n",
                rc->req.certified_text, rc->official->vector_version);
    else
        for (size_t i = 0; i < rc->verdict.n_reasons; i++)
            fprintf(rc->out, "scope: not a full certification: %s\n", rc->verdict.reasons[i]);
}

/* The receipt and JUnit the options ask for; 1 if one could not be written. */
static int write_outputs(run_ctx *rc, const char *overall, const char *reached)
{
    const conform_args *a = rc->a;
    int io_bad = 0;
    if (a->receipt) {
        if (a->sign_key) /* the key is read in a separate step: no IUT process is left to see it */
            contain_kill_descendants();
        io_bad |= receipt_write(rc, a->receipt, overall, reached) != 0;
        if (!io_bad)
            fprintf(rc->out, "receipt: %s\n", a->receipt);
    }
    if (a->junit) {
        io_bad |= junit_write(rc, a->junit) != 0;
        if (!io_bad)
            fprintf(rc->out, "junit: %s\n", a->junit);
    }
    return io_bad;
}

/* The verdict and the level each profile reached (verdict/run_outcome.h),
 * from what the levels left in rc; returns the levels reached as text. */
static char *judge(run_ctx *rc, int hello_ok)
{
    const run_outcome o = {
        .a = rc->a, .vs = &rc->vs, .manifest_digest = rc->man.digest, .official = rc->official != NULL,
        .recipe_sha256 = rc->recipe_name ? rc->man.recipe_sha256 : NULL,
        .req = &rc->req, .res = &rc->res, .run_seed = rc->run_seed, .subject_unbound = rc->target == NULL,
        .hello_ok = hello_ok, .lv_ops = rc->lv_ops,
    };
    run_outcome_verdict(&o, &rc->verdict);
    rc->n_reached = run_outcome_reached(&o, &rc->reached);
    return run_outcome_reached_text(rc->reached, rc->n_reached);
}

int run_command(const conform_args *a)
{
    run_ctx rc;
    memset(&rc, 0, sizeof rc);
    rc.a = a;
    rc.out = stdout;
    rc.t_start = now_s();
    utc_timestamp(rc.started_utc);
    results_init(&rc.res);
    fprintf(rc.out, "isotrain-conform %s (git %s), judging by spec %s (the requirements of 1.2 and earlier)\n",
            CONFORM_VERSION, conform_git_revision(), CONFORM_SPEC_VERSION);
    if (load_vectors(&rc) != 0)
        return 2;
    rc.run_seed = a->seed_given ? (uint64_t)a->seed : fresh_draw_seed();
    fprintf(rc.out, "run seed: %llu (fresh cases; --seed %llu reproduces them)\n", (unsigned long long)rc.run_seed,
            (unsigned long long)rc.run_seed);
    if (a->sign_key && key_out_of_reach(&rc, a->sign_key) != 0)
        return 2;
    if (bind_subject(&rc) != 0)
        return 2;
    int hello_ok = run_levels(&rc);
    if (rc.target && !rc.target->f[0].sha256_after[0])
        iut_target_finish(rc.target); /* the receipt's sha256_after, whatever ran */
    char *reached = judge(&rc, hello_ok);
    int sig = interrupted(&rc);
    const char *overall = rc.verdict.word;
    rc.t_total = now_s() - rc.t_start;
    print_summary(&rc, overall, reached);
    int io_bad = write_outputs(&rc, overall, reached);
    closing_line(rc.out, &rc);
    fflush(rc.out);
    free(reached);
    int code = rc.verdict.exit_code;
    run_ctx_free(&rc);
    if (io_bad && !sig)
        return 2;
    return code;
}
