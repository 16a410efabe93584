/* lint.c — `isotrain-conform lint DIR`. */
#include <stdio.h>

#include "cli/commands.h"
#include "core/problems.h"
#include "vectorset/manifest.h"
#include "vectorset/vectors_load.h"

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
