/* matrix.h — the host matrix report (DESIGN.md, "The host matrix"): its
 * inputs (the hosts file, one receipt per host), the judgement of each host
 * against what the hosts file expects, and the table. `isotrain-conform
 * matrix` (cli/matrix.c) strings these together. */
#ifndef CONFORM_REPORT_MATRIX_H
#define CONFORM_REPORT_MATRIX_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util.h"
#include "trust/receipt_record.h"
#include "trust/verify_receipt.h"

enum { MAX_CK = 64, RECEIPT_CAP = 64 << 20, HOSTS_CAP = 1 << 20, MX_MAX_PROFILES = 8, MX_MAX_WINDOWS = 16 };

/* A window of a training run (spec §8.4): steps FROM..TO resumed from the
 * golden state at FROM; its case "PROFILE/window/FROM-TO" in the receipt. */
typedef struct {
    uint32_t from, to;
    int pass; /* the case's verdict is PASS */
    char verdict[8];
} mwindow;

/* One profile of a receipt's train level: its checkpoints (the vectors'
 * checkpoint steps), how far it ran, and its windows. */
typedef struct {
    char *name;
    int first_diff; /* first differing step, -1 none */
    char *problem;
    long steps_run, steps_in_vectors; /* -1: not recorded */
    size_t n_ck;
    uint32_t ck_step[MAX_CK];
    char ck_sha[MAX_CK][65];
    int ck_same[MAX_CK];
    size_t n_win;
    mwindow win[MX_MAX_WINDOWS];
} mprofile;

typedef struct {
    char *name, *emulator, *cpu, *isa, *endianness, *stands_for, *build, *expected;
    char *os; /* NULL: not stated (any); "windows": the build's binary is isotrain.exe */
    double slowdown;
    char **req, **abs;
    size_t n_req, n_abs;
    int xfail; /* expected == "expected-fail" */
    int machine; /* not in the hosts file: a machine described by its own receipt */
    long prefix_steps; /* "prefix_steps" of the hosts file, -1 when absent */
} mhost;

typedef struct {
    char *path;
    char *host;
    int build_failed;
    char *build_log;
    char *verdict, *lv_ops, *lv_train;
    /* certified by windows (receipt_trust.c): a PARTIAL whose only narrowing
     * is --steps, with every window of the set passed */
    int by_windows;
    /* certified to a prefix only: the same, on a vector set without windows
     * (a host of the hosts file with prefix_steps is expected to give it) */
    int prefix_only;
    /* a recipe certification (issue 32 item 3): the recipe's SHA-256 verify
     * checked against the set's manifest, "" for the official sets' runs, and
     * the words the table shows for its pass, never the official PASS */
    /* recipe_label names the set ("recipe sha256:" and 12 hex digits);
     * recipe_pass is the result word, with ", windows" for a host certified
     * by windows */
    char recipe[65], recipe_label[40], recipe_pass[56];
    /* every profile of the train level, in the receipt's order; the fields
     * below (first_diff ... ck_same) are one profile's: prof[0]'s as read,
     * another's in a view (mx_profile_view) */
    mprofile prof[MX_MAX_PROFILES];
    size_t n_prof;
    const mprofile *view; /* the profile the ck_* fields show, or NULL */
    int first_diff; /* first differing step, -1 none */
    char *train_problem;
    char *emu_name, *emu_cpu;
    char *kernels; /* the kernel set the IUT named in its hello line (kernels=), or NULL */
    char *vset; /* the vector set it ran against (vectors.vector_version), or NULL: a table
                 * names it, so a PASS on an older set never reads as one on this set */
    char *info_status, *info_isa, *info_end, *info_model, *info_features, *info_os;
    char *run_os, *run_cpu; /* the runner's host section: where the receipt was made */
    int unnamed; /* matrix_host null: host is the file's base name */
    char **warn;
    size_t n_warn;
    size_t n_ck;
    uint32_t ck_step[MAX_CK];
    char ck_sha[MAX_CK][65];
    int ck_same[MAX_CK];
    double seconds;
    /* trust (trust/verify_receipt.h): who signed, in words with the key's
     * fingerprint, and the table's short form; the receipt's rules; what it
     * binds and measured (subject, emulator, executables seen) */
    char *signer, *signer_short;
    int legacy;
    receipt_facts facts;
} mreceipt;

