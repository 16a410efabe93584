/* fuzz_vector_file — the runner's manifest check and vector loader
 * (vectors/FORMAT.md §1-§4; vectorset/) on any bytes in place of one file of
 * a vector set. The first input byte picks the file: 0 ops/dot.json,
 * 1 train/mlp13k.json, 2 MANIFEST.json; the rest is its content. Property:
 * no crash, no allocation sized by a number the file merely claims, and a
 * file either loads or yields problems, never neither. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/problems.h"
#include "core/util.h"
#include "vectorset/manifest.h"
#include "vectorset/vectors_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dir;

static void put(const char *name, const uint8_t *data, size_t size)
{
    char *p = xasprintf("%s/%s", dir, name);
    char err[256];
    if (write_file(p, (const char *)data, size, err, sizeof err) != 0)
        abort();
    free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const files[] = {"ops/dot.json", "train/mlp13k.json", "MANIFEST.json"};
    if (!dir) {
        char err[256];
        dir = make_temp_dir("fuzz-vectors", err, sizeof err);
        if (!dir)
            abort();
        char *ops = xasprintf("%s/ops", dir), *train = xasprintf("%s/train", dir);
        mkdir(ops, 0777);
        mkdir(train, 0777);
        free(ops);
        free(train);
    }
    if (size < 1 || data[0] > 2)
        return 0;
    for (size_t i = 0; i < 3; i++) {
        char *p = xasprintf("%s/%s", dir, files[i]);
        remove(p);
        free(p);
    }
    put(files[data[0]], data + 1, size - 1);
    problems pr;
    problems_init(&pr);
    if (data[0] == 2) {
        manifest_info m;
        size_t bad = manifest_verify(dir, &m, &pr);
        if (bad != pr.n)
            abort();
        manifest_free(&m);
    } else {
        vector_set vs;
        size_t bad = vectors_load(dir, NULL, &vs, &pr);
        if (bad != pr.n || (bad == 0 && vs.n_groups + vs.n_trains != 1))
            abort(); /* one well-formed file is one group or one profile */
        vectors_free(&vs);
    }
    problems_free(&pr);
    return 0;
}
