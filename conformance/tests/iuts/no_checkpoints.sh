#!/bin/sh
# Trains and writes the trace, but no checkpoint files.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello no-checkpoints ;;
train) shift; parse_train "$@"; ref_train "$@" || exit 1; rm -f "$CKDIR"/step-*.bin ;;
*) unsupported ;;
esac
