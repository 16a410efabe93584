/* receipt_facts.h — the trust fields of a receipt, read in one place for
 * every reader of receipts as evidence (verify, matrix, report): what the
 * subject binds, the emulator as measured, the executables seen running,
 * the host the runner ran on. Untrusted input: every field is checked for
 * its type and bounded in size; a receipt of the current trust rules
 * (RECEIPT_TRUST_RULES) must have them all. */
#ifndef CONFORM_TRUST_RECEIPT_FACTS_H
#define CONFORM_TRUST_RECEIPT_FACTS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "core/problems.h"
#include "trust/receipt_record.h"

/* the field table's caps on these arrays (trust/receipt_fields.h) */
enum { FACTS_MAX_FILES = RF_CAP_FILES, FACTS_MAX_PROCS = RF_CAP_PROCS, FACTS_MAX_CODE = RF_CAP_CODE, FACTS_MAX_ENV = RF_CAP_ENV };

typedef struct {
    char *path, *sha256; /* sha256 NULL: replaced after it was mapped */
    int is_subject;
} facts_code;

typedef struct {
    char *role, *path, *sha256, *sha256_after, *format, *isa;
    int executed;
} facts_file;

typedef struct {
    char *path, *sha256, *format, *isa;
    int is_subject;
} facts_proc;

typedef struct {
    int rules;            /* trust_rules; 1 when absent (the first rules) */
    /* the subject */
    int argv_form, bound;
    char *unbound_reason;
    facts_file files[FACTS_MAX_FILES];
    size_t n_files;
    int guest;            /* files[guest] runs under the emulator; -1 */
    /* the emulator as measured */
    int emulated;
    char *emu_name, *emu_cpu, *emu_source, *emu_path, *emu_sha256, *emu_version;
    int emu_is_executable;
    /* what ran in the IUT's tree */
    facts_proc procs[FACTS_MAX_PROCS];
    size_t n_procs;
    char *containment;
    /* every file mapped executable and the loader environment (proc_seen.h);
     * *_recorded 0: a receipt written before they were: "not recorded" */
    int code_recorded, env_recorded;
    facts_code code[FACTS_MAX_CODE];
    size_t n_code;
    char *env[FACTS_MAX_ENV];
    size_t n_env;
    /* where the runner ran */
    char *host_isa;
} receipt_facts;

/* Reads the fields of the typed receipt top (trust/receipt_record.h: its
 * root scope); problems name the file and the field. 0, or -1 when a field
 * of the current rules is missing or malformed. */
int receipt_facts_read(const char *file, const rv *top, receipt_facts *f, problems *pr);
void receipt_facts_free(receipt_facts *f);

/* The ISA of the program the receipt says ran: the guest's under an
 * emulator, else the executed file's ("" if the receipt does not say). */
const char *receipt_facts_program_isa(const receipt_facts *f);
/* What the receipt binds and what it does not, for verify: "bound: ..."
 * only when nothing that ran escapes the subject; code that ran outside it
 * (an executable it does not name, an interpreter's own loading, a loader
 * variable, a library replaced after it was mapped) is named UNBOUND; a
 * field the receipt predates is "not recorded". Fresh string. */
char *receipt_facts_subject_text(const receipt_facts *f);
/* How far the receipt binds what ran: the one derivation verify's line,
 * the matrix's subject column and the page use. */
typedef enum {
    BINDING_CLAIMED,          /* first trust rules: the signer's word */
    BINDING_SHELL,            /* the shell form: UNBOUND */
    BINDING_NOT_FULLY,        /* the program bound, code outside it ran: NOT FULLY BOUND */
    BINDING_PARTLY_RECORDED,  /* the program bound; mapped code or loader environment not recorded */
    BINDING_BOUND
} receipt_binding;
receipt_binding receipt_facts_binding(const receipt_facts *f);
/* The binding's word for a table cell: "claimed", "UNBOUND", "NOT FULLY
 * BOUND", "bound" (partly recorded receipts bind the program). */
const char *receipt_binding_cell(receipt_binding b);

/* One line for a table: "bound", "UNBOUND (shell form)", "not recorded
 * (first trust rules)". */
const char *receipt_facts_subject_word(const receipt_facts *f);

#endif
