/* manifest.c — vectors/FORMAT.md §4. */
#include "vectorset/manifest.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "isotrain.h"
#include "core/json_checked.h"
#include "core/util.h"
#include "vectorset/recipe_set.h"

enum { MANIFEST_MAX = 16 << 20, LISTED_FILE_MAX = 64 << 20 };

const manifest_file *manifest_bytes(const manifest_info *m, const char *rel)
{
    for (size_t i = 0; m && i < m->n_files; i++)
        if (m->files[i].data && !strcmp(m->files[i].path, rel))
            return &m->files[i];
    return NULL;
}

void manifest_free(manifest_info *m)
{
    for (size_t i = 0; i < m->n_files; i++) {
        free(m->files[i].path);
        free(m->files[i].data);
    }
    free(m->files);
    free(m->spec_version);
    free(m->vector_version);
    free(m->recipe_path);
    free(m->generator);
    memset(m, 0, sizeof *m);
}

/* FORMAT.md §4: one "<sha256> <size> <path>\n" line per file, hashed. */
void manifest_digest_of(const manifest_file *files, size_t n, char hex[65])
{
    it_sha256_ctx c;
    it_sha256_init(&c);
    for (size_t i = 0; i < n; i++) {
        char head[96];
        int k = snprintf(head, sizeof head, "%s %llu ", files[i].sha256, (unsigned long long)files[i].size);
        it_sha256_update(&c, head, (size_t)k);
        it_sha256_update(&c, files[i].path, strlen(files[i].path));
        it_sha256_update(&c, "\n", 1);
    }
    unsigned char d[32];
    it_sha256_final(&c, d);
    it_hex(d, 32, hex);
}

/* A listed path must stay inside the set: relative, no empty, "." or ".."
 * segment, not the manifest itself, not under receipts/. */
static const char *path_problem(const char *p)
{
    if (!*p)
        return "an empty path";
    if (p[0] == '/')
        return "an absolute path";
    if (strcmp(p, "MANIFEST.json") == 0)
        return "MANIFEST.json itself (the manifest does not list itself)";
    if (strncmp(p, "receipts/", 9) == 0)
        return "a path under receipts/ (receipts are not covered by the manifest)";
    const char *s = p;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return "a path with an empty, '.' or '..' segment";
        s += n;
        if (*s == '/')
            s++;
    }
    for (s = p; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == '\\')
            return "a path with a control character or backslash";
    return NULL;
}

static int listed(const manifest_info *m, const char *rel)
{
    for (size_t i = 0; i < m->n_files; i++)
        if (strcmp(m->files[i].path, rel) == 0)
            return 1;
    return 0;
}

/* Every file under dir/rel that the manifest does not list (FORMAT.md §4:
 * "an unlisted file is present outside receipts/"). */
static void find_unlisted(const char *dir, const char *rel, const manifest_info *m, problems *pr, size_t *count)
{
    char *full = rel[0] ? xasprintf("%s/%s", dir, rel) : xstrdup(dir);
    DIR *d = opendir(full);
    if (!d) {
        problems_add(pr, "%s: cannot list directory: %s", full, strerror(errno));
        (*count)++;
        free(full);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *r = rel[0] ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
        char *f = xasprintf("%s/%s", dir, r);
        struct stat st;
        if (!rel[0] && (strcmp(r, "MANIFEST.json") == 0 || strcmp(r, "receipts") == 0 ||
                        (m->recipe_path && strcmp(r, RECIPE_SET_SIGNATURE) == 0))) {
            /* the manifest and receipts/ are outside the listing by definition */
        } else if (lstat(f, &st) == 0 && S_ISDIR(st.st_mode)) {
            find_unlisted(dir, r, m, pr, count);
        } else if (!listed(m, r)) {
            problems_add(pr, "%s: unlisted file (not in MANIFEST.json; only receipts/ may hold unlisted files)", f);
            (*count)++;
        }
        free(f);
        free(r);
    }
    closedir(d);
    free(full);
}

/* $.recipe of a recipe set: {"path", "sha256"}, a path inside the set. */
static void manifest_recipe(jctx *c, const cJSON *rec, manifest_info *m)
{
    static const char *const rf[] = {"path", "sha256"};
    if (jx_fields(c, rec, "$.recipe", rf, 2) != 0)
        return;
    const char *p = jx_str(c, rec, "$.recipe", "path"), *h = jx_str(c, rec, "$.recipe", "sha256");
    if (p && path_problem(p))
        jx_expect(c, "$.recipe.path", cJSON_GetObjectItemCaseSensitive(rec, "path"),
                  "a relative path inside the set, not %s", path_problem(p));
    else if (h && (strlen(h) != 64 || !is_lower_hex(h, 64)))
        jx_expect(c, "$.recipe.sha256", cJSON_GetObjectItemCaseSensitive(rec, "sha256"), "64 lowercase hex digits");
    else if (p && h) {
        m->recipe_path = xstrdup(p);
        memcpy(m->recipe_sha256, h, 65);
    }
}

