# fuzz_matrix_inputs (mk/fuzz.mk): the receipt and hosts-file readers of the matrix.
fuzz_matrix_inputs_SRCS   := conformance/src/report/matrix/receipt_read.c conformance/src/report/matrix/hosts_file.c \
                             conformance/src/report/matrix/input.c conformance/src/core/util.c
fuzz_matrix_inputs_CFLAGS := -Iconformance/src -D_POSIX_C_SOURCE=200809L
fuzz_matrix_inputs_LIBS   := -lcjson -lm
fuzz_matrix_inputs_ARGS   := -max_len=262144 -timeout=30
