/* recipe_set.c — see recipe_set.h. */
#include "vectorset/recipe_set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

int recipe_set_recipe(const char *dir, const manifest_info *m, it_gpt_recipe *r, char *err, size_t cap)
{
    const manifest_file *f = m->recipe_path ? manifest_bytes(m, m->recipe_path) : NULL;
    if (!f || !f->data)
        return snprintf(err, cap, "%s/MANIFEST.json: $.recipe.path: %s is not a verified file of the set", dir,
                        m->recipe_path ? m->recipe_path : "(absent)"),
               -1;
    /* the corpus is found beside the recipe, in the set */
    const char *slash = strrchr(m->recipe_path, '/');
    char *at = slash ? xasprintf("%s/%.*s", dir, (int)(slash - m->recipe_path), m->recipe_path) : xstrdup(dir);
    char *name = xasprintf("%s/%s", dir, m->recipe_path);
    int rc = it_gpt_recipe_parse((const char *)f->data, f->len, name, at, r, err, cap) != 0 ? -1 : 0;
    free(at);
    free(name);
    return rc;
}
