#!/bin/sh
# The flipped-bit mutant ($IT_MUTANT_FLIP) without an ops verb: the runner
# still locates step, tensor and element, and says why it cannot name an op.
. "$(dirname "$0")/common.sh"
case $1 in
ops) unsupported ;;
*) exec "$IT_MUTANT_FLIP" "$@" ;;
esac
