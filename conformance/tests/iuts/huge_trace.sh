#!/bin/sh
# Writes a trace that never ends: the runner kills it at the 1 MiB cap (P8).
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello huge-trace ;;
train)
    shift; parse_train "$@"
    { echo "# isotrain-trace v1 profile=mlp13k steps=$STEPS"; yes "step=0"; } > "$TRACE" ;;
*) unsupported ;;
esac
