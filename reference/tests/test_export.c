/* export.c's writers on their own: the CRC-32 known answer, the .npy header
 * layout, and the safetensors header's offsets. ci/check-export.py reads
 * the files back with numpy and zipfile (make check-export). */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "testutil.h"

Test(export, crc32_known_answers)
{
    /* the CRC catalogue's check value for CRC-32/ISO-HDLC, and the empty input */
    cr_assert_eq(it_crc32((const unsigned char *)"123456789", 9), 0xcbf43926u);
    cr_assert_eq(it_crc32((const unsigned char *)"", 0), 0u);
}

Test(export, npy_header_is_padded_to_64_and_ends_the_dict_with_a_newline)
{
    static const unsigned char zeros[4 * 256 * 16];
    const it_tensor_info mat = {"embed", 0, 256, 16, IT_INIT_UNIFORM, 0, 0}, vec = {"b1", 0, 32, 1, IT_INIT_CONST, 0, 0};
    it_buf b = {0};
    cr_assert_eq(it_npy_write(&b, &mat, zeros), 0);
    cr_assert(memcmp(b.p, "\x93NUMPY\x01\x00", 8) == 0);
    size_t hlen = b.p[8] | (size_t)b.p[9] << 8;
    cr_assert_eq((10 + hlen) % 64, 0);
    cr_assert_eq(b.p[10 + hlen - 1], '\n');
    cr_assert_eq(b.len, 10 + hlen + sizeof zeros);
    cr_assert(strstr((const char *)b.p + 10, "'shape': (256, 16), }"));
    it_buf_free(&b);
    cr_assert_eq(it_npy_write(&b, &vec, zeros), 0);
    char head[128] = {0};
    memcpy(head, b.p + 10, 100);
    cr_assert(strstr(head, "'shape': (32,), }"), "a vector is 1-D: (32,): %s", head);
    it_buf_free(&b);
}

Test(export, safetensors_offsets_tile_the_data_in_checkpoint_order)
{
    static unsigned char ck[4 * IT_MLP13K_NPARAMS];
    for (size_t i = 0; i < sizeof ck; i++)
        ck[i] = (unsigned char)(i * 7);
    it_buf b = {0};
    cr_assert_eq(it_safetensors_write(&b, it_mlp13k_tensors, 5, ck, "mlp13k", "00"), 0);
    uint64_t h = 0;
    for (int i = 7; i >= 0; i--)
        h = h << 8 | b.p[i];
    cr_assert_eq((8 + h) % 8, 0);
    cr_assert_eq(b.len, 8 + h + sizeof ck, "header %llu + data must be the whole file", (unsigned long long)h);
    cr_assert(memcmp(b.p + 8 + h, ck, sizeof ck) == 0, "data is the checkpoint bytes unchanged");
    char *json = calloc(1, (size_t)h + 1);
    memcpy(json, b.p + 8, (size_t)h);
    cr_assert(strstr(json, "\"w2\":{\"dtype\":\"F32\",\"shape\":[256,32],\"data_offsets\":[18560,51328]}"), "%s", json);
    cr_assert(strstr(json, "\"b2\":{\"dtype\":\"F32\",\"shape\":[256],\"data_offsets\":[51328,52352]}"), "%s", json);
    free(json);
    it_buf_free(&b);
}
