# fuzz_html_writer (mk/fuzz.mk): the report's HTML writer, the only code that
# writes the page's bytes (conformance/src/report/html/html_writer.c).
fuzz_html_writer_SRCS   := conformance/src/report/html/html_writer.c conformance/src/core/util.c conformance/src/core/utf8.c
fuzz_html_writer_CFLAGS := -Iconformance/src -D_POSIX_C_SOURCE=200809L
fuzz_html_writer_LIBS   := -lcjson -lm
fuzz_html_writer_ARGS   := -max_len=65536 -timeout=30
