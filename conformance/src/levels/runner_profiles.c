/* runner_profiles.c — the runner's profile table (runner_profiles.h). Adding
 * a profile: its row in reference/src/profiles.c, then one line here and its
 * localizer. */
#include "levels/runner_profiles.h"

#include <stdio.h>
#include <string.h>

#include "levels/localize_replay.h"


static const runner_profile rows[] = {
    {&it_profile_mlp13k, localize_mlp13k, 1},
    {&it_profile_addmod113, localize_addmod113, 0},
    {&it_profile_gptchar, localize_gptchar, 0},
};

/* the vectors' tensors are the reference's (spec §N.2 checkpoint order) */
static int same_tensors(const train_vec *tv, const it_profile *p)
{
    if (tv->parameters != p->nparams || tv->n_tensors != p->ntensors)
        return 0;
    for (size_t t = 0; t < p->ntensors; t++)
        if (strcmp(tv->tensors[t].name, p->tensors[t].name) != 0 || tv->tensors[t].offset != p->tensors[t].offset ||
            tv->tensors[t].rows * tv->tensors[t].cols != p->tensors[t].rows * p->tensors[t].cols)
            return 0;
    return 1;
}

const runner_profile *runner_profile_of(const train_vec *tv)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strcmp(tv->profile, rows[i].ref->name))
            return same_tensors(tv, rows[i].ref) ? &rows[i] : NULL;
    return NULL;
}

void runner_profile_names(char *buf, size_t cap)
{
    const size_t n = sizeof rows / sizeof rows[0];
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < cap; i++) {
        int w = snprintf(buf + used, cap - used, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", rows[i].ref->name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}
