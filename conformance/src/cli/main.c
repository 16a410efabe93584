/* main.c — isotrain-conform: the conformance runner of isotrain. Commands,
 * one file each: run (run.c), compare (compare.c), repeat (repeat.c),
 * matrix (cmd_matrix.c), lint (lint.c), verify (verify.c), sign (sign.c), report (cmd_report.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "cli/commands.h"
#include "core/version.h"
#include "protocol/contain.h"
#include "isotrain.h"

int main(int argc, char **argv)
{
    contain_init(); /* before any IUT runs: subreaper, signals (contain.h) */
    /* The runner's own expectations (fresh cases, localization, verify) come
     * from the portable definition, never from a SIMD kernel set an IUT
     * built from the same library might share. */
    if (it_kernels_select("portable") != 0) {
        fprintf(stderr, "isotrain-conform: the linked reference has no portable kernel set\n");
        return 2;
    }
    if (argc >= 2 && !strcmp(argv[1], "report")) /* its own options (cmd_report.c) */
        return report_command(argc, argv);
    conform_args a;
    char err[512];
    if (cli_parse(argc, argv, &a, err, sizeof err) != 0) {
        cli_usage(stderr);
        fprintf(stderr, "isotrain-conform: %s\n", err); /* last: the line a reader (or a log's tail) sees */
        return 2;
    }
    switch (a.cmd) {
    case CMD_HELP:
        cli_usage(stdout);
        return 0;
    case CMD_VERSION:
        printf("isotrain-conform %s (git %s)\nspec: %s\ndefault vectors: %s\n", CONFORM_VERSION,
               conform_git_revision(), CONFORM_SPEC_VERSION, conform_default_vectors());
        return 0;
    case CMD_RUN:
        return run_command(&a);
    case CMD_COMPARE:
        return compare_command(a.pos[0], a.pos[1], a.ckpt_a, a.ckpt_b);
    case CMD_REPEAT:
        return repeat_command(&a);
    case CMD_LINT:
        return lint_command(a.pos[0]);
    case CMD_MATRIX:
        return matrix_command(&a);
    case CMD_VERIFY:
        return verify_command(&a);
    case CMD_SIGN:
        return sign_command(&a);
    default:
        cli_usage(stderr);
        return 2;
    }
}