/* A recipe set's recipe is a listed file whose digest is $.recipe.sha256:
 * the recipe certified is the recipe named. */
static void recipe_listed(const char *mpath, const manifest_info *m, problems *pr)
{
    const manifest_file *f = NULL;
    for (size_t i = 0; i < m->n_files; i++)
        if (!strcmp(m->files[i].path, m->recipe_path))
            f = &m->files[i];
    if (!f)
        problems_add(pr, "%s: $.recipe.path: \"%s\" is not a file of the listing (expected the recipe, listed in "
                         "$.files)", mpath, m->recipe_path);
    else if (strcmp(f->sha256, m->recipe_sha256) != 0)
        problems_add(pr, "%s: $.recipe.sha256: %s, but the recipe %s is listed with SHA-256 %s (expected the "
                         "recipe's own digest)", mpath, m->recipe_sha256, f->path, f->sha256);
}

/* The manifest's own fields (FORMAT.md §4) into m; 1 if it records a
 * digest. */
static int manifest_header(jctx *c, const cJSON *root, manifest_info *m)
{
    static const char *const fields[] = {"schema", "spec_version", "vector_version", "generator", "files",
                                         "manifest_digest"};
    /* a recipe set's manifest: the recipe after the generator */
    static const char *const recipe_fields[] = {"schema", "spec_version", "vector_version", "generator", "recipe",
                                                "files", "manifest_digest"};
    const cJSON *rec = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "recipe") : NULL;
    if (rec)
        jx_fields(c, root, "$", recipe_fields, 7);
    else
        jx_fields(c, root, "$", fields, 6);
    if (rec)
        manifest_recipe(c, rec, m);
    const char *s = cJSON_IsObject(root) ? jx_str(c, root, "$", "schema") : NULL;
    if (s && strcmp(s, "isotrain-manifest-v1") != 0)
        jx_expect(c, "$.schema", cJSON_GetObjectItemCaseSensitive(root, "schema"), "\"isotrain-manifest-v1\"");
    const char *names[] = {"spec_version", "vector_version"};
    char **dst[] = {&m->spec_version, &m->vector_version};
    for (int i = 0; i < 2 && cJSON_IsObject(root); i++) {
        char path[32];
        snprintf(path, sizeof path, "$.%s", names[i]);
        const char *v = jx_str(c, root, "$", names[i]);
        if (v && !jx_is_version(v))
            jx_expect(c, path, cJSON_GetObjectItemCaseSensitive(root, names[i]), "a version x.y.z");
        *dst[i] = xstrdup(v ? v : "?");
    }
    const char *g = cJSON_IsObject(root) ? jx_str(c, root, "$", "generator") : NULL;
    if (g && !*g)
        jx_expect(c, "$.generator", cJSON_GetObjectItemCaseSensitive(root, "generator"), "a non-empty string");
    m->generator = xstrdup(g ? g : "?");
    const char *md = cJSON_IsObject(root) ? jx_str(c, root, "$", "manifest_digest") : NULL;
    if (md && (strlen(md) != 64 || !is_lower_hex(md, 64)))
        jx_expect(c, "$.manifest_digest", cJSON_GetObjectItemCaseSensitive(root, "manifest_digest"),
                  "64 lowercase hex digits");
    snprintf(m->recorded_digest, sizeof m->recorded_digest, "%s", md && strlen(md) == 64 ? md : "");
    return md != NULL;
}

/* One entry of $.files (path, size, sha256), appended to m->files; 0, or
 * -1 when the listing is not well-formed. */
