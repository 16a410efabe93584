#!/bin/sh
# Usage: adapters/pytorch/evidence/compile_probe.sh
# The single-op compile probe behind adapters/pytorch/README.md ("tanh backward"):
# compiles tanh_backward.c with GCC -O2 for x86-64, aarch64, s390x and ppc64le,
# at GCC's default (-ffp-contract=fast for GNU C, what Debian's libtorch was
# built with) and with -ffp-contract=off, and prints each function's
# floating-point instructions. Then checks the claim: at the default, 1 - y*y
# becomes one fused multiply-subtract on aarch64 (fmsub; fmls for NEON),
# s390x (maebr) and ppc64le (fmadds), and stays mul+sub on x86-64 (no FMA in
# its baseline ISA); with -ffp-contract=off no ISA has a fused instruction.
# Exit 0 when every line of that claim holds, 1 naming the line that does not.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$here/tanh_backward.c
# fused multiply-add mnemonics per ISA (float and double, scalar and vector)
fused='^(v?fn?m(add|sub)[0-9]*[sp][sd]|vfn?m(add|sub)[0-9]+[sp][sd]|fn?m(add|sub)|fml[as]|m[as][ed]br?|[vw]fn?m[as][sd]b|fn?m(add|sub)s?|x[sv]n?m(add|sub)[am][sd]p)$'
bad=0
for target in x86_64-linux-gnu aarch64-linux-gnu s390x-linux-gnu powerpc64le-linux-gnu; do
    cc=$target-gcc
    command -v "$cc" >/dev/null 2>&1 || { echo "compile_probe: $cc not found (Debian package gcc-$target)"; bad=1; continue; }
    for contract in default off; do
        flags="-O2"
        [ $contract = off ] && flags="-O2 -ffp-contract=off"
        asm=$($cc $flags -S -o - "$src") || { echo "compile_probe: $cc $flags failed"; bad=1; continue; }
        # mnemonics of the instructions (not directives or labels), per function
        for fn in tanh_backward tanh_backward_neon; do
            body=$(printf '%s\n' "$asm" | awk -v fn="$fn" '
                $0 ~ "^" fn ":" { on = 1; next }
                on && /^\t\.(size|cfi_endproc)/ { on = 0 }
                on { sub(/^[0-9]+:/, "") }
                on && /^\t[a-z]/ { sub(/^\t/, ""); split($0, w, /[ \t]/); print w[1] }')
            [ -n "$body" ] || continue
            n=$(printf '%s\n' "$body" | grep -Ec "$fused")
            echo "$(printf '%-12s %-26s %-18s' "${target%%-*}" "$fn" "contract=$contract") fused=$n: $(printf '%s\n' "$body" | tr '\n' ' ')"
            want=""
            case $target/$contract in
            x86_64*|*/off) want=0 ;;
            *) want=nonzero ;;
            esac
            holds=yes
            if [ "$want" = 0 ]; then
                [ "$n" -eq 0 ] || holds=no
            else
                [ "$n" -ne 0 ] || holds=no
            fi
            if [ $holds = no ]; then
                echo "compile_probe: CLAIM DOES NOT HOLD: $target $fn contract=$contract: $n fused instruction(s), expected $want"
                bad=1
            fi
        done
    done
done
[ $bad = 0 ] && echo "compile_probe: claim holds: 1 - y*y is fused on aarch64, s390x, ppc64le at GCC's default, never on x86-64, never with -ffp-contract=off ($(x86_64-linux-gnu-gcc -dumpfullversion 2>/dev/null || echo '?'))"
exit $bad
