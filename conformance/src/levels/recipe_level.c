/* recipe_level.c — what a run against a recipe set (issue 32;
 * vectorset/recipe_set.h) needs beyond an official set's: the recipe the
 * manifest pinned, read by the linked reference's strict reader (spec
 * §16.1), and the files an IUT is told to train (P7 1.3.0, `train --recipe
 * FILE`). The train level judges its steps as any profile's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isotrain_gpt.h"
#include "levels/levels.h"
#include "vectorset/recipe_set.h"

int recipe_set_open(run_ctx *rc, char *err, size_t cap)
{
    const manifest_file *f = manifest_bytes(&rc->man, rc->man.recipe_path);
    if (!f || !f->data)
        return snprintf(err, cap, "%s/MANIFEST.json: $.recipe.path: %s is not a verified file of the set",
                        rc->a->vectors, rc->man.recipe_path),
               -1;
    /* the corpus is found beside the recipe, in the set */
    const char *slash = strrchr(rc->man.recipe_path, '/');
    char *dir = slash ? xasprintf("%s/%.*s", rc->a->vectors, (int)(slash - rc->man.recipe_path), rc->man.recipe_path)
                      : xstrdup(rc->a->vectors);
    char *name = xasprintf("%s/%s", rc->a->vectors, rc->man.recipe_path);
    it_gpt_recipe r;
    int bad = it_gpt_recipe_parse((const char *)f->data, f->len, name, dir, &r, err, cap) != 0;
    free(dir);
    free(name);
    if (bad)
        return -1;
    rc->recipe_name = xstrdup(r.name);
    it_gpt_recipe_free(&r);
    return 0;
}

/* The set's files outside the vector files: the recipe and its corpus. */
static int recipe_input(const char *path)
{
    return strncmp(path, "train/", 6) != 0 && strncmp(path, "windows/", 8) != 0;
}

void recipe_inputs(const run_ctx *rc, train_recipe *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->recipe_rel = rc->man.recipe_path;
    train_input *in = xcalloc(rc->man.n_files ? rc->man.n_files : 1, sizeof *in);
    for (size_t i = 0; i < rc->man.n_files; i++) {
        const manifest_file *f = &rc->man.files[i];
        if (recipe_input(f->path) && f->data)
            in[rec->n_files++] = (train_input){f->path, f->data, f->len};
    }
    rec->files = in;
}

void recipe_inputs_free(train_recipe *rec)
{
    free((void *)rec->files);
    memset(rec, 0, sizeof *rec);
}
