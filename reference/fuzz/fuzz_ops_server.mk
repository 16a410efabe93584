# fuzz_ops_server (mk/fuzz.mk): the ops server and its line parser, linked
# with the fuzz build of the reference library.
fuzz_ops_server_SRCS   := reference/iut/ops_server.c reference/iut/ops_gptchar.c reference/iut/wire.c
fuzz_ops_server_CFLAGS := -Ireference/iut
# Requests of a few KiB reach every op but mlp13k_loss_grad's full parameter
# vector (117 KiB, covered by reference/tests); -timeout catches a hang.
fuzz_ops_server_ARGS   := -max_len=16384 -timeout=30
