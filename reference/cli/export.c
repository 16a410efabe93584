/* export.c — `isotrain export`: checkpoint -> .npy / .npz / safetensors.
 * See export.h for the formats. Every output is a pure function of the
 * checkpoint bytes (fixed ZIP timestamps, no host data), so exporting the
 * same checkpoint on two machines gives the same file bytes. */
#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <direct.h>
#else
#include <sys/stat.h>
#endif

enum { EXIT_USAGE = 2, EXIT_IO = 4 };

/* ---- a growable byte buffer -------------------------------------------- */

void it_buf_free(it_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

static void put(it_buf *b, const void *data, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void put_str(it_buf *b, const char *s) { put(b, s, strlen(s)); }

/* ZIP and safetensors integers are little-endian whatever the host's order */
static void put_le(it_buf *b, uint64_t v, int bytes)
{
    unsigned char le[8];
    for (int i = 0; i < bytes; i++)
        le[i] = (unsigned char)(v >> (8 * i));
    put(b, le, (size_t)bytes);
}

/* ---- CRC-32 --------------------------------------------------------------- */

uint32_t it_crc32(const unsigned char *p, size_t n)
{
    /* bitwise, not table-driven: the archives are ~50 KB, and this is the
     * form a reader can check against the polynomial at a glance */
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

/* ---- .npy ----------------------------------------------------------------- */

int it_npy_write(it_buf *out, const it_tensor_info *t, const unsigned char *bytes)
{
    char dict[128];
    if (t->cols == 1)
        snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu,), }", t->rows);
    else
        snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu, %zu), }", t->rows,
                 t->cols);
    /* NEP 1: magic (6) + version (2) + header length (2) + header, padded
     * with spaces and ended by '\n' so the data starts on a 64-byte boundary
     * (numpy >= 1.22 writes 64; older readers accept any padding) */
    size_t used = 10 + strlen(dict) + 1;
    size_t pad = (64 - used % 64) % 64;
    size_t hlen = strlen(dict) + pad + 1;
    put(out, "\x93NUMPY\x01\x00", 8);
    put_le(out, hlen, 2);
    put_str(out, dict);
    for (size_t i = 0; i < pad; i++)
        put(out, " ", 1);
    put(out, "\n", 1);
    put(out, bytes, 4 * t->rows * t->cols);
    return out->failed ? -1 : 0;
}

/* ---- .npz: a stored (uncompressed) ZIP of .npy members --------------------- */

/* MS-DOS date 1980-01-01, time 00:00: the earliest ZIP can say, and fixed,
 * so an archive does not depend on when it was made */
#define ZIP_DOS_TIME 0x0000u
#define ZIP_DOS_DATE 0x0021u

int it_npz_write(it_buf *out, const it_tensor_info *ts, size_t n, const unsigned char *ckpt)
{
    it_buf central = {0};
    for (size_t k = 0; k < n; k++) {
        it_buf member = {0};
        if (it_npy_write(&member, &ts[k], ckpt + 4 * ts[k].offset) != 0) {
            it_buf_free(&member);
            it_buf_free(&central);
            return -1;
        }
        char name[64];
        snprintf(name, sizeof name, "%s.npy", ts[k].name);
        uint32_t crc = it_crc32(member.p, member.len);
        uint64_t offset = out->len;
        /* local file header (APPNOTE 4.3.7) */
        put_le(out, 0x04034b50u, 4);
        put_le(out, 20, 2); /* version needed: 2.0 */
        put_le(out, 0, 2);  /* flags */
        put_le(out, 0, 2);  /* method: stored */
        put_le(out, ZIP_DOS_TIME, 2);
        put_le(out, ZIP_DOS_DATE, 2);
        put_le(out, crc, 4);
        put_le(out, member.len, 4);
        put_le(out, member.len, 4);
        put_le(out, strlen(name), 2);
        put_le(out, 0, 2);
        put_str(out, name);
        put(out, member.p, member.len);
        /* its central directory record (APPNOTE 4.3.12) */
        put_le(&central, 0x02014b50u, 4);
        put_le(&central, 20, 2); /* made by: MS-DOS attributes, 2.0 */
        put_le(&central, 20, 2);
        put_le(&central, 0, 2);
        put_le(&central, 0, 2);
        put_le(&central, ZIP_DOS_TIME, 2);
        put_le(&central, ZIP_DOS_DATE, 2);
        put_le(&central, crc, 4);
        put_le(&central, member.len, 4);
        put_le(&central, member.len, 4);
        put_le(&central, strlen(name), 2);
        put_le(&central, 0, 2); /* extra */
        put_le(&central, 0, 2); /* comment */
        put_le(&central, 0, 2); /* disk */
        put_le(&central, 0, 2); /* internal attributes */
        put_le(&central, 0, 4); /* external attributes */
        put_le(&central, offset, 4);
        put_str(&central, name);
        it_buf_free(&member);
    }
    uint64_t cd_offset = out->len;
    put(out, central.p, central.len);
    /* end of central directory (APPNOTE 4.3.16) */
    put_le(out, 0x06054b50u, 4);
    put_le(out, 0, 2);
    put_le(out, 0, 2);
    put_le(out, n, 2);
    put_le(out, n, 2);
    put_le(out, central.len, 4);
    put_le(out, cd_offset, 4);
    put_le(out, 0, 2);
    int failed = out->failed || central.failed;
    it_buf_free(&central);
    return failed ? -1 : 0;
}

