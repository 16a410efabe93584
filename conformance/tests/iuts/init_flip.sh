#!/bin/sh
# Trains with the reference but damages the initial checkpoint (step 0): the
# lowest bit of its first byte, i.e. of embed[0][0].
. "$(dirname "$0")/common.sh"
case $1 in
train)
    shift; parse_train "$@"; ref_train "$@" || exit 1
    flip_bit0 "$CKDIR/step-000000.bin" ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
