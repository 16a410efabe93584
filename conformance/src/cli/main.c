/* main.c — isotrain-conform: the conformance runner of isotrain. Commands,
 * one file each: run (run.c), compare (compare.c), repeat (repeat.c),
 * matrix (matrix.c), lint (lint.c), verify (verify.c), sign (sign.c), report (report.c),
 * receipt (receipt_view.c), vectors (vectors.c); the options of all of them are one table (cli_args.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "cli/commands.h"
#include "core/version.h"
#include "protocol/iut_keeper.h"
#include "isotrain.h"

int main(int argc, char **argv)
{
    contain_init(); /* before any IUT runs: subreaper, signals (iut_keeper.h) */
    /* The runner's own expectations (fresh cases, localization, verify) come
     * from the portable definition, never from a SIMD kernel set an IUT
     * built from the same library might share. */
    if (it_kernels_select("portable") != 0) {
        fprintf(stderr, "isotrain-conform: the linked reference has no portable kernel set\n");
        return 2;
    }
    static conform_args a; /* its operands are 256 pointers */
    char err[512];
    if (cli_parse(argc, argv, &a, err, sizeof err) != 0) {
        cli_usage_line(stderr, a.cmd);
        /* last: the line a reader (or a log's tail) sees */
        if (a.cmd != CMD_NONE)
            fprintf(stderr, "isotrain-conform %s: %s\n", argv[1], err);
        else
            fprintf(stderr, "isotrain-conform: %s\n", err);
        return 2;
    }
    switch (a.cmd) {
    case CMD_HELP:
        cli_help(stdout, a.help_for);
        return 0;
    case CMD_VERSION:
        printf("isotrain-conform %s (git %s)\nspec: %s\ndefault vectors: %s\n", CONFORM_VERSION,
               conform_git_revision(), CONFORM_SPEC_VERSION, conform_default_vectors());
        return 0;
    case CMD_RUN:
        return run_command(&a);
    case CMD_COMPARE:
        return compare_command(a.operands[0], a.operands[1], a.ckpt_a, a.ckpt_b);
    case CMD_REPEAT:
        return repeat_command(&a);
    case CMD_LINT:
        return lint_command(a.operands[0]);
    case CMD_MATRIX:
        return matrix_command(&a);
    case CMD_VERIFY:
        return verify_command(&a);
    case CMD_SIGN:
        return sign_command(&a);
    case CMD_REPORT:
        return report_command(&a);
    case CMD_RECEIPT:
        return receipt_command(&a);
    case CMD_VECTORS:
        return vectors_command(&a);
    default:
        cli_usage_line(stderr, CMD_NONE);
        return 2;
    }
}
