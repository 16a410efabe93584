/* util.c — see util.h. */
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/utf8.h"
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

char *xvasprintf(const char *fmt, va_list ap)
{
    sbuf b;
    sbuf_init(&b);
    sbuf_vprintf(&b, fmt, ap);
    return b.p ? sbuf_take(&b) : xstrdup("");
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
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

void sbuf_item_printf(sbuf *b, const char *fmt, ...)
{
    if (b->len)
        sbuf_adds(b, "; ");
    va_list ap;
    va_start(ap, fmt);
    sbuf_vprintf(b, fmt, ap);
    va_end(ap);
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

/* Every file the runner reads goes through here, so no file can hang it or
 * make it read without end: opened non-blocking (a FIFO cannot block the
 * open), required to be a regular file by fstat on the descriptor that is
 * then read (no check-then-open race), and read to at most max + 1 bytes (a
 * "regular" file such as /proc/self/pagemap that reports size 0 but reads
 * without end is stopped at the cap). With RF_NOFOLLOW a symbolic link as
 * the last component is refused: files an IUT writes are never followed. */
static int open_regular(int dirfd, const char *path, int flags, char *err, size_t cap)
{
    int of = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | ((flags & RF_NOFOLLOW) ? O_NOFOLLOW : 0);
    int fd = openat(dirfd, path, of);
    if (fd < 0) {
        if (errno == ELOOP && (flags & RF_NOFOLLOW))
            snprintf(err, cap, "%s: is a symbolic link (files from the IUT are not followed)", path);
        else
            snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, cap, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, cap, "%s: is %s, not a regular file", path, file_kind(st.st_mode));
        close(fd);
        return -1;
    }
    /* regular files never block; reads are plain from here on */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

const char *file_kind(unsigned mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return S_ISREG(mode) ? "a regular file" : "not a regular file";
}

/* Reads fd to EOF or to max + 1 bytes, feeding each chunk to sink. */
static int read_capped(int fd, const char *path, size_t max, void (*sink)(void *, const void *, size_t), void *ctx,
                       size_t *total, char *err, size_t cap)
{
    char chunk[65536];
    *total = 0;
    if (max >= SIZE_MAX - 1) /* max + 1 must not wrap */
        max = SIZE_MAX - 2;
    for (;;) {
        size_t want = max + 1 - *total;
        if (want > sizeof chunk)
            want = sizeof chunk;
        ssize_t n = read(fd, chunk, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(err, cap, "%s: read error: %s", path, strerror(errno));
            return -1;
        }
        if (n == 0)
            return 0;
        *total += (size_t)n;
        if (*total > max) {
            snprintf(err, cap, "%s: larger than the %zu-byte cap", path, max);
            return -1;
        }
        sink(ctx, chunk, (size_t)n);
    }
}

static void sink_sbuf(void *ctx, const void *d, size_t n)
{
    sbuf_add(ctx, d, n);
}

int read_file_at(int dirfd, const char *path, size_t max, int flags, char **data, size_t *len, char *err, size_t cap)
{
    int fd = open_regular(dirfd, path, flags, err, cap);
    if (fd < 0)
        return -1;
    sbuf b;
    sbuf_init(&b);
    size_t total;
    int r = read_capped(fd, path, max, sink_sbuf, &b, &total, err, cap);
    close(fd);
    if (r != 0) {
        sbuf_free(&b);
        return -1;
    }
    if (!b.p)
        sbuf_add(&b, "", 0);
    *len = b.len;
    *data = sbuf_take(&b);
    return 0;
}

int read_file(const char *path, size_t max, char **data, size_t *len, char *err, size_t cap)
{
    return read_file_at(AT_FDCWD, path, max, RF_FOLLOW, data, len, err, cap);
}

/* Reports are written to a temporary file beside the target and renamed
 * over it, so a reader sees the old file or the whole new one, never a
 * torn one, and nothing written before the rename is visible. */
int write_file(const char *path, const char *data, size_t len, char *err, size_t cap)
{
    make_parent_dirs(path);
    char *tmp = xasprintf("%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, cap, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    int bad = done != len || fchmod(fd, 0644) != 0;
    if (close(fd) != 0)
        bad = 1;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, cap, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
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

static void sink_sha(void *ctx, const void *d, size_t n)
{
    it_sha256_update(ctx, d, n);
}

int sha256_file_at(int dirfd, const char *path, uint64_t max, int flags, char hex[65], uint64_t *size, char *err,
                   size_t cap)
{
    int fd = open_regular(dirfd, path, flags, err, cap);
    if (fd < 0)
        return -1;
    it_sha256_ctx c;
    it_sha256_init(&c);
    size_t total;
    int r = read_capped(fd, path, (size_t)max, sink_sha, &c, &total, err, cap);
    close(fd);
    if (r != 0)
        return -1;
    unsigned char d[32];
    it_sha256_final(&c, d);
    it_hex(d, 32, hex);
    if (size)
        *size = total;
    return 0;
}

int sha256_fd(int fd, uint64_t max, char hex[65], uint64_t *size, char *err, size_t cap)
{
    it_sha256_ctx c;
    it_sha256_init(&c);
    static unsigned char buf[1 << 16];
    uint64_t off = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(err, cap, "cannot read: %s", strerror(errno));
            return -1;
        }
        if (n == 0)
            break;
        if (off + (uint64_t)n > max) {
            snprintf(err, cap, "larger than %llu bytes", (unsigned long long)max);
            return -1;
        }
        it_sha256_update(&c, buf, (size_t)n);
        off += (uint64_t)n;
    }
    unsigned char d[32];
    it_sha256_final(&c, d);
    it_hex(d, 32, hex);
    if (size)
        *size = off;
    return 0;
}

int sha256_file(const char *path, char hex[65], uint64_t *size, char *err, size_t cap)
{
    return sha256_file_at(AT_FDCWD, path, SHA256_FILE_MAX, RF_FOLLOW, hex, size, err, cap);
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
        uint32_t cp;
        size_t u = c >= 0x80 ? utf8_decode(s + i, take - i, &cp) : 0;
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
