#!/bin/sh
# Usage: ci/check-vectors.sh MAKE_VECTORS DIR_1_0_0 [DIR_1_1_0]
# Regenerates the vector sets (one generator run writes both) into a
# temporary directory and requires each to be byte-identical to the committed
# one (receipts/ aside: receipts are published, not generated). Also checks
# that every file the two sets share is byte-identical between them (v1.1.0
# carries v1.0.0's files unchanged, spec §12.4). Exit 0 only if all match.
set -eu
gen=$1
committed=$2
committed11=${3:-}

[ -x "$gen" ] || { echo "check-vectors: no executable $gen" >&2; exit 2; }
for d in "$committed" $committed11; do
    [ -d "$d" ] || { echo "check-vectors: FAIL: no committed vector set at $d (run 'make vectors')" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -n "$committed11" ]; then
    "$gen" "$work/v" "$work/v11" || { echo "check-vectors: FAIL: the generator failed" >&2; exit 1; }
else
    "$gen" "$work/v" || { echo "check-vectors: FAIL: the generator failed" >&2; exit 1; }
fi

status=0
check() { # committed regenerated
    if diff -r -q -x receipts "$1" "$2" > "$work/diff"; then
        echo "check-vectors: PASS: $(find "$2" -type f | wc -l) regenerated files are byte-identical to $1"
    else
        echo "check-vectors: FAIL: regenerated vectors differ from $1:" >&2
        sed -e "s|$work/v11|<regenerated>|g" -e "s|$work/v|<regenerated>|g" "$work/diff" >&2
        echo "check-vectors: the reference moved a vector: bump the vector version (spec §12) or fix the change" >&2
        status=1
    fi
}
check "$committed" "$work/v"
if [ -n "$committed11" ]; then
    check "$committed11" "$work/v11"
    shared=0
    for f in $(cd "$committed" && find ops train -type f | sort); do
        shared=$((shared + 1))
        cmp -s "$committed/$f" "$committed11/$f" || {
            echo "check-vectors: FAIL: $f differs between $committed and $committed11" >&2; status=1; }
    done
    [ $status -ne 0 ] || echo "check-vectors: PASS: the $shared files of $committed are byte-identical in $committed11"
fi
exit $status
