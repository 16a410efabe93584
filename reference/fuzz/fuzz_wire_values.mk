# fuzz_wire_values (mk/fuzz.mk): the P4 parsers and formatters of wire.c.
fuzz_wire_values_SRCS   := reference/iut/wire.c
fuzz_wire_values_CFLAGS := -Ireference/iut
fuzz_wire_values_ARGS   := -max_len=4096 -timeout=10
