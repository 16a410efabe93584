#!/bin/sh
# The mutation matrix (make mutants, make check-mutants): builds every mutant of
# spec/mutants/mutants.tsv into $OUT/<id>/ through mk/reference.mk and runs
# `isotrain-conform run --level all` on it, natively or under its emulator,
# $JOBS at a time; then writes the table with build/mutants/mutants_table.
#
#   sh ci/mutants.sh all TABLE     build and run every mutant, write TABLE
#   sh ci/mutants.sh one ID        build and run one mutant
#
# Environment: MUTANTS_OUT (build/mutants), CONFORM (build/conform/isotrain-conform),
# MUTANT_JOBS (2), CC (cc), MAKE (make).
set -u
LIST=spec/mutants/mutants.tsv
OUT=${MUTANTS_OUT:-build/mutants}
CONFORM=${CONFORM:-build/conform/isotrain-conform}
JOBS=${MUTANT_JOBS:-2}
MAKE=${MAKE:-make}

now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f\n", a - b }'; }

one() {
    id=$1
    row=$(awk -F'\t' -v id="$id" '!/^#/ && $1 == id' "$LIST")
    [ -n "$row" ] || { echo "mutants.sh: no mutant '$id' in $LIST" >&2; return 2; }
    tab=$(printf '\t')
    IFS=$tab read -r _id defect spec build cflags ldflags run expected evidence <<EOF
$row
EOF
    [ "$cflags" = - ] && cflags=
    [ "$ldflags" = - ] && ldflags=
    # patch:FILE in cflags: the variant is spec/mutants/FILE, applied to a copy
    # of the tree (ci/mutant-build.sh); the other words are compiler flags.
    patchfile=- flags=
    for w in $cflags; do
        case $w in
        patch:*) patchfile=${w#patch:} ;;
        *) flags="$flags${flags:+ }$w" ;;
        esac
    done
    # A mutant of the SIMD kernels (its patch touches reference/src/kernels or
    # the kernel flags) runs with the best kernel set this CPU has; every other
    # mutant changes the portable definition, so it runs with that set forced
    # (ISOTRAIN_KERNELS=portable), which is the code its defect is in.
    kernels=portable
    if [ "$patchfile" != - ] && grep -q 'reference/src/kernels/\|KERNEL_' "spec/mutants/$patchfile"; then
        kernels=auto
    fi
    case $build in
    native) cc=${CC:-cc} ;;
    aarch64) cc=aarch64-linux-gnu-gcc ;;
    i386) cc=i686-linux-gnu-gcc ;;
    s390x) cc=s390x-linux-gnu-gcc ;;
    *) echo "mutants.sh: $id: unknown build '$build'" >&2; return 2 ;;
    esac
    d=$OUT/$id
    rm -rf "$d"
    mkdir -p "$d"
    t0=$(now)
    if MAKE=$MAKE sh ci/mutant-build.sh "$d" "$patchfile" CC="$cc" OPT=-O2 \
        EXTRA_CFLAGS="$flags" EXTRA_LDFLAGS="$ldflags" >"$d/build.log" 2>&1; then
        echo ok >"$d/build.status"
    else
        echo failed >"$d/build.status"
        echo "mutant $id: BUILD FAILED (see $d/build.log)"
        since "$t0" >"$d/seconds"
        return 0
    fi
    emu= emu_opts= slow=1
    case $run in
    native) ;;
    native-fma)
        # the defect needs an FMA unit: this CPU's, or an emulated Haswell's
        if ! grep -qw fma /proc/cpuinfo; then run="qemu-x86_64 -cpu Haswell"; fi ;;
    esac
    case $run in
    native | native-fma) prefix= ;;
    *)
        prefix="$run "
        emu=${run%% *}
        emu_opts="--emulator $emu --emulator-cpu ${run##* -cpu }"
        slow=20 ;;
    esac
    # A mutant of profile addmod113's rules (spec §13: its patch touches the
    # files only that profile uses) is run against vectors/v1.1.0 with the
    # train level on addmod113 for 2 steps: its op vectors are what kill it,
    # and 300 portable steps would cost minutes per mutant.
    set_opts=
    if [ "$patchfile" != - ] && grep -q 'reference/src/\(addmod113\|attention\|adamw\|sqrt\)' "spec/mutants/$patchfile"; then
        set_opts="--vectors vectors/v1.1.0 --profile addmod113 --steps 2"
    fi
    echo "$run" >"$d/ran-as"
    echo "$kernels" >"$d/kernels"
    # shellcheck disable=SC2086
    ISOTRAIN_KERNELS=$kernels "$CONFORM" run --iut "$prefix$d/isotrain" --level all --slowdown $slow $emu_opts $set_opts \
        --receipt "$d/receipt.json" >"$d/run.log" 2>&1
    rc=$?
    echo "$rc" >"$d/run.status"
    since "$t0" >"$d/seconds"
    echo "mutant $id: runner exit $rc ($(cat "$d/seconds") s, $run, kernels=$kernels)"
}

all() {
    table=$1
    mkdir -p "$OUT"
    t0=$(now)
    awk -F'\t' '!/^#/ && NF { print $1 }' "$LIST" | xargs -P "$JOBS" -n 1 sh "$0" one
    "$OUT/mutants_table" "$LIST" "$OUT" >"$table.tmp"
    rc=$?
    total=$(since "$t0")
    printf '\nmake mutants: %s s wall clock on %s cores (%s jobs); load average at the end: %s\n' \
        "$total" "$(nproc)" "$JOBS" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$table.tmp"
    mv "$table.tmp" "$table"
    cat "$table"
    [ $rc -eq 0 ] || echo "make mutants: a mutant did not come out as spec/mutants/mutants.tsv expects (see above)" >&2
    return $rc
}

case ${1:-} in
one) one "$2" ;;
all) all "${2:-spec/mutants.md}" ;;
*) echo "usage: sh ci/mutants.sh all TABLE | one ID" >&2; exit 2 ;;
esac
