/* matrix.h — the host matrix report (DESIGN.md, "The host matrix"): its
 * inputs (the hosts file, one receipt per host), the judgement of each host
 * against what the hosts file expects, and the table. `isotrain-conform
 * matrix` (cli/cmd_matrix.c) strings these together. */
#ifndef CONFORM_REPORT_MATRIX_H
#define CONFORM_REPORT_MATRIX_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util.h"
#include "trust/verify_receipt.h"

enum { MAX_CK = 64, RECEIPT_CAP = 64 << 20, HOSTS_CAP = 1 << 20 };

typedef struct {
    char *name, *emulator, *cpu, *isa, *endianness, *stands_for, *build, *expected;
    char *os; /* NULL: not stated (any); "windows": the build's binary is isotrain.exe */
    double slowdown;
    char **req, **abs;
    size_t n_req, n_abs;
    int xfail; /* expected == "expected-fail" */
    int machine; /* not in the hosts file: a machine described by its own receipt */
} mhost;

typedef struct {
    char *path;
    char *host;
    int build_failed;
    char *build_log;
    char *verdict, *lv_ops, *lv_train;
    int first_diff; /* first differing step, -1 none */
    char *train_problem;
    char *emu_name, *emu_cpu;
    char *kernels; /* the kernel set the IUT named in its hello line (kernels=), or NULL */
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

typedef enum { ST_PASS, ST_XFAIL, ST_FAIL, ST_XPASS, ST_XFAIL_OTHER, ST_BUILD_FAILED, ST_MISSING } mstatus;

typedef struct {
    const mhost *h;
    const mreceipt *r; /* NULL: no receipt */
    mstatus st;
    sbuf why;       /* why the host is not as expected, or what it reported */
    sbuf host_bad;  /* the host is not what it claims (features, emulator) */
} mrow;

typedef struct {
    uint32_t step[MAX_CK];
    size_t n;
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
/* A receipt the matrix may use (receipt_trust.c): a verified envelope's
 * receipt (info: who signed, the trust facts; verify_info_free it), or a
 * build-failure record; NULL, with the reason, otherwise. */
cJSON *mx_open_receipt(const char *file, verify_info *info);
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
int mx_passed(const mreceipt *r);
const char *mx_status_text(mstatus s);
int mx_row_ok(const mrow *w);
void mx_judge(mrow *w);
/* The feature QEMU names in "TCG doesn't support requested feature: ...", or NULL. */
char *mx_tcg_feature(const char *warning);

/* table.c: hosts as rows, checkpoint steps as columns. */
void mx_columns_of(const mrow *rows, size_t n, columns *c);
int mx_ck_index(const mreceipt *r, uint32_t s);
int mx_column_agrees(const mrow *rows, size_t n, uint32_t s, size_t *count);
void mx_print_text(FILE *o, const mrow *rows, size_t n, const columns *c);
void mx_render_markdown(sbuf *m, const mrow *rows, size_t n, const columns *c, int overall_ok, const char *summary);

/* against.c: --against DIR, the published receipts. Returns the number of
 * disagreements, each printed. */
size_t mx_compare_against(FILE *o, const char *dir, const mhost *hs, size_t nh, const mreceipt *cur, size_t nc,
                       const mreceipt *pub, size_t np);

#endif
