/* export: a checkpoint (spec §8.1: the profile's tensors in order, row-major,
 * little-endian binary32) as numpy .npy files, one .npz, or one safetensors
 * file, so other tools read it without knowing the spec. Each format is
 * written by hand from its published layout:
 *   .npy         numpy's NEP 1 format, version 1.0
 *   .npz         a ZIP archive (PKWARE APPNOTE 6.3) of .npy members, stored
 *   safetensors  u64 LE header length, JSON header, raw data (huggingface's
 *                safetensors README, "Format")
 * The tensor bytes are copied unchanged: the checkpoint is already
 * little-endian binary32, which is '<f4' and "F32" in both formats, so the
 * export is exact and needs no float conversion on any host. */
#ifndef IT_EXPORT_H
#define IT_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "isotrain.h"
#include "isotrain_profile.h"

typedef struct {
    unsigned char *p;
    size_t len, cap;
    int failed; /* an allocation failed; everything after it is dropped */
} it_buf;

void it_buf_free(it_buf *b);

/* CRC-32 of ZIP (ISO-HDLC, reflected 0xEDB88320); crc32("123456789") = 0xCBF43926. */
uint32_t it_crc32(const unsigned char *p, size_t n);

/* One tensor as a complete .npy file; bytes are 4*rows*cols LE binary32.
 * cols == 1 is a vector, shape (rows,). */
int it_npy_write(it_buf *out, const it_tensor_info *t, const unsigned char *bytes);

/* A profile's tensors from checkpoint bytes (all of them, in order). */
int it_npz_write(it_buf *out, const it_tensor_info *ts, size_t n, const unsigned char *ckpt);
int it_safetensors_write(it_buf *out, const it_tensor_info *ts, size_t n, const unsigned char *ckpt,
                         const char *profile, const char *ckpt_sha256_hex);

/* `isotrain export ...`; argv after the verb. Returns the CLI's exit code. */
int it_export_main(int argc, char **argv);

#endif
