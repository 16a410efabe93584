#!/bin/sh
# Attack (scope): trains through the reference (fresh seeds too), has no ops
# verb. Run with --level all --filter mlp13k, it got PASS with "level
# reached: train" before issue 9; now it is PARTIAL.
. "$(dirname "$0")/common.sh"
case $1 in
hello) echo "protocol=1 name=no-ops version=0 spec=1.1.0 train_seed=1" ;;
train) exec "$IT_REF_CLI" "$@" ;;
*) unsupported ;;
esac
