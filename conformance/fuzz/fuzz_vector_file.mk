# fuzz_vector_file (mk/fuzz.mk): the manifest check and the vector loader.
fuzz_vector_file_SRCS   := conformance/src/vectorset/manifest.c conformance/src/vectorset/vectors_load.c \
                           conformance/src/protocol/line_codec.c conformance/src/protocol/optable.c \
                           conformance/src/core/json_checked.c conformance/src/core/json_strict.c \
                           conformance/src/core/problems.c conformance/src/core/util.c conformance/src/core/utf8.c
fuzz_vector_file_CFLAGS := -Iconformance/src -D_POSIX_C_SOURCE=200809L
fuzz_vector_file_LIBS   := -lcjson -lm
fuzz_vector_file_ARGS   := -max_len=262144 -timeout=30
