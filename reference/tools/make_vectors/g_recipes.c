/* Vector set 1.3.0's own files: the example recipe's set (spec §16;
 * vectors/FORMAT.md §7), under recipes/<name>/.
 *
 * A recipe set has one writer, `isotrain-conform vectors --recipe` (it
 * trains the recipe with the reference on portable kernels and writes the
 * training, windows and manifest files through vectorset/set_docs.c, as this
 * generator does for the profiles). This file does not write a second one:
 * it takes that set in whole, every file checked against the recipe set's own
 * MANIFEST.json (size and SHA-256, and the listing's digest) before it is
 * copied, so a set edited after it was made is refused here, not published.
 * The recipe's 300 portable steps take minutes, so `make vectors` makes the
 * set first and `make check-vectors` hands this generator the committed one;
 * ci/check-recipe-set.sh proves that set the reference's bits (2 steps per
 * commit, the whole run byte for byte in the scheduled tier). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "mv.h"

const char *recipe_set_dir; /* main.c: the set to take in, or NULL */

static int made(const char *rel)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", outdir, rel);
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *field(const cJSON *o, const char *key, const char *where)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v))
        die("%s: %s: expected a string", where, key);
    return v->valuestring;
}

/* "recipe/<name>.json" -> "<name>" (the manifest's $.recipe.path). */
static void recipe_name(const char *rpath, char *name, size_t cap, const char *where)
{
    const char *base = strrchr(rpath, '/') ? strrchr(rpath, '/') + 1 : rpath;
    const char *dot = strrchr(base, '.');
    size_t n = dot ? (size_t)(dot - base) : strlen(base);
    if (n == 0 || n >= cap || strspn(base, "abcdefghijklmnopqrstuvwxyz0123456789_-") < n)
        die("%s: $.recipe.path \"%s\": expected recipe/<name>.json with a name of [a-z0-9_-]", where, rpath);
    memcpy(name, base, n);
    name[n] = '\0';
}

/* One listed file: its bytes must be what the recipe set's manifest says;
 * with write, copied under recipes/<name>/ (its directories made once). Adds
 * its listing line to the running digest. */
static void take_file(const cJSON *entry, const char *name, it_sha256_ctx *listing, int write, const char *where)
{
    const char *rel = field(entry, "path", where), *want = field(entry, "sha256", where);
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(entry, "size");
    size_t len;
    unsigned char *data = read_whole(recipe_set_dir, rel, &len), d[32];
    char hex[65], out[256], line[512];
    it_sha256(data, len, d);
    it_hex(d, 32, hex);
    if (!cJSON_IsNumber(size) || size->valuedouble != (double)len || strcmp(hex, want) != 0)
        die("%s: %s is not the file its manifest lists (size %zu, sha256 %s)", where, rel, len, hex);
    int n = snprintf(line, sizeof line, "%s %zu %s\n", hex, len, rel);
    if (n < 0 || n >= (int)sizeof line || snprintf(out, sizeof out, "recipes/%s/%s", name, rel) >= (int)sizeof out)
        die("%s: path too long: %s", where, rel);
    it_sha256_update(listing, line, (size_t)n);
    for (char *s = strchr(out + strlen("recipes/") + strlen(name) + 1, '/'); write && s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (!made(out))
            make_dir(out);
        *s = '/';
    }
    if (write)
        emit(out, data, len);
    free(data);
}

/* The whole recipe set checked (every listed file, the listing's digest)
 * and, with write, copied. */
static void walk(int write)
{
    if (!recipe_set_dir)
        die("vector set 1.3.0 needs the example recipe's set (isotrain-conform vectors --recipe)");
    char where[4200], name[64], out[128], hex[65];
    snprintf(where, sizeof where, "%s/MANIFEST.json", recipe_set_dir);
    size_t len;
    unsigned char *text = read_whole(recipe_set_dir, "MANIFEST.json", &len), d[32];
    cJSON *root = cJSON_ParseWithLength((const char *)text, len);
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "files");
    if (!root || !cJSON_IsArray(files))
        die("%s: expected an isotrain-manifest-v1 document with $.files", where);
    recipe_name(field(cJSON_GetObjectItemCaseSensitive(root, "recipe"), "path", where), name, sizeof name, where);
    if (write) {
        snprintf(out, sizeof out, "recipes/%s", name);
        make_dir("recipes");
        make_dir(out);
    }
    it_sha256_ctx listing;
    it_sha256_init(&listing);
    const cJSON *e;
    cJSON_ArrayForEach(e, files)
        take_file(e, name, &listing, write, where);
    it_sha256_final(&listing, d);
    it_hex(d, 32, hex);
    if (strcmp(hex, field(root, "manifest_digest", where)) != 0)
        die("%s: $.manifest_digest is not the digest of its listing (%s)", where, hex);
    snprintf(out, sizeof out, "recipes/%s/MANIFEST.json", name);
    if (write)
        emit(out, text, len); /* listed in 1.3.0's manifest: it pins the recipe set's digest */
    cJSON_Delete(root);
    free(text);
}

/* Before any set is written: a recipe set that is not what its manifest
 * says stops the generator in milliseconds, not after the sweeps. */
void recipe_set_preflight(void) { walk(0); }

void gen_recipe_sets(void) { walk(1); }
