# fuzz_matrix_inputs (mk/fuzz.mk): the receipt and hosts-file readers of the
# matrix. A receipt passes the trust gate (report/matrix/receipt_trust.c:
# DSSE envelope, in-toto Statement, verify) before it is read, so the
# harness links the whole runner but its main; selector 2 runs verify itself.
# Receipts of a full run are about 280 KB (max_len 512 KB).
fuzz_matrix_inputs_SRCS   := $(filter-out conformance/src/cli/main.c,$(wildcard conformance/src/*/*.c conformance/src/*/*/*.c))
fuzz_matrix_inputs_CFLAGS := -Iconformance/src -D_POSIX_C_SOURCE=200809L
fuzz_matrix_inputs_LIBS   := -lcjson -lm
fuzz_matrix_inputs_ARGS   := -max_len=524288 -timeout=30
