#!/bin/sh
# Usage: ci/prove-math-share.sh PROVE_MATH ISOTRAIN
# The per-commit share of make prove-math (README.md "Checks, tiers and their
# cost"): exp, log and sqrt of every kernel set this CPU runs, each input
# decided once against MPFR, on the ranges below (24 ranges of 2^22 inputs,
# 1/43 of the 2^32), then the negative controls of ci/prove-math-fallback.sh.
# The whole 2^32 is the scheduled tier's (make prove-math); per commit, the
# 2^32 sweep digests of the portable exp and log are regenerated once, by
# check-vectors, and compared with the committed ones, which the full proof
# showed correctly rounded. The ranges are where a defect of these functions
# shows first: the ends of each function's domain (subnormals, overflow and
# underflow of exp, the largest finite inputs, infinities and NaNs), the
# neighbourhood of 1 (exp(x) ~ 1 + x, log(x) ~ x - 1), and the inputs the
# fast path alone rounds wrongly (reference/tools/prove_math.md).
set -u
prove=${1:?usage: ci/prove-math-share.sh PROVE_MATH ISOTRAIN}
iut=${2:?usage: ci/prove-math-share.sh PROVE_MATH ISOTRAIN}
[ -x "$prove" ] || { echo "prove-math-share: no executable $prove" >&2; exit 2; }

# first input of each range (hex bits); each covers 2^22 inputs from there
ranges="
00000000 positive subnormals and the smallest normals
00800000 the smallest normals
80000000 negative subnormals: log NaN, exp 1
33000000 tiny positive: exp(x) = 1 + x rounds near a tie
b3000000 tiny negative
3f400000 below 1: log near its zero
3f800000 1 and above: log(1) = 0, exp(1)
bf800000 -1: holds exp 0xbf81eadf, one of the two inputs the fast path alone rounds wrongly
42800000 exp up to 88.7 and overflow (0x42b17218): holds 0x4283070f
42c00000 exp overflowed
c2800000 exp underflowing into subnormals
c2c00000 exp at the subnormal end and 0 (0xc2cff1b5)
3c400000 log: holds 0x3c413d3a
41000000 log: holds 0x41178feb
4c400000 log: holds 0x4c5d65a5
65c00000 log: holds 0x65d890d3
6f000000 log: holds 0x6f31a8ec
7f400000 the largest finite inputs
7f800000 +inf and positive NaNs
ff800000 -inf and negative NaNs
3e800000 0.25..0.5: GELU and tanh arguments of training
40000000 2..4
c0000000 -2..-4
4b000000 2^23: every binary32 an integer
"
fail=0 n=0
t0=$(date +%s)
while read -r lo why; do
    [ -n "$lo" ] || continue
    hi=$(printf '%08x' $(( 0x$lo + 0x3fffff )))
    n=$((n + 1))
    if out=$("$prove" all --range "$lo" "$hi" 2>&1); then
        :
    else
        echo "prove-math-share: FAIL on $lo..$hi ($why):" >&2
        printf '%s\n' "$out" >&2
        fail=1
    fi
done <<EOF
$ranges
EOF
echo "prove-math-share: exp, log and sqrt of every kernel set on $n ranges of 2^22 inputs: $([ $fail = 0 ] && echo PASS || echo FAIL) ($(( $(date +%s) - t0 )) s)"
# negative control of the share: one result bit flipped inside a range must fail it
if "$prove" all --range 3f800000 3fbfffff --inject 3f8a0001 >/dev/null 2>&1; then
    echo "prove-math-share: FAIL: a flipped result bit (--inject 3f8a0001) went unseen" >&2
    fail=1
else
    echo "prove-math-share: a flipped result bit (--inject 3f8a0001) fails the range: the share can fail"
fi
sh "$(dirname "$0")/prove-math-fallback.sh" "$prove" "$iut" || fail=1
exit $fail