/* ---- safetensors ----------------------------------------------------------- */

int it_safetensors_write(it_buf *out, const it_tensor_info *ts, size_t n, const unsigned char *ckpt,
                         const char *profile, const char *ckpt_sha256_hex)
{
    /* The header is formatted here rather than with cJSON: the CLI links
     * libc only (it is built statically for every ISA of the matrix), and
     * every string in it is a profile's tensor name, a fixed word or hex. */
    it_buf h = {0};
    char item[256];
    size_t begin = 0;
    put_str(&h, "{");
    for (size_t k = 0; k < n; k++) {
        size_t bytes = 4 * ts[k].rows * ts[k].cols;
        if (ts[k].cols == 1)
            snprintf(item, sizeof item, "\"%s\":{\"dtype\":\"F32\",\"shape\":[%zu],\"data_offsets\":[%zu,%zu]},",
                     ts[k].name, ts[k].rows, begin, begin + bytes);
        else
            snprintf(item, sizeof item,
                     "\"%s\":{\"dtype\":\"F32\",\"shape\":[%zu,%zu],\"data_offsets\":[%zu,%zu]},", ts[k].name,
                     ts[k].rows, ts[k].cols, begin, begin + bytes);
        put_str(&h, item);
        begin += bytes;
    }
    snprintf(item, sizeof item,
             "\"__metadata__\":{\"format\":\"isotrain\",\"profile\":\"%s\",\"checkpoint_sha256\":\"%s\"}}", profile,
             ckpt_sha256_hex);
    put_str(&h, item);
    /* spaces up to a multiple of 8, so the data is 8-byte aligned as the
     * format's own writer does */
    while (!h.failed && (8 + h.len) % 8 != 0)
        put(&h, " ", 1);
    put_le(out, h.len, 8);
    put(out, h.p, h.len);
    for (size_t k = 0; k < n; k++)
        put(out, ckpt + 4 * ts[k].offset, 4 * ts[k].rows * ts[k].cols);
    int failed = out->failed || h.failed;
    it_buf_free(&h);
    return failed ? -1 : 0;
}

/* ---- the command ----------------------------------------------------------- */

static void export_usage(FILE *f)
{
    char known[128];
    it_profile_names("|", known, sizeof known);
    fprintf(f, "usage: isotrain export --profile %s --format npy|npz|safetensors --out PATH CHECKPOINT\n", known);
    fputs(          "  npy          PATH is a directory (created if missing): one NAME.npy per tensor\n"
          "  npz          PATH is one .npz archive of NAME.npy members (numpy.load)\n"
          "  safetensors  PATH is one .safetensors file (dtype F32, metadata: profile,\n"
          "               checkpoint_sha256)\n"
          "Tensor names and shapes are the profile's, in checkpoint order:\n",
          f);
    for (size_t k = 0; k < it_n_profiles; k++) {
        fprintf(f, "  %s:", it_profiles[k]->name);
        for (size_t t = 0; t < it_profiles[k]->ntensors; t++) {
            const it_tensor_info *ti = &it_profiles[k]->tensors[t];
            if (ti->cols == 1)
                fprintf(f, " %s [%zu]", ti->name, ti->rows);
            else
                fprintf(f, " %s [%zu,%zu]", ti->name, ti->rows, ti->cols);
        }
        fputc('\n', f);
    }
}

/* the profile table (profiles.c) */
static const it_profile *find_profile(const char *name)
{
    const it_profile *p = it_profile_find(name);
    if (!p) {
        char known[128];
        it_profile_names(" ", known, sizeof known);
        fprintf(stderr, "isotrain export: unknown profile '%s' (known: %s)\n", name, known);
    }
    return p;
}

static int write_file(const char *path, const it_buf *b)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "isotrain export: cannot create %s: %s\n", path, strerror(errno));
        return EXIT_IO;
    }
    size_t w = fwrite(b->p, 1, b->len, f);
    int bad = w != b->len || ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "isotrain export: cannot write %s: %s\n", path, strerror(errno));
        remove(path);
        return EXIT_IO;
    }
    return 0;
}

