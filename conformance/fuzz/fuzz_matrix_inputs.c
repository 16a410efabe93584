/* fuzz_matrix_inputs — the runner's readers of untrusted receipts and hosts
 * files: the first byte picks the reader, the rest is the file.
 *   0  a receipt as the host matrix reads it (report/matrix/: the trust gate,
 *      then the table's fields)
 *   1  a hosts file
 *   2  a receipt as `verify` reads it (trust/verify_receipt.h: unsigned
 *      accepted, so every check past the signature runs)
 * Property: no crash and no undefined behaviour (UBSan aborts: a number out
 * of an integer type's range converted to it, say); a file is accepted or
 * refused with a message; an accepted receipt holds at most MAX_CK
 * checkpoints with valid digests, a verified one at most VERIFY_MAX_PROBLEMS
 * + 1 problems.
 *
 * Structure-aware (issue 16 §9: byte mutations never reached a number of
 * 1e300 in a field the verifier converts): half of the mutations parse the
 * input as JSON — for a DSSE envelope, its base64 payload too — and set one
 * number, chosen at random, to a hostile value (huge, negative, fractional,
 * just past 2^32 or 2^53), then write it back; the other half are
 * libFuzzer's own. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include <cjson/cJSON.h>

#include "core/util.h"
#include "report/matrix/matrix.h"
#include "trust/dsse.h"
#include "trust/verify_receipt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static const double hostile[] = {1e300, -1e300, -1, 0.5, -0.5, 4294967296.0, 4294967295.5, 9007199254740993.0,
                                 1e-300, 2147483648.0, -2147483649.0, 1e19, 18446744073709551616.0, 65, 10000};

static void numbers_of(cJSON *n, cJSON **out, size_t *k, size_t cap)
{
    for (; n; n = n->next) {
        if (cJSON_IsNumber(n) && *k < cap)
            out[(*k)++] = n;
        if (n->child)
            numbers_of(n->child, out, k, cap);
    }
}

/* Sets one number of doc to a hostile value; 1 if there was one. */
static int mutate_number(cJSON *doc, unsigned *rng)
{
    static cJSON *nums[1 << 16];
    size_t k = 0;
    numbers_of(doc, nums, &k, sizeof nums / sizeof nums[0]);
    if (!k)
        return 0;
    cJSON *n = nums[rand_r(rng) % k];
    cJSON_SetNumberHelper(n, hostile[(unsigned)rand_r(rng) % (sizeof hostile / sizeof hostile[0])]);
    return 1;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    unsigned rng = seed;
    if (size < 2 || data[0] == 1 || rand_r(&rng) % 2)
        return LLVMFuzzerMutate(data, size, max_size);
    cJSON *doc = cJSON_ParseWithLength((const char *)data + 1, size - 1);
    if (!doc)
        return LLVMFuzzerMutate(data, size, max_size);
    int done = 0;
    cJSON *pl = cJSON_GetObjectItemCaseSensitive(doc, "payload");
    if (cJSON_IsString(pl)) { /* an envelope: the Statement inside */
        unsigned char *raw;
        size_t rl;
        if (b64_decode(pl->valuestring, strlen(pl->valuestring), &raw, &rl) == 0) {
            cJSON *st = cJSON_ParseWithLength((const char *)raw, rl);
            if (st && mutate_number(st, &rng)) {
                char *t = cJSON_PrintUnformatted(st);
                sbuf b;
                sbuf_init(&b);
                b64_encode(&b, t, strlen(t));
                cJSON_SetValuestring(pl, b.p);
                sbuf_free(&b);
                free(t);
                done = 1;
            }
            cJSON_Delete(st);
            free(raw);
        }
    } else
        done = mutate_number(doc, &rng);
    char *t = done ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    size_t n = t ? strlen(t) : 0;
    if (!t || n + 1 > max_size) {
        free(t);
        return LLVMFuzzerMutate(data, size, max_size);
    }
    memcpy(data + 1, t, n);
    free(t);
    return n + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *path;
    static int devnull = -1, saved_stderr = -1;
    if (!path) {
        char err[256];
        char *d = make_temp_dir("fuzz-matrix", err, sizeof err);
        if (!d)
            abort();
        path = xasprintf("%s/input.json", d);
        free(d);
        /* FUZZ_VERBOSE=1 keeps stderr, to read the report of a saved crash input */
        if (!getenv("FUZZ_VERBOSE")) {
            devnull = open("/dev/null", O_WRONLY);
            saved_stderr = dup(2);
        }
        /* the matrix's gate: unsigned receipts accepted, so the checks past
         * the signature are what is fuzzed (no ssh-keygen per input) */
        mx_trust_config(NULL, NULL, 1);
    }
    if (size < 1 || data[0] > 2)
        return 0;
    char err[256];
    if (write_file(path, (const char *)data + 1, size - 1, err, sizeof err) != 0)
        abort();
    /* the refusals are expected and many: silent while the readers run, so
     * libFuzzer's own reports still reach stderr */
    fflush(stderr);
    if (devnull >= 0)
        dup2(devnull, 2);
    if (data[0] == 0) {
        mreceipt r;
        if (mx_receipt_load(path, &r) == 0) {
            if (r.n_ck > MAX_CK || !r.host)
                abort();
            for (size_t k = 0; k < r.n_ck; k++)
                if (r.ck_sha[k][0] && strlen(r.ck_sha[k]) != 64)
                    abort();
        }
        mx_receipt_free(&r);
    } else if (data[0] == 1) {
        mhost *hs = NULL;
        size_t n = 0;
        if (mx_hosts_load(path, &hs, &n) == 0) {
            for (size_t i = 0; i < n; i++)
                if (!(hs[i].slowdown >= 1 && hs[i].slowdown <= 1000))
                    abort();
            mx_hosts_free(hs, n);
        }
    } else {
        verify_opts vo = {NULL, NULL, 1, NULL};
        verify_info info;
        problems pr;
        problems_init(&pr);
        cJSON *r = verify_receipt_file(path, &vo, &info, &pr);
        if (pr.n > VERIFY_MAX_PROBLEMS + 1 || (r && pr.n))
            abort();
        cJSON_Delete(r);
        verify_info_free(&info);
        problems_free(&pr);
    }
    fflush(stderr);
    if (saved_stderr >= 0)
        dup2(saved_stderr, 2);
    return 0;
}
