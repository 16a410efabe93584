# fuzz_response (mk/fuzz.mk): ops_judge and what it calls, from the runner.
# Links the runner's whole object set but its main, as fuzz_report_render
# does: a hand-kept list of what ops_judge reaches broke the build whenever
# a runner file moved (protocol/proc_table.c, the clean-clone run of 945c5e2).
fuzz_response_SRCS   := $(filter-out conformance/src/cli/main.c,$(wildcard conformance/src/*/*.c conformance/src/*/*/*.c))
fuzz_response_CFLAGS := -Iconformance/src -D_POSIX_C_SOURCE=200809L
fuzz_response_LIBS   := -lcjson -lm
fuzz_response_ARGS   := -max_len=65536 -timeout=30
