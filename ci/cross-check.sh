#!/bin/sh
# Usage: ci/cross-check.sh 'NATIVE CMD' 'OTHER CMD'
# Trains mlp13k with both commands and compares every trace line (loss bits
# and parameter digest at every step). Exit 0 only if all are identical.
set -eu
a=$1
b=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086 # the commands are word-split on purpose
$a train --profile mlp13k --trace "$work/a" || { echo "cross-check: FAIL: '$a' exited non-zero" >&2; exit 1; }
# shellcheck disable=SC2086
$b train --profile mlp13k --trace "$work/b" || { echo "cross-check: FAIL: '$b' exited non-zero" >&2; exit 1; }
if cmp -s "$work/a" "$work/b"; then
    echo "cross-check: '$a' and '$b' agree on all $(wc -l < "$work/a") trace lines"
    echo "  step-200 digest: $(awk '/^step=200 /{ sub(/.*digest=/, ""); print }' "$work/a")"
    exit 0
fi
echo "cross-check: FAIL: traces differ" >&2
diff "$work/a" "$work/b" | head -5 >&2
exit 1
