#!/bin/sh
# Trains with the reference but damages the initial checkpoint (step 0): the
# lowest bit of its first byte, i.e. of embed[0][0].
. "$(dirname "$0")/common.sh"
case $1 in
train)
    shift; parse_train "$@"; ref_train "$@" || exit 1
    f="$CKDIR/step-000000.bin"
    byte=$(dd if="$f" bs=1 count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
    printf "$(printf '\\%03o' $(( byte ^ 1 )))" | dd of="$f" bs=1 count=1 conv=notrunc 2>/dev/null ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
