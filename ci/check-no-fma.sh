#!/bin/sh
# Usage: ci/check-no-fma.sh check BUILD_DIR...      every library must be clean
#        ci/check-no-fma.sh expect-fma BUILD_DIR... every library must be caught
#
# spec §2.1 forbids fusing a multiply and an add. -ffp-contract=off asks the
# compiler not to; this gate checks what it produced: it disassembles
# BUILD_DIR/libisotrain.a (the library, with every kernel object of
# reference/src/kernels) with llvm-objdump, which reads every ISA of the
# matrix, and fails on any fused multiply-add instruction, or on a call to
# libm's fma/fmaf. `expect-fma` is the negative control: run on the FMA
# mutants, the gate must fire on each.
set -u
mode=${1:?usage: ci/check-no-fma.sh check|expect-fma BUILD_DIR...}
shift
OBJDUMP=${OBJDUMP:-llvm-objdump}
command -v "$OBJDUMP" > /dev/null || OBJDUMP=llvm-objdump-14

# Fused multiply-add mnemonics, one alternation per ISA family:
#   x86      vfmadd*/vfmsub*/vfnmadd*/vfnmsub* (FMA3), vfmaddps... (FMA4)
#   aarch64  fmla/fmls (vector, by element), fmadd/fmsub/fnmadd/fnmsub (scalar)
#   arm32    vfma/vfms/vfnma/vfnms (VMLA/VMLS round in between: not fused)
#   ppc      fmadd(s)/fmsub(s)/fnmadd(s)/fnmsub(s), xvmadd*/xvmsub*/xvnm*, xsmadd*...
#   s390x    maeb(r)/madb(r)/mseb(r)/msdb(r), vfma*/vfms*/vfnma*/vfnms*, wfma*/wfms*/wfnma*/wfnms*
#   riscv    fmadd.s/fmsub.s/fnmadd.s/fnmsub.s (and .d/.h), vfmacc/vfmadd/vfmsac/vfmsub/vfnm*
FMA_RE='(^|[[:space:]])(vfn?m(add|sub)[a-z0-9]*|fml[as]|fn?m(add|sub)[a-z.]*|vfn?m[as](\.[a-z0-9.]+)?|xv(n?)m(add|sub)[a-z]*|xs(n?)m(add|sub)[a-z]*|ma[ed]br?|ms[ed]br?|[vw]fn?m[as][a-z]*|vfn?m(acc|sac)[a-z.]*)([[:space:]]|$)'

scan() { # prints the offending lines of one build directory
    lib=$1/libisotrain.a
    [ -f "$lib" ] || { echo "check-no-fma: $lib: missing (build it first)" >&2; return 2; }
    "$OBJDUMP" -d --no-show-raw-insn "$lib" 2>/dev/null |
        awk -F'\t' 'NF >= 2 { print $0 }' | grep -E -- "$FMA_RE" | sed "s|^|$lib:|" | head -n 5
    nm -u "$lib" 2>/dev/null | grep -E '(^|[[:space:]])fmaf?$' | sed "s|^|$lib: calls|"
    "$OBJDUMP" -d --no-show-raw-insn "$lib" 2>/dev/null | grep -c . > /dev/null
}

fail=0
for dir in "$@"; do
    found=$(scan "$dir")
    rc=$?
    [ $rc -eq 2 ] && { fail=1; continue; }
    n=$(printf '%s' "$found" | grep -c .)
    case $mode in
    check)
        if [ "$n" -gt 0 ]; then
            echo "check-no-fma: $dir: FUSED MULTIPLY-ADD (spec 2.1):"
            printf '%s\n' "$found" | sed 's/^/    /'
            fail=1
        else
            echo "check-no-fma: $dir: no fused multiply-add in $("$OBJDUMP" -d "$dir/libisotrain.a" 2>/dev/null | grep -c '^ ') instructions"
        fi ;;
    expect-fma)
        if [ "$n" -gt 0 ]; then
            echo "check-no-fma: negative control $dir: caught: $(printf '%s\n' "$found" | head -n 1 | tr -s ' \t' ' ')"
        else
            echo "check-no-fma: negative control $dir: NOT CAUGHT (the gate cannot see this FMA)"
            fail=1
        fi ;;
    *) echo "usage: ci/check-no-fma.sh check|expect-fma BUILD_DIR..." >&2; exit 2 ;;
    esac
done
exit $fail
