#!/bin/sh
# Trains correctly but reports a wrong digest for step 2 in its trace: the
# runner must hash the checkpoint itself and flag the disagreement.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello liar ;;
train)
    shift; parse_train "$@"; ref_train "$@" || exit 1
    awk '/^step=2 /{ sub(/digest=[0-9a-f]*/, "digest=0000000000000000000000000000000000000000000000000000000000000000") } { print }' \
        "$TRACE" > "$TRACE.tmp" && mv "$TRACE.tmp" "$TRACE" ;;
*) unsupported ;;
esac
