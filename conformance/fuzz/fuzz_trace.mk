# fuzz_trace (mk/fuzz.mk): the trace parser of the runner.
fuzz_trace_SRCS   := conformance/src/protocol/trace.c conformance/src/protocol/line_codec.c conformance/src/core/util.c \
                     conformance/src/core/utf8.c
fuzz_trace_CFLAGS := -Iconformance/src -D_POSIX_C_SOURCE=200809L
fuzz_trace_ARGS   := -max_len=65536 -timeout=30
