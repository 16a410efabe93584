/* main.c — isotrain-conform: the conformance runner of isotrain. Commands:
 * run (run.c), compare (compare.c), repeat (repeat.c), matrix (matrix.c),
 * lint (below). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "manifest.h"
#include "problems.h"
#include "run.h"
#include "vectors_load.h"
#include "version.h"

/* vectors/FORMAT.md: "the runner's loader is the lint" — the manifest check
 * (§4) and the loader (§1-§3), every problem listed. */
int lint_command(const char *dir)
{
    problems pr;
    problems_init(&pr);
    manifest_info m;
    size_t bad_m = manifest_verify(dir, &m, &pr);
    vector_set vs;
    size_t bad_v = vectors_load(dir, bad_m ? NULL : &m, &vs, &pr);
    size_t cases = 0;
    for (size_t g = 0; g < vs.n_groups; g++)
        cases += vs.groups[g].n_cases;
    problems_print(&pr, stdout, "");
    if (pr.n == 0)
        printf("lint: %s: clean: manifest %s verifies (%zu files), %zu op groups with %zu cases, %zu train profile%s\n",
               dir, m.digest, m.n_files, vs.n_groups, cases, vs.n_trains, vs.n_trains == 1 ? "" : "s");
    else
        printf("lint: %s: %zu problem%s (%zu in the manifest check, %zu in the vector files)\n", dir, pr.n,
               pr.n == 1 ? "" : "s", bad_m, bad_v);
    int rc = pr.n ? 2 : 0;
    problems_free(&pr);
    manifest_free(&m);
    vectors_free(&vs);
    return rc;
}

int main(int argc, char **argv)
{
    conform_args a;
    char err[512];
    if (cli_parse(argc, argv, &a, err, sizeof err) != 0) {
        fprintf(stderr, "isotrain-conform: %s\n", err);
        cli_usage(stderr);
        return 2;
    }
    switch (a.cmd) {
    case CMD_HELP:
        cli_usage(stdout);
        return 0;
    case CMD_VERSION:
        printf("isotrain-conform %s (git %s)\n", CONFORM_VERSION, conform_git_revision());
        return 0;
    case CMD_RUN:
        return run_command(&a);
    case CMD_COMPARE:
        return compare_command(a.pos[0], a.pos[1]);
    case CMD_REPEAT:
        return repeat_command(&a);
    case CMD_LINT:
        return lint_command(a.pos[0]);
    case CMD_MATRIX:
        return matrix_command(&a);
    default:
        cli_usage(stderr);
        return 2;
    }
}