static int mkdir1(const char *path)
{
#ifdef _WIN32
    return _mkdir(path);
#else
    return mkdir(path, 0777);
#endif
}

/* The directory and its missing parents, as `mkdir -p` (and train's
 * --checkpoint-dir) does; an existing directory is fine. */
static int make_dir(const char *path)
{
    char p[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof p) {
        fprintf(stderr, "isotrain export: bad output directory '%s'\n", path);
        return -1;
    }
    memcpy(p, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\\' && p[i] != '\0')
            continue;
        char c = p[i];
        p[i] = '\0';
        if (mkdir1(p) != 0 && errno != EEXIST) {
            fprintf(stderr, "isotrain export: cannot create directory %s: %s\n", p, strerror(errno));
            return -1;
        }
        p[i] = c;
    }
    return 0;
}

/* The whole checkpoint, which must be exactly 4 * n_params bytes: a
 * truncated or padded file is not a checkpoint of this profile. */
static unsigned char *read_checkpoint(const char *path, size_t want)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "isotrain export: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    unsigned char *p = malloc(want + 1);
    size_t got = p ? fread(p, 1, want + 1, f) : 0;
    int err = ferror(f);
    fclose(f);
    if (!p || err) {
        fprintf(stderr, "isotrain export: cannot read %s\n", path);
        free(p);
        return NULL;
    }
    if (got != want) {
        fprintf(stderr, "isotrain export: %s is %s%zu bytes; a checkpoint of this profile is exactly %zu (spec §8.1)\n",
                path, got > want ? "more than " : "", got > want ? want : got, want);
        free(p);
        return NULL;
    }
    return p;
}

int it_export_main(int argc, char **argv)
{
    const char *profile = NULL, *format = NULL, *out = NULL, *in = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            export_usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--profile") || !strcmp(a, "--format") || !strcmp(a, "--out")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "isotrain export: %s needs a value\n", a);
                return EXIT_USAGE;
            }
            const char **slot = !strcmp(a, "--profile") ? &profile : !strcmp(a, "--format") ? &format : &out;
            *slot = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "isotrain export: unknown option '%s'\n", a);
            return EXIT_USAGE;
        } else if (in) {
            fprintf(stderr, "isotrain export: one checkpoint at a time ('%s' and '%s')\n", in, a);
            return EXIT_USAGE;
        } else
            in = a;
    }
    if (!profile || !format || !out || !in) {
        fprintf(stderr, "isotrain export: %s is required\n",
                !profile ? "--profile" : !format ? "--format" : !out ? "--out" : "a checkpoint file");
        export_usage(stderr);
        return EXIT_USAGE;
    }
    const it_profile *pr = find_profile(profile);
    if (!pr)
        return EXIT_USAGE;
    int npy = !strcmp(format, "npy"), npz = !strcmp(format, "npz"), st = !strcmp(format, "safetensors");
    if (!npy && !npz && !st) {
        fprintf(stderr, "isotrain export: unknown format '%s' (known: npy npz safetensors)\n", format);
        return EXIT_USAGE;
    }
    unsigned char *ckpt = read_checkpoint(in, 4 * pr->nparams);
    if (!ckpt)
        return EXIT_IO;
    int rc = 0;
    if (npy) {
        if (make_dir(out) != 0)
            rc = EXIT_IO;
        for (size_t k = 0; rc == 0 && k < pr->ntensors; k++) {
            it_buf b = {0};
            char path[4096];
            if (snprintf(path, sizeof path, "%s/%s.npy", out, pr->tensors[k].name) >= (int)sizeof path) {
                fprintf(stderr, "isotrain export: output path too long\n");
                rc = EXIT_USAGE;
            } else if (it_npy_write(&b, &pr->tensors[k], ckpt + 4 * pr->tensors[k].offset) != 0) {
                fprintf(stderr, "isotrain export: out of memory\n");
                rc = EXIT_IO;
            } else
                rc = write_file(path, &b);
            it_buf_free(&b);
        }
    } else {
        it_buf b = {0};
        unsigned char d[32];
        char hex[65];
        it_sha256(ckpt, 4 * pr->nparams, d);
        it_hex(d, 32, hex);
        int bad = npz ? it_npz_write(&b, pr->tensors, pr->ntensors, ckpt)
                      : it_safetensors_write(&b, pr->tensors, pr->ntensors, ckpt, pr->name, hex);
        if (bad) {
            fprintf(stderr, "isotrain export: out of memory\n");
            rc = EXIT_IO;
        } else
            rc = write_file(out, &b);
        it_buf_free(&b);
    }
    free(ckpt);
    return rc;
}
