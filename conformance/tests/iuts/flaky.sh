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
        flip_bit0 "$CKDIR/step-000009.bin"
    fi ;;
*) unsupported ;;
esac