typedef enum { ST_PASS, ST_XFAIL, ST_FAIL, ST_XPASS, ST_XFAIL_OTHER, ST_BUILD_FAILED, ST_MISSING, ST_PREFIX, ST_RECIPE } mstatus;

typedef struct {
    const mhost *h;
    const mreceipt *r; /* NULL: no receipt */
    mstatus st;
    sbuf why;       /* why the host is not as expected, or what it reported */
    sbuf host_bad;  /* the host is not what it claims (features, emulator) */
} mrow;

/* One profile's table: its checkpoint steps, then its windows. */
typedef struct {
    const char *profile; /* NULL: the receipts' first profile (one table) */
    uint32_t step[MAX_CK];
    size_t n;
    struct { uint32_t from, to; } win[MX_MAX_WINDOWS];
    size_t n_win;
} columns;

/* input.c: reading the matrix's JSON inputs, each problem named as
 * "FILE: FIELD: what" on stderr. */
char *mx_dup(const char *s);
/* Where those messages go: stderr, or f (NULL: stderr again). */
void mx_set_messages(FILE *f);
FILE *mx_messages(void);
void mx_free_strv(char **v, size_t n);
int mx_bad(const char *file, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *mx_jstr(const char *file, const cJSON *obj, const char *path, const char *key, int nullable, int *ok);
const cJSON *mx_jobj(const char *file, const cJSON *obj, const char *path, const char *key, int *ok);
cJSON *mx_parse_file(const char *path, size_t cap);
/* A JSON number that must be a whole number in [0, max]; -1 after a message. */
int mx_juint(const char *file, const char *field, const cJSON *v, uint64_t max, uint64_t *out);
/* A receipt the matrix may use (receipt_trust.c): 0, a verified envelope's
 * receipt, filled once into the typed rec (trust/receipt_record.h; info: who
 * signed, the trust facts; verify_info_free it; *by_windows: it is a
 * certification by windows); 1, a build-failure record, in rec->doc; -1,
 * with the reason, otherwise. receipt_record_free(rec) after 0 or 1. */
int mx_open_receipt(const char *file, verify_info *info, receipt_record *rec, int *by_windows, int *prefix_only);
/* NULL when the verified receipt R is a certification by windows, else why
 * it is not one: R is a PARTIAL whose only narrowing is --steps (options,
 * scope reasons, required cases skipped "not run (--steps)"), nothing
 * failed, ops and fresh passed, and at least one window ran, every one
 * PASS. Read from what verify recomputed or checked; info: verify's (a
 * recipe's fresh windows are drawn from the recipe its set pins; NULL for
 * a receipt of a profile). */
const char *mx_not_by_windows(const rv *r, const verify_info *info);
/* 1 when R would be a certification by windows but for its windows: the
 * set has none (vectors/v1.1.0), so the host is certified to its prefix
 * only: every op vector, steps 0..N of each profile, the fresh cases. */
int mx_prefix_only(const rv *r);
/* --allowed-signers (NULL: the default file), --vectors and
 * --allow-unsigned for the receipts' verification. */
void mx_trust_config(const char *allowed_signers, const char *vectors, int allow_unsigned);

/* hosts_file.c: qemu/hosts.json. Returns 0, or -1 after naming the problem. */
int mx_hosts_load(const char *file, mhost **out, size_t *n_out);
void mx_hosts_free(mhost *hs, size_t n);

/* receipt_read.c: one receipt (or a build-failure record) per host. */
int mx_receipt_load(const char *file, mreceipt *r);
void mx_receipt_free(mreceipt *r);
/* Every *.json of DIR. */
int mx_load_dir(const char *dir, mreceipt **out, size_t *n);
const mreceipt *mx_find_receipt(const mreceipt *rs, size_t n, const char *host);

/* machines.c: a host row for a receipt whose host is not in the hosts file
 * (a real machine, described by its receipt). */
void mx_machine_host(const mreceipt *r, mhost *h);

/* judge.c: is the host what it claims, and is its verdict the expected one. */
/* 1 when VERDICT is the word of a recipe's certification (verdict/scope.c)
 * of RECIPE (a SHA-256, "" none): "PASS (recipe sha256:HEX)", or with
 * ", windows" after it when fresh windows passed too (run --windows). */
int mx_is_recipe_pass(const char *verdict, const char *recipe);
/* A full certification, one by windows, or a recipe's certification (r->recipe). */
int mx_passed(const mreceipt *r);
const char *mx_status_text(mstatus s);
int mx_row_ok(const mrow *w);
/* The words of the result column (matrix's table, the page's badge). */
void mx_result_text(const mrow *w, char *buf, size_t cap);
void mx_judge(mrow *w);
/* The feature QEMU names in "TCG doesn't support requested feature: ...", or NULL. */
char *mx_tcg_feature(const char *warning);

/* profiles.c: the profiles of a set of receipts, and one profile's view of
 * a receipt. */
/* The profile names of the rows' receipts, in the order they first appear. */
size_t mx_profile_names(const mrow *rows, size_t n, const char **names, size_t cap);
/* r's profile NAME, or NULL. */
const mprofile *mx_profile_of(const mreceipt *r, const char *name);
/* *view = r with the checkpoint fields (first_diff, train_problem, ck_*)
 * of its profile NAME (none when it has no such profile); a shallow copy,
 * never mx_receipt_free'd. */
void mx_profile_view(const mreceipt *r, const char *name, mreceipt *view);
/* rows[i] with its receipt replaced by a view of profile NAME, in views[i]. */
void mx_rows_view(const mrow *rows, size_t n, const char *name, mrow *out, mreceipt *views);
/* The window FROM-TO of the viewed profile (a view of mx_profile_view), or NULL. */
const mwindow *mx_window_of(const mreceipt *r, uint32_t from, uint32_t to);
/* Every profile's table agrees (mx_table_agrees of each). */
int mx_all_agree(const mrow *rows, size_t n);
/* The counts of the summary line. */
typedef struct {
    size_t ok, pass, xfail, prefix, windows, recipe;
} mx_tally;
/* rows[i] for hs[i] with its receipt among rs, judged (mx_judge): the one
 * judging loop of `matrix` and the page. */
mx_tally mx_judge_rows(mrow *rows, mhost *hs, size_t nh, const mreceipt *rs, size_t nr);
/* The summary line of `matrix` (and of the page) from the tally T; TAIL is
 * appended. Recipe certifications are counted apart from the passes. */
void mx_summary_text(char *buf, size_t cap, int ok, size_t nh, const mx_tally *t, int all_agree, const char *tail);
/* "PASS", "PASS (windows)", "recipe sha256:HEX12": what the table's result
 * column says of a pass (a recipe's is never the official PASS). */
const char *mx_pass_text(const mreceipt *r);

/* table.c: hosts as rows, one profile's checkpoint steps and windows as
 * columns (rows given through mx_rows_view). */
void mx_columns_of(const mrow *rows, size_t n, columns *c);
int mx_ck_index(const mreceipt *r, uint32_t s);
int mx_column_agrees(const mrow *rows, size_t n, uint32_t s, size_t *count);
/* Every host expected to pass has the profile's window FROM-TO passed, or
 * ran the whole profile without one (which certifies every step of it). */
int mx_window_agrees(const mrow *rows, size_t n, uint32_t from, uint32_t to, size_t *count);
/* Every column of the table agrees. */
int mx_table_agrees(const mrow *rows, size_t n, const columns *c);
/* Where a host runs, in the words of the matrix's "runs as" column and the
 * page's: "qemu-x86_64 -cpu Haswell", "qemu-aarch64 (host CPU)", "native",
 * "machine: linux x86_64". Returns buf. */
const char *mx_runs_as(const mhost *h, char *buf, size_t cap);
void mx_print_text(FILE *o, const mrow *rows, size_t n, const columns *c);
void mx_render_markdown(sbuf *m, const mrow *rows, size_t n, const columns *c, int overall_ok, const char *summary);
/* The markdown of one profile's table (mx_render_markdown's first part). */
void mx_render_markdown_table(sbuf *m, const mrow *rows, size_t n, const columns *c);
/* The markdown of the hosts' details and the summary (its second part). */
void mx_render_markdown_hosts(sbuf *m, const mrow *rows, size_t n, const char *summary);

/* against.c: --against DIR, the published receipts. Returns the number of
 * disagreements, each printed. */
size_t mx_compare_against(FILE *o, const char *dir, const mhost *hs, size_t nh, const mreceipt *cur, size_t nc,
                       const mreceipt *pub, size_t np);

#endif
