#!/bin/sh
# Writes a truncated checkpoint for step 3.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello truncated ;;
train)
    shift; parse_train "$@"; ref_train "$@" || exit 1
    head -c 1000 "$CKDIR/step-000003.bin" > "$CKDIR/t" && mv "$CKDIR/t" "$CKDIR/step-000003.bin" ;;
*) unsupported ;;
esac
