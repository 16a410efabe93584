#!/bin/sh
# Reports a NaN loss at step 3 and stops there, as spec §10 says a run must.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello nan-loss ;;
train)
    shift; parse_train "$@"; ref_train "$@" || exit 1
    head -n 4 "$TRACE" > "$TRACE.tmp"
    echo "step=3 loss=7fc00000 loss_dec=nan" >> "$TRACE.tmp"
    mv "$TRACE.tmp" "$TRACE"
    rm -f "$CKDIR/step-000003.bin"
    echo "failure=nonfinite-loss step=3" >&2
    exit 1 ;;
*) unsupported ;;
esac
