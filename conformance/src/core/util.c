/* util.c — see util.h. */
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "isotrain.h"

static void oom(void)
{
    fputs("isotrain-conform: out of memory\n", stderr);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom();
    return q;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    sbuf b;
    sbuf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    sbuf_vprintf(&b, fmt, ap);
    va_end(ap);
    return sbuf_take(&b);
}

void sbuf_init(sbuf *b)
{
    b->p = NULL;
    b->len = b->cap = 0;
}

void sbuf_free(sbuf *b)
{
    free(b->p);
    sbuf_init(b);
}

void sbuf_reset(sbuf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

static void sbuf_reserve(sbuf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->p = xrealloc(b->p, cap);
    b->cap = cap;
}

void sbuf_add(sbuf *b, const void *data, size_t n)
{
    sbuf_reserve(b, n);
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void sbuf_adds(sbuf *b, const char *s) { sbuf_add(b, s, strlen(s)); }

void sbuf_addc(sbuf *b, char c) { sbuf_add(b, &c, 1); }

void sbuf_vprintf(sbuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    sbuf_reserve(b, (size_t)n);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void sbuf_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *sbuf_take(sbuf *b)
{
    char *p = b->p ? b->p : xstrdup("");
    sbuf_init(b);
    return p;
}

int read_file(const char *path, size_t max, char **data, size_t *len, char *err, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    sbuf b;
    sbuf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > max) {
            snprintf(err, cap, "%s: larger than %zu bytes", path, max);
            fclose(f);
            sbuf_free(&b);
            return -1;
        }
        sbuf_add(&b, chunk, n);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, cap, "%s: read error", path);
        sbuf_free(&b);
        return -1;
    }
    *len = b.len;
    *data = sbuf_take(&b);
    return 0;
}

int write_file(const char *path, const char *data, size_t len, char *err, size_t cap)
{
    make_parent_dirs(path);
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, cap, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    size_t w = fwrite(data, 1, len, f);
    if (fclose(f) != 0 || w != len) {
        snprintf(err, cap, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int make_parent_dirs(const char *path)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    free(p);
    return 0;
}

int sha256_file(const char *path, char hex[65], uint64_t *size, char *err, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    it_sha256_ctx c;
    it_sha256_init(&c);
    unsigned char chunk[65536];
    size_t n;
    uint64_t total = 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        it_sha256_update(&c, chunk, n);
        total += n;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, cap, "%s: read error", path);
        return -1;
    }
    unsigned char d[32];
    it_sha256_final(&c, d);
    it_hex(d, 32, hex);
    if (size)
        *size = total;
    return 0;
}

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void utc_timestamp(char buf[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Length of a valid UTF-8 sequence starting at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t need;
    unsigned min;
    if (c < 0x80)
        return 1;
    else if (c >= 0xc2 && c <= 0xdf)
        need = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        need = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        need = 4, min = 0x10000;
    else
        return 0;
    if (n < need)
        return 0;
    unsigned cp = c & (0x7f >> need);
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return need;
}

void sbuf_add_sanitized(sbuf *out, const char *text, size_t len, size_t max)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t take = len < max ? len : max;
    for (size_t i = 0; i < take;) {
        unsigned c = s[i];
        if (c == '\t' || c == '\n' || (c >= 0x20 && c < 0x7f)) {
            sbuf_addc(out, (char)c);
            i++;
            continue;
        }
        size_t u = c >= 0x80 ? utf8_len(s + i, take - i) : 0;
        if (u > 0) {
            sbuf_add(out, s + i, u);
            i += u;
        } else {
            sbuf_printf(out, "\\x%02x", c);
            i++;
        }
    }
    if (len > max)
        sbuf_adds(out, "...");
}

char *sanitized(const char *text, size_t len, size_t max)
{
    sbuf b;
    sbuf_init(&b);
    sbuf_add_sanitized(&b, text, len, max);
    return sbuf_take(&b);
}

int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int is_lower_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

char *make_temp_dir(const char *prefix, char *err, size_t cap)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    char *tmpl = xasprintf("%s/%s.XXXXXX", base, prefix);
    if (!mkdtemp(tmpl)) {
        snprintf(err, cap, "cannot create a temporary directory under %s: %s", base, strerror(errno));
        free(tmpl);
        return NULL;
    }
    return tmpl;
}

void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                char *child = xasprintf("%s/%s", path, e->d_name);
                remove_tree(child);
                free(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

void f32_describe(uint32_t bits, char *buf, size_t cap)
{
    snprintf(buf, cap, "0x%08x (%.9g)", (unsigned)bits, (double)it_f32_from_bits(bits));
}
