/* report.h — `isotrain-conform report`: receipts as one self-contained HTML
 * page (issue 22). The facts are the matrix's (report/matrix/: the same
 * trust gate, the same receipt reading, the same judgement of each host);
 * the page adds what a reader wants to look at: each host's op groups,
 * training steps, timings and localization, and plots.
 *
 * Layers, each file one job:
 *   receipt_gate.c  the gate: every receipt through the matrix's reading
 *                   (verification included), refusals kept with their
 *                   reason, each signature's key by verify's reading
 *   facts.c         what the page shows of one accepted receipt, read
 *                   defensively (absent or mistyped -> shown as absent)
 *   divergence_csv.c  `make pytorch-divergence`'s CSV (--divergence)
 *   svg.c           inline SVG plots with their text alternatives
 *   sec_*.c         the page's sections; page.c the shell and its CSS
 * and html_writer.c, through which every byte of the page is written. */
#ifndef CONFORM_REPORT_HTML_REPORT_H
#define CONFORM_REPORT_HTML_REPORT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "report/html/html_writer.h"
#include "report/matrix/matrix.h"
#include "trust/receipt_record.h"

enum { RP_MAX_PROFILES = 8, RP_MAX_GROUPS = 64, RP_MAX_DIVERGENCE = 4, RP_MAX_STEPS = 1 << 17 };

/* One step of one profile: the case verdict of "<profile>/<step>" (which
 * verify has tied to the checkpoint digest: PASS exactly when it equals the
 * vectors') and the loss bits the trace recorded. */
typedef enum { RS_NONE = 0, RS_PASS, RS_FAIL, RS_SKIP, RS_ERROR } rp_state;
typedef struct {
    unsigned char state, has_loss, in_trace;
    uint32_t loss;
} rp_step;

typedef struct {
    char *name;
    const rv *obj;      /* levels.train.profiles[i], or NULL (cases only) */
    size_t n_steps;     /* entries of step[] (the highest step seen + 1) */
    rp_step *step;
    mreceipt ck;        /* the host's mreceipt viewed as this profile
                           (mx_profile_view: checkpoints, windows; a shallow
                           copy, never mx_receipt_free'd) */
    size_t count[4];    /* its train cases: pass, fail, skip, error */
    int first_diff;     /* -1 none */
} rp_profile;

typedef struct {
    char *group;
    size_t vec[4], fresh[4]; /* pass, fail, skip, error: vector cases, fresh cases */
} rp_group;

typedef struct {
    char *file;
    char sha256[65];      /* of the receipt file's bytes */
    receipt_record rec;   /* the verified receipt, typed (filled once by the gate) */
    const rv *receipt;    /* &rec.top; NULL for a build-failure record */
    char *signer;         /* the principal of a good signature (--allowed-signers) */
    char **key_fp;        /* "SHA256:..." of each signature's key */
    size_t n_fp, n_sigs;
    rp_profile prof[RP_MAX_PROFILES];
    size_t n_prof, prof_more;
    rp_group groups[RP_MAX_GROUPS];
    size_t n_groups, groups_more;
    size_t fresh_train[4]; /* fresh/train/... cases */
} rp_receipt;

typedef struct {
    char *file;
    char *reason; /* what the matrix's gate said, as it said it */
} rp_refusal;

typedef struct {
    char *file;
    char sha256[65];
    char **pair;            /* one label per series */
    size_t n_pairs;
    /* rows: pair index, step, loss gap, max |param gap| (NaN when empty) */
    size_t n, cap;
    struct rp_div_row { size_t pair; uint32_t step; double loss_gap, param_gap; } *row;
} rp_divergence;

typedef struct {
    /* inputs */
    const char *hosts_file, *vectors_dir, *allowed_signers, *date, *readme_href;
    int allow_unsigned; /* --allow-unsigned: as for matrix, an unsigned receipt is shown (and said to be) */
    int vectors_given;
    char *vectors_dir_owned; /* vectors/v<version> of the receipts, when not given */
    /* the matrix: hosts (the file's, then machines) and their rows */
    mhost *hs;
    size_t nh, n_listed;
    mreceipt *rs;       /* accepted receipts, in argument order */
    rp_receipt *rx;     /* rx[i] belongs to rs[i] */
    size_t nr;
    mrow *rows;         /* rows[i] is hs[i]'s */
    rp_refusal *ref;
    size_t n_ref;
    /* the vector set of --vectors (golden losses), when it loads */
    int have_vectors;
    void *vectors;      /* vector_set * (vectorset/vectors_load.h) */
    char vectors_digest[65];
    rp_divergence div[RP_MAX_DIVERGENCE];
    size_t n_div;
    /* the matrix's own summary */
    size_t n_ok;
    int all_agree, ok;
    char summary[640];
} rp_page;

/* receipt_gate.c: reads every receipt through the matrix's gate; never exits on a
 * refused receipt (it is listed). Returns 0, or -1 when the hosts file is
 * unusable. */
int rp_load(rp_page *p, const char *const *receipts, size_t n);
void rp_page_free(rp_page *p);
/* The receipt of a row, or NULL. */
const rp_receipt *rp_of_row(const rp_page *p, const mrow *w);

/* facts.c */
/* A member of the localization (an open object: the localizer's members,
 * not the receipt table's), "first_op.op" a member of a member. */
const cJSON *rj_at(const cJSON *root, const char *path);
const char *rj_str(const cJSON *root, const char *path);
int rj_num(const cJSON *root, const char *path, double *out);
void rp_facts(rp_receipt *x, const mreceipt *r);
void rp_receipt_free(rp_receipt *x);
const char *rp_state_word(rp_state s);
/* The words matrix prints in its result column for this row. */
void rp_result_text(const mrow *w, char *buf, size_t cap);
float rp_f32(uint32_t bits);

/* signer.c: who signed, in the words verify uses (trust/keys.h): the
 * project key, a retired project key, or another key (not the project's)
 * that the allowed signers call PRINCIPAL. A principal is a label anyone can
 * write; only the pinned fingerprint makes a key the project's. */
void rp_signer_html(hw *w, const char *principal, const char *fp);

/* divergence_csv.c: 0, or -1 after naming FILE:LINE on stderr. */
int rp_divergence_load(const char *file, rp_divergence *d);
void rp_divergence_free(rp_divergence *d);

/* sec_matrix.c: helpers other sections share */
void rp_result_badge(hw *w, const mrow *row);
void rp_matrix_says(hw *w, const mrow *row, int with_status, const char *mismatch_lead);
size_t rp_profile_names(const rp_page *p, const char **names, size_t cap);
const rp_profile *rp_profile_of(const rp_page *p, const mrow *row, const char *name);
/* sec_plots.c: |loss - the vectors' loss| per step, in ULPs, for one host */
void rp_plot_loss_gap(hw *w, const rp_page *p, const mrow *row, const rp_profile *pf);
/* "0-49, 137, 150-200" for the steps in state st (at most 24 ranges) */
void rp_ranges(sbuf *out, const rp_step *steps, size_t n, unsigned char st);

/* The sections, in page order (page.c strings them together). */
void sec_header(hw *w, const rp_page *p);
void sec_about(hw *w, const rp_page *p);
void sec_matrix(hw *w, const rp_page *p);
void sec_plots(hw *w, const rp_page *p);
void sec_divergence(hw *w, const rp_page *p);
void sec_hosts(hw *w, const rp_page *p);
void sec_refused(hw *w, const rp_page *p);
void sec_inputs(hw *w, const rp_page *p);
/* The whole page. */
void rp_render(hw *w, const rp_page *p);

#endif
