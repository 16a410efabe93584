# fuzz_response (mk/fuzz.mk): ops_judge and what it calls, from the runner.
fuzz_response_SRCS   := conformance/src/protocol/ops_engine.c conformance/src/protocol/line_codec.c \
                        conformance/src/protocol/optable.c conformance/src/protocol/iut_process.c \
                        conformance/src/protocol/iut_keeper.c conformance/src/protocol/iut_target.c \
                        conformance/src/protocol/exe_format.c conformance/src/protocol/proc_seen.c \
                        conformance/src/protocol/proc_table.c \
                        conformance/src/protocol/proc_code.c conformance/src/protocol/iut_room.c \
                        conformance/src/core/util.c conformance/src/core/utf8.c \
                        conformance/src/core/ulp.c conformance/src/core/results.c conformance/src/host/hostinfo.c
fuzz_response_CFLAGS := -Iconformance/src -D_POSIX_C_SOURCE=200809L
fuzz_response_LIBS   := -lm
fuzz_response_ARGS   := -max_len=65536 -timeout=30