static int listing_entry(jctx *c, const cJSON *f, size_t i, manifest_info *m)
{
    char path[64];
    snprintf(path, sizeof path, "$.files[%zu]", i);
    static const char *const ff[] = {"path", "size", "sha256"};
    manifest_file *mf = &m->files[m->n_files];
    if (jx_fields(c, f, path, ff, 3) != 0)
        return -1;
    const char *p = jx_str(c, f, path, "path");
    const char *h = jx_str(c, f, path, "sha256");
    uint64_t size = 0;
    int bad = !p || !h || jx_uint(c, f, path, "size", UINT64_C(1) << 40, &size) != 0;
    if (p && path_problem(p)) {
        jx_expect(c, path, cJSON_GetObjectItemCaseSensitive(f, "path"), "a relative path inside the set, not %s",
                  path_problem(p));
        bad = 1;
    }
    if (h && (strlen(h) != 64 || !is_lower_hex(h, 64))) {
        char hp[80];
        snprintf(hp, sizeof hp, "%s.sha256", path);
        jx_expect(c, hp, cJSON_GetObjectItemCaseSensitive(f, "sha256"), "64 lowercase hex digits");
        bad = 1;
    }
    if (bad)
        return -1;
    int rc = 0;
    if (m->n_files > 0 && strcmp(m->files[m->n_files - 1].path, p) >= 0) {
        problems_add(c->pr, "%s: %s.path: \"%s\" is not after \"%s\" (files are sorted by path, bytewise, without repeats)",
                     c->file, path, p, m->files[m->n_files - 1].path);
        rc = -1;
    }
    mf->path = xstrdup(p);
    mf->size = size;
    memcpy(mf->sha256, h, 65);
    m->n_files++;
    return rc;
}

/* $.files into m; 1 if the listing is well-formed. */
static int manifest_listing(jctx *c, const cJSON *root, manifest_info *m)
{
    const cJSON *files = cJSON_IsObject(root) ? jx_arr(c, root, "$", "files") : NULL;
    if (!files)
        return 0;
    int listing_ok = 1;
    m->files = xcalloc((size_t)cJSON_GetArraySize(files), sizeof *m->files);
    size_t i = 0;
    for (const cJSON *f = files->child; f; f = f->next, i++)
        if (listing_entry(c, f, i, m) != 0)
            listing_ok = 0;
    return listing_ok;
}

/* The files themselves: each listed one present, regular, of its size and
 * digest; read once, hashed, kept (the loader parses exactly these bytes). */
static void manifest_files(const char *dir, manifest_info *m, problems *pr)
{
    char err[512];
    for (size_t i = 0; i < m->n_files; i++) {
        manifest_file *mf = &m->files[i];
        char *full = xasprintf("%s/%s", dir, mf->path);
        struct stat st;
        char hex[65];
        char *bytes = NULL;
        size_t size = 0;
        if (lstat(full, &st) != 0)
            problems_add(pr, "%s: listed in MANIFEST.json but missing", full);
        else if (!S_ISREG(st.st_mode))
            problems_add(pr, "%s: listed in MANIFEST.json but not a regular file", full);
        else if (read_file(full, LISTED_FILE_MAX, &bytes, &size, err, sizeof err) != 0)
            problems_add(pr, "%s", err);
        else {
            unsigned char d[32];
            it_sha256(bytes, size, d);
            it_hex(d, 32, hex);
            if (size != mf->size)
                problems_add(pr, "%s: %llu bytes, MANIFEST.json says %llu", full, (unsigned long long)size,
                             (unsigned long long)mf->size);
            else if (strcmp(hex, mf->sha256) != 0)
                problems_add(pr, "%s: SHA-256 %s, MANIFEST.json says %s (the file was changed)", full, hex,
                             mf->sha256);
            else {
                mf->data = (unsigned char *)bytes;
                mf->len = size;
                bytes = NULL;
            }
        }
        free(bytes);
        free(full);
    }
}

/* FORMAT.md §4 */
size_t manifest_verify(const char *dir, manifest_info *m, problems *pr)
{
    memset(m, 0, sizeof *m);
    size_t before = pr->n;
    char *mpath = xasprintf("%s/MANIFEST.json", dir);
    char err[512];
    char *text = NULL;
    size_t len = 0;
    if (read_file(mpath, MANIFEST_MAX, &text, &len, err, sizeof err) != 0) {
        problems_add(pr, "%s (the vector set's manifest, FORMAT.md §4)", err);
        free(mpath);
        return pr->n - before;
    }
    jctx c = {mpath, pr};
    cJSON *root = jx_parse(&c, text, len);
    free(text);
    if (!root) {
        free(mpath);
        return pr->n - before;
    }
    int has_digest = manifest_header(&c, root, m);
    int listing_ok = manifest_listing(&c, root, m);
    cJSON_Delete(root);
    manifest_files(dir, m, pr);
    size_t unlisted = 0;
    find_unlisted(dir, "", m, pr, &unlisted);
    if (m->recipe_path)
        recipe_listed(mpath, m, pr);
    manifest_digest_of(m->files, m->n_files, m->digest);
    if (listing_ok && has_digest && strcmp(m->digest, m->recorded_digest) != 0)
        problems_add(pr, "%s: $.manifest_digest is %s, but the listing's digest (FORMAT.md §4) is %s", mpath,
                     m->recorded_digest, m->digest);
    free(mpath);
    return pr->n - before;
}
