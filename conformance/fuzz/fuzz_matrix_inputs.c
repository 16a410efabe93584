/* fuzz_matrix_inputs — the host matrix's readers of untrusted JSON
 * (report/matrix/): a receipt (first byte 0) or a hosts file (first byte 1)
 * made of any bytes. Property: no crash and no undefined conversion
 * (UBSan aborts); a file is accepted or refused with a message, and an
 * accepted receipt holds at most MAX_CK checkpoints with valid digests. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "core/util.h"
#include "report/matrix/matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    }
    if (size < 1 || data[0] > 1)
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
    } else {
        mhost *hs = NULL;
        size_t n = 0;
        if (mx_hosts_load(path, &hs, &n) == 0) {
            for (size_t i = 0; i < n; i++)
                if (!(hs[i].slowdown >= 1 && hs[i].slowdown <= 1000))
                    abort();
            mx_hosts_free(hs, n);
        }
    }
    fflush(stderr);
    if (saved_stderr >= 0)
        dup2(saved_stderr, 2);
    return 0;
}
