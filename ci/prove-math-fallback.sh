#!/bin/sh
# Usage: ci/prove-math-fallback.sh PROVE_MATH ISOTRAIN
# Negative controls of make prove-math. First the SIMD sets' exact fallback: with
# --no-fallback, lanes near a binary32 rounding boundary keep their binary64
# fast-path result, and on the inputs below that result is wrong, so the
# proof must report mismatches for every SIMD kernel set. The inputs are the
# ones the full --no-fallback run found (exp: 2, log: 5 of 2^32; listed in
# reference/tools/prove_math.md): without the fallback the sets are not
# correctly rounded.
set -u
prove=${1:?usage: ci/prove-math-fallback.sh PROVE_MATH ISOTRAIN}
iut=${2:?isotrain}
sets=$("$iut" info | sed -n 's/^kernels_available=//p' | tr ',' '\n' | grep -v '^portable$' | paste -sd, -)
fail=0

# control WHAT WHY SETS PATTERN FN LO HI DEFECT: the proof of FN over [LO, HI]
# with the DEFECT option must exit 1 with a PATTERN line for each set of
# SETS (it sees the defect in every set), and without it must pass there.
control() {
    what=$1 why=$2 csets=$3 pat=$4 cfn=$5 clo=$6 chi=$7 defect=$8
    out=$("$prove" "$cfn" "$defect" --kernels "$csets" --range "$clo" "$chi" 2>&1)
    rc=$?
    n=$(printf '%s\n' "$out" | grep -c "$pat")
    want=$(printf '%s\n' "$csets" | tr ',' '\n' | grep -c .)
    if [ $rc -eq 1 ] && [ "$n" -eq "$want" ]; then
        echo "prove-math-fallback: $what: wrong in all $want sets ($csets): $why"
    else
        echo "prove-math-fallback: $what: expected a mismatch in each of $csets, got exit $rc:" >&2
        printf '%s\n' "$out" >&2
        fail=1
    fi
    if ! "$prove" "$cfn" --kernels "$csets" --range "$clo" "$chi" > /dev/null 2>&1; then
        echo "prove-math-fallback: $cfn on the same inputs without $defect: FAILED" >&2
        fail=1
    fi
}

cases="exp bf81eadf,exp 4283070f,log 41178feb,log 3c413d3a"
if [ -z "$sets" ]; then
    echo "prove-math-fallback: no SIMD kernel set on this CPU: no fallback to control"
    cases=
fi
IFS_SAVED=$IFS
IFS=,
for case in $cases; do
    IFS=$IFS_SAVED
    set -- $case
    fn=$1 x=$2
    # the 256 inputs around x, so x sits in a full vector block, not a scalar tail
    lo=$(printf '%08x' $(( 0x$x & ~0xff ))) hi=$(printf '%08x' $(( (0x$x & ~0xff) + 0xff )))
    control "$fn(0x$x) without the fallback" "the fallback is needed" "$sets" \
        ': [1-9][0-9]* mismatches;.*kept their fast result' "$fn" "$lo" "$hi" --no-fallback
done
IFS=$IFS_SAVED
# The square root (spec §3.6): every set's, portable included, replaced by
# x * rsqrt(x) refined by one Newton step (the fast square root of graphics
# code): on 65,536 inputs around 0.5 the proof must find it wrong in every
# set, and the real one right.
all=$("$iut" info | sed -n 's/^kernels_available=//p')
control "sqrt as rsqrt + one Newton step" "the proof sees a non-IEEE square root" "$all" \
    ': [1-9][0-9]* mismatches;' sqrt 3f000000 3f00ffff --sqrt-rsqrt-newton
exit $fail
