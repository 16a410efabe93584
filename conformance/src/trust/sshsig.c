/* sshsig.c — see sshsig.h. ssh-keygen runs without a shell, its arguments as
 * given, in a private temporary directory. */
#include "trust/sshsig.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base64.h"
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

/* A private directory with the message ("payload"), its signature
 * ("payload.sig") and where ssh-keygen's stdout and stderr go: what both
 * checks below hand ssh-keygen. */
typedef struct {
    char *dir, *m, *s, *o, *e;
} sig_scratch;

static int scratch_open(sig_scratch *x, const void *msg, size_t n, const char *armored, char *err, size_t cap)
{
    memset(x, 0, sizeof *x);
    if (!(x->dir = make_temp_dir("isotrain-verify", err, cap)))
        return -1;
    x->m = tmpfile_in(x->dir, "payload", msg, n);
    x->s = tmpfile_in(x->dir, "payload.sig", armored, strlen(armored));
    x->o = xasprintf("%s/out", x->dir);
    x->e = xasprintf("%s/err", x->dir);
    if (x->m && x->s)
        return 0;
    snprintf(err, cap, "cannot write the signature to check");
    return -1;
}

static void scratch_close(sig_scratch *x)
{
    if (x->dir)
        remove_tree(x->dir);
    free(x->dir), free(x->m), free(x->s), free(x->o), free(x->e);
}

int sshsig_check(const void *msg, size_t n, const char *armored, char fp[64], char *err, size_t cap)
{
    fp[0] = 0;
    if (sshsig_fingerprint(armored, fp) != 0)
        return snprintf(err, cap, "not an SSH signature (PROTOCOL.sshsig)"), -1;
    sig_scratch x;
    int rc = -1;
    if (scratch_open(&x, msg, n, armored, err, cap) == 0) {
        char *argv[] = {"ssh-keygen", "-Y", "check-novalidate", "-n", SSHSIG_NAMESPACE, "-s", x.s, NULL};
        int st = run(argv, x.m, x.o, x.e);
        if (st == 127)
            snprintf(err, cap, "ssh-keygen not found (Debian package openssh-client)");
        else if (st != 0)
            last_line(x.e, err, cap, "the signature does not verify");
        else
            rc = 0;
    }
    scratch_close(&x);
    return rc;
}

int sshsig_verify(const char *allowed_signers, const void *msg, size_t n, const char *armored, char **principal,
                  char *err, size_t cap)
{
    *principal = NULL;
    sig_scratch x;
    int rc = -1;
    if (scratch_open(&x, msg, n, armored, err, cap) == 0) {
        /* who signed (by the key in the signature), then whether that
         * principal's key signed exactly these bytes */
        char *find[] = {"ssh-keygen", "-Y", "find-principals", "-s", x.s, "-f", (char *)allowed_signers, NULL};
        int st = run(find, NULL, x.o, x.e);
        if (st == 127)
            snprintf(err, cap, "ssh-keygen not found (Debian package openssh-client)");
        else if (st != 0)
            snprintf(err, cap, "the signing key is not in the allowed signers file %s", allowed_signers);
        else {
            char *who = slurp(x.o);
            who[strcspn(who, "\n")] = 0;
            char *ver[] = {"ssh-keygen", "-Y", "verify", "-f", (char *)allowed_signers, "-I", who,
                           "-n", SSHSIG_NAMESPACE, "-s", x.s, NULL};
            st = run(ver, x.m, x.o, x.e);
            if (st == 0) {
                *principal = who;
                rc = 0;
            } else {
                last_line(x.e, err, cap, "the signature does not verify");
                free(who);
            }
        }
    }
    scratch_close(&x);
    return rc;
}

/* ---- which key made a signature (OpenSSH PROTOCOL.sshsig) ------------------
 * The one reading of an SSHSIG that verify (trust/dsse.c) and the page
 * (report/html/receipt_gate.c) both use, so that they cannot name different keys, or
 * one a key and the other none, for the same signature text. */

/* A cursor over the signature blob: the SSH wire encoding (RFC 4251 §5). */
typedef struct {
    const unsigned char *p;
    size_t left;
} wire_in;

static int take_u32(wire_in *w, uint32_t *v)
{
    if (w->left < 4)
        return -1;
    *v = (uint32_t)w->p[0] << 24 | (uint32_t)w->p[1] << 16 | (uint32_t)w->p[2] << 8 | w->p[3];
    w->p += 4, w->left -= 4;
    return 0;
}

/* A "string": uint32 length, then that many bytes, all inside the blob. */
static int take_string(wire_in *w, const unsigned char **s, size_t *n)
{
    uint32_t len;
    if (take_u32(w, &len) != 0 || len > w->left)
        return -1;
    *s = w->p, *n = len;
    w->p += len, w->left -= len;
    return 0;
}

/* The body between the armor lines, line breaks removed, strictly decoded
 * (core/base64.h). 0, or -1 when there is no armor or the body is not base64. */
static int dearmor(const char *armored, unsigned char **blob, size_t *n)
{
    static const char begin[] = "-----BEGIN SSH SIGNATURE-----", end[] = "-----END SSH SIGNATURE-----";
    const char *b = strstr(armored, begin), *e = b ? strstr(b, end) : NULL;
    *blob = NULL;
    if (!b || !e)
        return -1;
    sbuf text;
    sbuf_init(&text);
    for (const char *p = b + sizeof begin - 1; p < e; p++)
        if (*p != '\n' && *p != '\r')
            sbuf_addc(&text, *p);
    int rc = text.len ? b64_decode(text.p, text.len, blob, n) : -1;
    sbuf_free(&text);
    return rc;
}

/* The public key blob of an SSHSIG: the magic "SSHSIG", uint32 version 1,
 * then the strings publickey, namespace, reserved, hash_algorithm and
 * signature, and nothing after them (PROTOCOL.sshsig §3). 0, or -1 when the
 * blob is truncated, has another version or trailing bytes. */
static int sshsig_public_key(const unsigned char *blob, size_t n, const unsigned char **key, size_t *klen)
{
    wire_in w = {blob, n};
    uint32_t version;
    if (n < 6 || memcmp(blob, "SSHSIG", 6) != 0)
        return -1;
    w.p += 6, w.left -= 6;
    if (take_u32(&w, &version) != 0 || version != 1 || take_string(&w, key, klen) != 0 || *klen == 0)
        return -1;
    for (int field = 0; field < 4; field++) { /* namespace, reserved, hash_algorithm, signature */
        const unsigned char *s;
        size_t sl;
        if (take_string(&w, &s, &sl) != 0)
            return -1;
    }
    return w.left == 0 ? 0 : -1;
}

int sshsig_fingerprint(const char *armored, char fp[64])
{
    unsigned char *blob;
    size_t n;
    const unsigned char *key;
    size_t klen;
    int rc = -1;
    if (dearmor(armored, &blob, &n) == 0 && sshsig_public_key(blob, n, &key, &klen) == 0) {
        /* "SHA256:" and the unpadded base64 of the digest, as ssh-keygen -l
         * prints it (OpenSSH sshkey_fingerprint): 7 + 43 characters */
        unsigned char d[32];
        it_sha256(key, klen, d);
        sbuf b64;
        sbuf_init(&b64);
        b64_encode(&b64, d, sizeof d);
        while (b64.len && b64.p[b64.len - 1] == '=')
            b64.p[--b64.len] = '\0';
        snprintf(fp, 64, "SHA256:%s", b64.p);
        sbuf_free(&b64);
        rc = 0;
    }
    free(blob);
    return rc;
}
