/* ops_base.c — see ops_base.h. */
#include "vectorset/ops_base.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/version.h"
#include "vectorset/official.h"

char *recipe_ops_dir(const char *dir)
{
    return dir ? xstrdup(dir) : conform_vectors_dir("v" RECIPE_OPS_SET);
}

/* The kept groups of ops appended to vs; the rest stay in ops (to be freed
 * with it). */
static void move_groups(vector_set *ops, vector_set *vs, int (*keep)(const op_group *))
{
    size_t kept = 0, left = 0;
    for (size_t g = 0; g < ops->n_groups; g++)
        kept += keep(&ops->groups[g]) != 0;
    vs->groups = xrealloc(vs->groups, (vs->n_groups + kept + 1) * sizeof *vs->groups);
    for (size_t g = 0; g < ops->n_groups; g++) {
        if (keep(&ops->groups[g]))
            vs->groups[vs->n_groups++] = ops->groups[g];
        else
            ops->groups[left++] = ops->groups[g];
    }
    ops->n_groups = left;
}

size_t recipe_ops_adopt(const char *dir, vector_set *vs, int (*keep)(const op_group *), manifest_info *m,
                        problems *pr)
{
    const size_t before = pr->n;
    memset(m, 0, sizeof *m);
    if (manifest_verify(dir, m, pr) != 0)
        return pr->n - before;
    const official_set *want = official_by_version(RECIPE_OPS_SET);
    if (!want || strcmp(m->digest, want->manifest_digest) != 0) {
        /* an unpinned op set would let anyone choose the cases a recipe
         * certification runs */
        problems_add(pr, "%s/MANIFEST.json: manifest digest %s is not the pinned digest of vector set %s (%s): a "
                         "recipe set's op vectors are that official set's",
                     dir, m->digest, RECIPE_OPS_SET, want ? want->manifest_digest : "not pinned");
        return pr->n - before;
    }
    vector_set ops;
    memset(&ops, 0, sizeof ops);
    if (vectors_load(dir, m, &ops, pr) == 0)
        move_groups(&ops, vs, keep);
    vectors_free(&ops);
    return pr->n - before;
}
