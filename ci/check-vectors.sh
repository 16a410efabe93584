#!/bin/sh
# Usage: ci/check-vectors.sh MAKE_VECTORS VECTORS_DIR
# Regenerates the vector set into a temporary directory and requires it to be
# byte-identical to the committed VECTORS_DIR (receipts/ aside: receipts are
# published, not generated). Exit 0 only if every file matches.
set -eu
gen=$1
committed=$2

[ -x "$gen" ] || { echo "check-vectors: no executable $gen" >&2; exit 2; }
[ -d "$committed" ] || { echo "check-vectors: FAIL: no committed vector set at $committed (run 'make vectors')" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$gen" "$work/v" || { echo "check-vectors: FAIL: the generator failed" >&2; exit 1; }

if diff -r -q -x receipts "$committed" "$work/v" > "$work/diff"; then
    echo "check-vectors: PASS: $(find "$work/v" -type f | wc -l) regenerated files are byte-identical to $committed"
    exit 0
fi
echo "check-vectors: FAIL: regenerated vectors differ from $committed:" >&2
sed -e "s|$work/v|<regenerated>|g" "$work/diff" >&2
echo "check-vectors: the reference moved a vector: bump the vector version (spec §12) or fix the change" >&2
exit 1
