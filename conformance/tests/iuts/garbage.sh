#!/bin/sh
# Prints garbage: the trace is not a trace after step 2; ops answers nonsense.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello garbage ;;
train)
    shift; parse_train "$@"; ref_train "$@" || exit 1
    head -n 4 "$TRACE" > "$TRACE.tmp"
    printf 'all good, trust me \001\377\n' >> "$TRACE.tmp"
    mv "$TRACE.tmp" "$TRACE" ;;
ops) while read -r line; do echo "this is not a response"; done ;;
*) unsupported ;;
esac
