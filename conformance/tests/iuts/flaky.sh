#!/bin/sh
# flaky.sh RUN VERB ARGS...: trains with the reference; on run 2 it flips the
# lowest bit of the first byte of step 9's checkpoint, as a non-deterministic
# trainer would (for `repeat`).
. "$(dirname "$0")/common.sh"
run=$1
shift
case $1 in
hello) hello flaky ;;
train)
    shift; parse_train "$@"; ref_train "$@" || exit 1
    if [ "$run" = 2 ]; then
        f="$CKDIR/step-000009.bin"
        byte=$(dd if="$f" bs=1 count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
        printf "$(printf '\\%03o' $(( byte ^ 1 )))" | dd of="$f" bs=1 count=1 conv=notrunc 2>/dev/null
    fi ;;
*) unsupported ;;
esac
