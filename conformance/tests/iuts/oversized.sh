#!/bin/sh
# Writes an oversized checkpoint for step 3 (four bytes too many).
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello oversized ;;
train)
    shift; parse_train "$@"; ref_train "$@" || exit 1
    printf 'XXXX' >> "$CKDIR/step-000003.bin" ;;
*) unsupported ;;
esac
