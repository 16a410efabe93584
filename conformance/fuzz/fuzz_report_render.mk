# fuzz_report_render (mk/fuzz.mk): the report's sections on any JSON as an
# accepted receipt. Links the runner but its main (the sections use the
# matrix's judgement and the vector-set reader).
fuzz_report_render_SRCS   := $(filter-out conformance/src/cli/main.c,$(wildcard conformance/src/*/*.c conformance/src/*/*/*.c))
fuzz_report_render_CFLAGS := -Iconformance/src -D_POSIX_C_SOURCE=200809L
fuzz_report_render_LIBS   := -lcjson -lm
fuzz_report_render_ARGS   := -max_len=262144 -timeout=30
