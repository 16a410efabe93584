/* sshsig.c — see sshsig.h. ssh-keygen runs without a shell, its arguments as
 * given, in a private temporary directory. */
#include "trust/sshsig.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "isotrain.h"

/* Runs argv with stdin from in_path (or /dev/null), stdout and stderr into
 * files; returns the exit status, -1 if it could not run. */
static int run(char *const argv[], const char *in_path, const char *out_path, const char *err_path)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int in = open(in_path ? in_path : "/dev/null", O_RDONLY);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int er = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || out < 0 || er < 0)
            _exit(126);
        dup2(in, 0), dup2(out, 1), dup2(er, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
    char *d = NULL, e[256];
    size_t n;
    if (read_file(path, 1 << 20, &d, &n, e, sizeof e) != 0)
        return xstrdup("");
    return d;
}

/* The last line of ssh-keygen's stderr, for the message. */
static void last_line(const char *path, char *err, size_t cap, const char *what)
{
    char *s = slurp(path);
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    const char *l = strrchr(s, '\n');
    snprintf(err, cap, "%s: %s", what, n ? (l ? l + 1 : s) : "ssh-keygen failed");
    free(s);
}

static char *tmpfile_in(const char *dir, const char *name, const void *data, size_t n)
{
    char *p = xasprintf("%s/%s", dir, name);
    char e[256];
    if (write_file(p, data, n, e, sizeof e) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

int sshsig_sign(const char *key, const void *msg, size_t n, char **armored, char *err, size_t cap)
{
    *armored = NULL;
    char *dir = make_temp_dir("isotrain-sign", err, cap);
    if (!dir)
        return -1;
    char *m = tmpfile_in(dir, "payload", msg, n);
    char *o = xasprintf("%s/out", dir), *e = xasprintf("%s/err", dir), *sig = xasprintf("%s/payload.sig", dir);
    int rc = -1;
    if (!m)
        snprintf(err, cap, "cannot write the message to sign");
    else {
        char *argv[] = {"ssh-keygen", "-q", "-Y", "sign", "-f", (char *)key, "-n", SSHSIG_NAMESPACE, m, NULL};
        int st = run(argv, NULL, o, e);
        if (st == 127)
            snprintf(err, cap, "--sign-key: ssh-keygen not found (Debian package openssh-client)");
        else if (st != 0)
            last_line(e, err, cap, "--sign-key: ssh-keygen -Y sign");
        else {
            *armored = slurp(sig);
            rc = (*armored)[0] ? 0 : -1;
            if (rc)
                snprintf(err, cap, "--sign-key: ssh-keygen wrote no signature");
        }
    }
    remove_tree(dir);
    free(dir), free(m), free(o), free(e), free(sig);
    return rc;
}

int sshsig_verify(const char *allowed_signers, const void *msg, size_t n, const char *armored, char **principal,
                  char *err, size_t cap)
{
    *principal = NULL;
    char *dir = make_temp_dir("isotrain-verify", err, cap);
    if (!dir)
        return -1;
    char *m = tmpfile_in(dir, "payload", msg, n), *s = tmpfile_in(dir, "payload.sig", armored, strlen(armored));
    char *o = xasprintf("%s/out", dir), *e = xasprintf("%s/err", dir);
    int rc = -1;
    if (!m || !s)
        snprintf(err, cap, "cannot write the signature to check");
    else {
        /* who signed (by the key in the signature), then whether that
         * principal's key signed exactly these bytes */
        char *find[] = {"ssh-keygen", "-Y", "find-principals", "-s", s, "-f", (char *)allowed_signers, NULL};
        int st = run(find, NULL, o, e);
        if (st == 127)
            snprintf(err, cap, "ssh-keygen not found (Debian package openssh-client)");
        else if (st != 0)
            snprintf(err, cap, "the signing key is not in the allowed signers file %s", allowed_signers);
        else {
            char *who = slurp(o);
            who[strcspn(who, "\n")] = 0;
            char *ver[] = {"ssh-keygen", "-Y", "verify", "-f", (char *)allowed_signers, "-I", who,
                           "-n", SSHSIG_NAMESPACE, "-s", s, NULL};
            st = run(ver, m, o, e);
            if (st == 0) {
                *principal = who;
                rc = 0;
            } else {
                last_line(e, err, cap, "the signature does not verify");
                free(who);
            }
        }
    }
    remove_tree(dir);
    free(dir), free(m), free(s), free(o), free(e);
    return rc;
}

static int b64v(int c)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c ? strchr(a, c) : NULL;
    return p ? (int)(p - a) : -1;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int sshsig_fingerprint(const char *armored, char fp[64])
{
    static const char begin[] = "-----BEGIN SSH SIGNATURE-----", end[] = "-----END SSH SIGNATURE-----";
    const char *b = strstr(armored, begin), *e = b ? strstr(b, end) : NULL;
    if (!b || !e)
        return -1;
    /* the base64 body, line breaks skipped */
    size_t cap = (size_t)(e - b), n = 0;
    unsigned char *raw = xmalloc(cap / 4 * 3 + 4);
    uint32_t acc = 0;
    int bits = 0;
    for (const char *p = b + sizeof begin - 1; p < e; p++) {
        if (*p == '\n' || *p == '\r' || *p == ' ')
            continue;
        if (*p == '=')
            break;
        int v = b64v(*p);
        if (v < 0) {
            free(raw);
            return -1;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            raw[n++] = (unsigned char)(acc >> bits);
        }
    }
    int rc = -1;
    if (n >= 14 && !memcmp(raw, "SSHSIG", 6)) {
        uint32_t klen = be32(raw + 10);
        if (klen > 0 && klen <= n - 14) {
            unsigned char d[32];
            it_sha256_ctx c;
            it_sha256_init(&c);
            it_sha256_update(&c, raw + 14, klen);
            it_sha256_final(&c, d);
            /* unpadded base64 of the 32-byte digest: 43 characters */
            static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            size_t k = (size_t)snprintf(fp, 64, "SHA256:");
            for (size_t i = 0; i < 32; i += 3) {
                uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < 32 ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < 32 ? d[i + 2] : 0);
                fp[k++] = a[v >> 18 & 63];
                fp[k++] = a[v >> 12 & 63];
                if (i + 1 < 32)
                    fp[k++] = a[v >> 6 & 63];
                if (i + 2 < 32)
                    fp[k++] = a[v & 63];
            }
            fp[k] = 0;
            rc = 0;
        }
    }
    free(raw);
    return rc;
}
