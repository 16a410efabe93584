/* util.h — small helpers shared by the runner's modules: growable strings,
 * checked allocation, file reading and hashing, monotonic time, text
 * sanitising for reports. No protocol knowledge lives here. */
#ifndef CONFORM_UTIL_H
#define CONFORM_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* A growable, always NUL-terminated byte string. */
typedef struct {
    char *p;
    size_t len, cap;
} sbuf;

void sbuf_init(sbuf *b);
void sbuf_free(sbuf *b);
void sbuf_reset(sbuf *b);
void sbuf_add(sbuf *b, const void *data, size_t n);
void sbuf_adds(sbuf *b, const char *s);
void sbuf_addc(sbuf *b, char c);
void sbuf_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vprintf(sbuf *b, const char *fmt, va_list ap);
/* one item of a "; "-separated list: the separator first unless b is empty */
void sbuf_item_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the buffer to the caller (free() it); b is left empty. */
char *sbuf_take(sbuf *b);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The one "format into a fresh string" (free() it; never NULL): what every
 * variadic message function (problems_add, jx_expect, hw_textf, ...) is
 * built on. */
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Reading files safely (util.c says why each step): non-blocking open, a
 * regular file by fstat, at most max bytes (max + 1 read means "too large"),
 * and with RF_NOFOLLOW no symbolic link as the last component. Every
 * failure is -1 with a message naming the file and what it is instead. */
enum { RF_FOLLOW = 0, RF_NOFOLLOW = 1 };
/* The runner's own inputs (vectors, receipts, hosts file): links followed. */
int read_file(const char *path, size_t max, char **data, size_t *len, char *err, size_t cap);
/* dirfd: a directory descriptor or AT_FDCWD; flags: RF_*. */
int read_file_at(int dirfd, const char *path, size_t max, int flags, char **data, size_t *len, char *err, size_t cap);
/* "a FIFO", "a directory", ... for a st_mode. */
const char *file_kind(unsigned mode);
/* Writes data to path atomically: a temporary file beside it, then rename. */
int write_file(const char *path, const char *data, size_t len, char *err, size_t cap);
/* mkdir -p for the directory part of path. */
int make_parent_dirs(const char *path);

/* SHA-256 of a file's bytes (lowercase hex) and its size, read as above
 * (sha256_file: links followed, at most SHA256_FILE_MAX bytes). 0 or -1 + err. */
#define SHA256_FILE_MAX ((uint64_t)4 << 30)
int sha256_file(const char *path, char hex[65], uint64_t *size, char *err, size_t cap);
int sha256_file_at(int dirfd, const char *path, uint64_t max, int flags, char hex[65], uint64_t *size, char *err,
                   size_t cap);

/* SHA-256 of an open file's bytes from offset 0 (pread: the descriptor's
 * offset is left alone), at most max bytes. 0 or -1 + err. The subject of a
 * receipt is hashed this way, through the descriptor that is then executed. */
int sha256_fd(int fd, uint64_t max, char hex[65], uint64_t *size, char *err, size_t cap);

/* Seconds on the monotonic clock. */
double now_s(void);
/* Seconds since the epoch, and an ISO-8601 UTC rendering of it. */
void utc_timestamp(char buf[32]);

/* Appends text to out as printable, valid UTF-8: control characters and
 * invalid byte sequences become \xNN escapes; at most max input bytes are
 * taken, with "..." appended when cut. */
void sbuf_add_sanitized(sbuf *out, const char *text, size_t len, size_t max);
/* Same, returning a fresh string. */
char *sanitized(const char *text, size_t len, size_t max);

/* Lowercase hex helpers. */
int hexval(int c); /* 0..15, or -1 */
int is_lower_hex(const char *s, size_t n);

/* Temporary working directories: mkdtemp under $TMPDIR (or /tmp). */
char *make_temp_dir(const char *prefix, char *err, size_t cap);
/* Removes a directory tree the runner created (files and subdirectories). */
void remove_tree(const char *path);

/* Binary32 bits as a printable value: "0x3f800000 (1)". */
void f32_describe(uint32_t bits, char *buf, size_t cap);

#endif
