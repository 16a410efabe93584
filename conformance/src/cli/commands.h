/* commands.h — the subcommands of isotrain-conform, one file each in cli/.
 * Each returns the process exit status. */
#ifndef CONFORM_COMMANDS_H
#define CONFORM_COMMANDS_H

#include "core/options.h"

/* run: every selected level against the vector set, then the receipt and
 * JUnit; 0 PASS, 1 FAIL, 3 PARTIAL, 4 UNOFFICIAL, 5 REPRODUCTION, 6 PASS (recipe
 * sha256:HEX) of a recipe set, 2 refused or bad input. */
int run_command(const conform_args *a);
/* compare TRACE_A TRACE_B: 0 identical, 1 different, 2 bad input. */
int compare_command(const char *trace_a, const char *trace_b, const char *ckpt_dir_a, const char *ckpt_dir_b);
/* repeat --runs N --iut CMD --profile P [--steps S]: 0 all runs bit-identical,
 * 1 they differ or a run failed, 2 usage. */
int repeat_command(const conform_args *a);
/* matrix --hosts FILE [--markdown FILE] [--against DIR] RECEIPT...: the host
 * matrix table; 0 every host as expected (and as published), 1 not, 2 bad
 * input. --list prints each host as NAME TAB BUILD TAB EXPECTED TAB SLOWDOWN
 * TAB IUT-COMMAND for scripts. */
int matrix_command(const conform_args *a);
/* verify [--allowed-signers FILE] [--vectors DIR] RECEIPT...: 0 every
 * receipt verifies, 1 not. */
int verify_command(const conform_args *a);
/* report [--hosts FILE] [--vectors DIR] [--allowed-signers FILE] [--divergence CSV]...
 * -o PAGE.html RECEIPT...: the receipts as one HTML page; 0 written, every
 * receipt accepted, 1 written with refusals listed, 2 not written. */
int report_command(const conform_args *a);
/* sign --sign-key KEY RECEIPT [OUT]: signs an unsigned receipt in a step
 * of its own (sign.c); 0 signed, 2 refused or bad input. */
int sign_command(const conform_args *a);
/* receipt [--json] RECEIPT... | receipt --schema: the strict reader's view
 * (receipt_view.c); 0 every receipt reads, 1 not, 2 bad usage. */
int receipt_command(const conform_args *a);
/* vectors --recipe R.json --out DIR [--steps N] [--sign-key KEY]: a recipe
 * vector set made by the linked reference (vectors.c); 0 written, 2 bad
 * input or not written. */
int vectors_command(const conform_args *a);
/* lint DIR: 0 clean, 2 problems found. */
int lint_command(const char *dir);

#endif
