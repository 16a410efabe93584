#!/bin/sh
# Usage: ci/check-vectors.sh MAKE_VECTORS DIR_1_0_0 [DIR_1_1_0 [DIR_1_2_0 [DIR_1_3_0 RECIPE_SET]]]
# Regenerates the vector sets (one generator run writes them all) into a
# temporary directory and requires each to be byte-identical to the committed
# one (receipts/ aside: receipts are published, not generated). Also checks
# that every file a set shares with the one before it is byte-identical
# between them (each set carries the previous one's files unchanged, spec
# §12.4). 1.3.0's own files are RECIPE_SET taken in whole (the example
# recipe's set; mk/vectors.mk checks it is the reference's bits first).
# Exit 0 only if all match.
set -eu
gen=$1
committed=$2
committed11=${3:-}
committed12=${4:-}
committed13=${5:-}
recipe_set=${6:-}
[ -z "$committed13" ] || [ -d "$recipe_set" ] || { echo "check-vectors: 1.3.0 needs the recipe set it holds" >&2; exit 2; }

[ -x "$gen" ] || { echo "check-vectors: no executable $gen" >&2; exit 2; }
for d in "$committed" $committed11 $committed12 $committed13; do
    [ -d "$d" ] || { echo "check-vectors: FAIL: no committed vector set at $d (run 'make vectors')" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -n "$committed13" ]; then
    # negative control: the generator takes the recipe set in only as its
    # manifest lists it; one flipped byte stops it before anything is written
    cp -R "$recipe_set" "$work/bad-recipe-set"
    bin=$(cd "$work/bad-recipe-set" && find train -name '*.bin' | sort | tail -n 1)
    byte=$(od -An -tu1 -j100 -N1 "$work/bad-recipe-set/$bin" | tr -d ' ')
    printf "\\$(printf %o $((byte ^ 1)))" | dd of="$work/bad-recipe-set/$bin" bs=1 seek=100 conv=notrunc 2>/dev/null
    cmp -s "$recipe_set/$bin" "$work/bad-recipe-set/$bin" && { echo "check-vectors: the control's flip did nothing" >&2; exit 2; }
    if "$gen" "$work/n" "$work/n11" "$work/n12" "$work/n13" "$work/bad-recipe-set" 2>"$work/bad.err"; then
        echo "check-vectors: FAIL: the generator took in a recipe set with a flipped byte in $bin" >&2; exit 1
    fi
    grep -q "$bin is not the file its manifest lists" "$work/bad.err" ||
        { cat "$work/bad.err" >&2; echo "check-vectors: FAIL: the tampered recipe set was refused, but not for $bin" >&2; exit 1; }
    [ ! -e "$work/n" ] || { echo "check-vectors: FAIL: the generator wrote a set before refusing the recipe set" >&2; exit 1; }
    echo "check-vectors: PASS: the negative control: a recipe set with one flipped byte ($bin) is refused: $(head -n 1 "$work/bad.err")"
    "$gen" "$work/v" "$work/v11" "$work/v12" "$work/v13" "$recipe_set" ||
        { echo "check-vectors: FAIL: the generator failed" >&2; exit 1; }
elif [ -n "$committed12" ]; then
    "$gen" "$work/v" "$work/v11" "$work/v12" || { echo "check-vectors: FAIL: the generator failed" >&2; exit 1; }
elif [ -n "$committed11" ]; then
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
        sed -e "s|$work/v13|<regenerated>|g" -e "s|$work/v12|<regenerated>|g" -e "s|$work/v11|<regenerated>|g" -e "s|$work/v|<regenerated>|g" "$work/diff" >&2
        echo "check-vectors: the reference moved a vector: bump the vector version (spec §12) or fix the change" >&2
        status=1
    fi
}
check "$committed" "$work/v"
shared() { # earlier later: every file of the earlier set is in the later one, byte for byte
    n=0
    for f in $(cd "$1" && find ops train windows -type f 2>/dev/null | sort); do # windows/ from 1.2.0
        n=$((n + 1))
        cmp -s "$1/$f" "$2/$f" || { echo "check-vectors: FAIL: $f differs between $1 and $2" >&2; status=1; }
    done
    [ $status -ne 0 ] || echo "check-vectors: PASS: the $n files of $1 are byte-identical in $2"
}
if [ -n "$committed11" ]; then
    check "$committed11" "$work/v11"
    shared "$committed" "$committed11"
fi
if [ -n "$committed12" ]; then
    check "$committed12" "$work/v12"
    shared "$committed11" "$committed12"
fi
if [ -n "$committed13" ]; then
    check "$committed13" "$work/v13"
    shared "$committed12" "$committed13"
fi
exit $status
