#!/bin/sh
# The mutation matrix (make mutants, make check-mutants): builds every mutant of
# spec/mutants/mutants.tsv into $OUT/<id>/ through mk/reference.mk and runs
# `isotrain-conform run --level all` on it, natively or under its emulator,
# $JOBS at a time; then writes the table with build/mutants/mutants_table.
#
#   sh ci/mutants.sh all TABLE     build and run every mutant, write TABLE
#   sh ci/mutants.sh one ID        build and run one mutant
#   sh ci/mutants.sh fresh-all     every op mutant against the fresh cases alone
#                                  (make check-mutants-fresh; reuses the builds)
#   sh ci/mutants.sh fresh ID      one of them
#
# Environment: MUTANTS_OUT (build/mutants), CONFORM (build/conform/isotrain-conform),
# MUTANT_JOBS (2), CC (cc), MAKE (make), MPIRUN_FLAGS (mk/mpi.mk's, for build mpi).
set -u
LIST=spec/mutants/mutants.tsv
OUT=${MUTANTS_OUT:-build/mutants}
CONFORM=${CONFORM:-build/conform/isotrain-conform}
JOBS=${MUTANT_JOBS:-2}
MAKE=${MAKE:-make}

now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f\n", a - b }'; }

# prepare ID: parses the mutant's row into variables (cc, flags, ldflags,
# patchfile, kernels, run, prefix, emu_opts, slow, set_opts, am, d).
prepare() {
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
    # the kernel flags) runs with a SIMD kernel set: avx2 where the CPU has it,
    # never "the best", so that the table (which op vector kills it first) is
    # the same on an AVX2 and an AVX-512 machine (the sets share simd_body.h
    # and gemm_body.h, where these defects are; CI found the table moving with
    # the CPU); the best set elsewhere. Every other mutant changes the
    # portable definition, so it runs with that set forced
    # (ISOTRAIN_KERNELS=portable), which is the code its defect is in.
    # What a patch is about is read from the lines it changes and its file
    # names, never its context lines: a refreshed patch whose context happens
    # to name another file would otherwise move to another set (kernel-fma
    # did, when mk/reference.mk's rule came to name gpt_body.h). A patch whose
    # changed lines name no file of its set says so with a marker
    # (MUTANT-ADDMOD113, MUTANT-GPTCHAR, MUTANT-WHOLE-RUN).
    changed=
    [ "$patchfile" = - ] || changed=$(grep '^[-+]' "spec/mutants/$patchfile")
    kernels=portable
    if [ "$patchfile" != - ] && printf '%s\n' "$changed" | grep -q 'reference/src/kernels/\|KERNEL_'; then
        kernels=auto
        grep -qw avx2 /proc/cpuinfo 2>/dev/null && kernels=avx2
    fi
    mk=mk/reference.mk bin=isotrain
    case $build in
    native) cc=${CC:-cc} ;;
    mpi) cc=${CC:-cc} mk=mk/mpi-build.mk bin=isotrain-mpi ;; # the data-parallel trainer (spec §15)
    aarch64) cc=aarch64-linux-gnu-gcc ;;
    i386) cc=i686-linux-gnu-gcc ;;
    s390x) cc=s390x-linux-gnu-gcc ;;
    *) echo "mutants.sh: $id: unknown build '$build'" >&2; return 2 ;;
    esac
    d=$OUT/$id
    emu= emu_opts= slow=1 wrap= level=all
    case $run in
    native) ;;
    native-fma)
        # the defect needs an FMA unit: this CPU's, or an emulated Haswell's
        if ! grep -qw fma /proc/cpuinfo; then run="qemu-x86_64 -cpu Haswell"; fi ;;
    esac
    case $run in
    native | native-fma) prefix= ;;
    mpirun-np*)
        # N ranks of the MPI trainer, with a TMPDIR of their own for Open MPI,
        # through the mutant's own isotrain-mpirun (mk/mpi-build.mk builds it
        # beside isotrain-mpi; mk/mpi.mk's MPI_IUT): rank 0 reads the runner's
        # pipe itself. Under a plain mpirun the requests went through Open
        # MPI's stdin forwarding, which crashes mpirun itself
        # (reference/mpi/stdin_direct.c, open-mpi/ompi#7483): that was the
        # SIGSEGV at a random op case of the ops sessions (1 of 8 to 3 of 6
        # runs), the runner's "killed by signal 11 (SIGSEGV)" being mpirun's
        # own death; the unmutated trainer met it alike (1 of 9 sessions
        # here), the mutant's ranks were never out of step (in ops only rank
        # 0 acts; the patch changes reduce_mpi.c, which ops never calls).
        # The train level only, for now: an MPI mutant's defect is in how a
        # step's sums pass between ranks.
        prefix="$d/isotrain-mpirun ${MPIRUN_FLAGS:---oversubscribe --bind-to none --mca btl self,vader} -np ${run#mpirun-np} "
        wrap="sh ci/mpi-private-tmp.sh" level=train ;;
    *)
        prefix="$run "
        emu=${run%% *}
        emu_opts="--emulator $emu --emulator-cpu ${run##* -cpu }"
        slow=20 ;;
    esac
    # A mutant of profile addmod113's rules (spec §13: its patch touches the
    # files only that profile uses, or rows.c, whose threads only addmod113's
    # runs use), or of the blocked product and the SIMD square root
    # (gemm_body.h, simd_body.h: only addmod113's long sums, K = 3,831 and
    # 11,493, span several blocks, and only AdamW takes square roots; mlp13k
    # cannot tell either) is run against vectors/v1.1.0 with the
    # train level on addmod113 for 2 steps: its op vectors are what kill it,
    # and 300 portable steps would cost minutes per mutant.
    set_opts="--vectors vectors/v1.0.0" am=0
    # Under an emulator mlp13k's 200 steps cost a minute or more (x87-excess:
    # 69 s of its 127 s under qemu-i386), and 20 steps show the same first
    # failures at a tenth of the cost, except for native-endian-s390x, whose
    # row is the mission's case: loss bits the same through all 200 steps
    # while every checkpoint differs; that needs the whole run.
    case $slow:$id in 1:* | *:native-endian-s390x) ;; *) set_opts="$set_opts --steps 20" ;; esac
    if [ "$patchfile" != - ] && printf '%s\n' "$changed" | grep -q 'reference/src/\(addmod113\|attention\|adamw\|sqrt\|rows\|kernels/gemm_body\|kernels/simd_body\)\|MUTANT-ADDMOD113'; then
        set_opts="--vectors vectors/v1.1.0 --profile addmod113 --steps 2"
        am=1
    fi
    # Likewise a mutant of profile gptchar's rules (spec 1.2.0, §14) against
    # vectors/v1.2.0 with gptchar trained for 3 steps.
    gc=0
    if [ "$patchfile" != - ] && printf '%s\n' "$changed" | grep -q 'reference/src/\(gptchar\|layernorm\|gelu\|causal_attention\|clip\|schedule\|residual\|kernels/gpt_body\)\|MUTANT-WHOLE-RUN\|MUTANT-GPTCHAR'; then
        set_opts="--vectors vectors/v1.2.0 --profile gptchar --steps 3"
        gc=1
        # a defect that reads the run's own length (its patch says
        # MUTANT-WHOLE-RUN) shows only against a run of another length: gptchar
        # in full (500 steps), where only the 53-step fresh-seed run sees it.
        # Its defect is in the run loop, not in an op's definition, so it runs
        # on the SIMD set (avx2 where the CPU has it, as the kernel mutants):
        # 500 portable steps cost ~170 s of make test's budget, avx2 ~10 s.
        if printf '%s\n' "$changed" | grep -q 'MUTANT-WHOLE-RUN'; then
            set_opts="--vectors vectors/v1.2.0 --profile gptchar"
            kernels=auto
            grep -qw avx2 /proc/cpuinfo 2>/dev/null && kernels=avx2
        fi
    fi
    # A mutant of the GPT family's rules (spec §16: a patch of
    # spec/mutants/family/, or one whose changed lines say MUTANT-RECIPE) is
    # run against the recipe set of spec/recipes/tiny.json (recipe_set below):
    # its shape is the one where every rounding of §16.3 matters and its 5
    # steps of a 10-step schedule show S, and its whole certification (ops,
    # the 5 steps, the fresh cases, the windows) costs seconds.
    rs=0
    case $patchfile in family/*) rs=1 ;; esac
    printf '%s\n' "$changed" | grep -q 'MUTANT-RECIPE' && rs=1
    if [ $rs = 1 ]; then
        set_opts="--vectors $RECIPE_SET"
        gc=0 am=0
    fi
}

# recipe_set: the recipe set the family's mutants run against, made by the
# unmutated runner's linked reference (isotrain-conform vectors --recipe)
# once per RECIPE_SET_KEY (the recipe, its corpus, the runner): made into a
# scratch directory and moved into place, so two mutants started at once
# never see half a set.
RECIPE=spec/recipes/tiny.json
RECIPE_SET=$OUT/recipe-set
recipe_set() {
    key=$(cat "$RECIPE" spec/recipes/shakespeare100k.txt "$CONFORM" | sha256sum | cut -d' ' -f1)
    [ "$(cat "$RECIPE_SET.key" 2>/dev/null)" = "$key" ] && [ -d "$RECIPE_SET" ] && return 0
    mkdir -p "$OUT"
    tmp=$(mktemp -d "$OUT/recipe-set.XXXXXX") || return 1
    "$CONFORM" vectors --recipe "$RECIPE" --out "$tmp/set" >"$tmp/make.log" 2>&1 ||
        { echo "mutants.sh: the recipe set of $RECIPE could not be made ($tmp/make.log)" >&2; return 1; }
    rm -rf "$RECIPE_SET" && mv "$tmp/set" "$RECIPE_SET" && echo "$key" >"$RECIPE_SET.key" && rm -rf "$tmp"
}

# What a build of the mutant is made from: its row, its compiler, its patch,
# every file of reference/, mk/reference.mk and mk/mpi-build.mk
# (ci/mutant-build.sh builds nothing else); a build is reused only while these are equal.
build_key() {
    { printf '%s\n' "$row" "$cc"
      [ "$patchfile" = - ] || cat "spec/mutants/$patchfile"
      { find reference -type f; echo mk/reference.mk; echo mk/mpi-build.mk; } | LC_ALL=C sort | xargs cat
    } | sha256sum | cut -d' ' -f1
}

# The builds go through ccache (MUTANT_CCACHE=0: not): the ~50 mutants are one
# tree that differs in one file or one flag each, so after the first build
# of a kind only the files a mutant changes are compiled (measured: 19 s for
# the first native build, 2 s for each next one). ccache hashes each
# translation unit's preprocessed text, its compiler and its flags, so a
# changed file, header or flag is always compiled. The cache lives in
# $OUT/ccache; the trees sit in different directories, and the hash leaves
# the directory out (no -g here) with paths taken relative to this checkout.
ccache_cc() {
    if [ "${MUTANT_CCACHE:-1}" = 1 ]; then
        command -v ccache >/dev/null 2>&1 || { echo "mutants.sh: ccache not found (sh ci/ensure-deps.sh ccache; or MUTANT_CCACHE=0)" >&2; return 1; }
        printf 'ccache %s' "$1"
    else
        printf '%s' "$1"
    fi
}
case $OUT in /*) cache_dir=$OUT/ccache ;; *) cache_dir=$(pwd)/$OUT/ccache ;; esac
export CCACHE_DIR="${CCACHE_DIR:-$cache_dir}" CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}

# patch_path: the prepared mutant's patch as ci/mutant-build.sh takes it (a
# path, since the family's patches are in spec/mutants/family/), or -
patch_path() { if [ "$patchfile" = - ]; then echo -; else echo "spec/mutants/$patchfile"; fi; }

# build: builds the prepared mutant into $d (never anything but $OUT/ID).
build() {
    case $d in "$OUT"/?*) ;; *) echo "mutants.sh: refusing to build into '$d'" >&2; return 1 ;; esac
    rm -rf "$d"
    mkdir -p "$d"
    bcc=$(ccache_cc "$cc") || return 1
    if MUTANT_MK=$mk MAKE=$MAKE sh ci/mutant-build.sh "$d" "$(patch_path)" CC="$bcc" OPT=-O2 \
        EXTRA_CFLAGS="$flags" EXTRA_LDFLAGS="$ldflags" >"$d/build.log" 2>&1; then
        echo ok >"$d/build.status"
        build_key >"$d/build.key"
        return 0
    fi
    echo failed >"$d/build.status"
    return 1
}

one() {
    prepare "$1" || return $?
    t0=$(now)
    [ $rs = 0 ] || recipe_set || return 1
    if ! build; then
        echo "mutant $id: BUILD FAILED (see $d/build.log)"
        since "$t0" >"$d/seconds"
        return 0
    fi
    echo "$run" >"$d/ran-as"
    echo "$kernels" >"$d/kernels"
    # the argv form (--, no shell): the receipt binds the mutant's binary
    # (and its emulator), so an equivalent mutant can come out PASS. Two
    # threads for addmod113 (make conformance's default): the bits do not
    # depend on it, except in a mutant that splits sums across threads.
    # shellcheck disable=SC2086
    ISOTRAIN_THREADS=2 ISOTRAIN_KERNELS=$kernels $wrap "$CONFORM" run --level $level --slowdown $slow $emu_opts $set_opts \
        --receipt "$d/receipt.json" -- $prefix"$d/$bin" >"$d/run.log" 2>&1
    rc=$?
    echo "$rc" >"$d/run.status"
    since "$t0" >"$d/seconds"
    echo "mutant $id: runner exit $rc ($(cat "$d/seconds") s, $run, kernels=$kernels)"
}

# fresh ID: the fresh cases alone (run --fresh-only) against the mutant,
# built as `one` builds it (reused when ci/mutants.sh built it from the same
# files). A mutant that needs an emulator, or one of addmod113's rules (whose
# fresh-seed run costs a full-batch step per step), runs the fresh op cases
# only (--level ops); the others the fresh-seed mlp13k run too. Killed: a
# fresh case failed (the golden vectors never ran). One line per mutant.
fresh() {
    prepare "$1" || return $?
    t0=$(now) built=reused
    if [ ! -x "$d/isotrain" ] || [ "$(cat "$d/build.key" 2>/dev/null)" != "$(build_key)" ]; then
        build || { echo "fresh $id: BUILD FAILED (see $d/build.log)"; return 0; }
        built="built in $(since "$t0") s"
    fi
    t0=$(now)
    level=all vec="--vectors vectors/v1.0.0"
    if [ -n "$prefix" ] || [ $am = 1 ]; then level=ops; fi
    [ $am = 1 ] && vec="--vectors vectors/v1.1.0"
    [ $gc = 1 ] && vec="--vectors vectors/v1.2.0 --profile gptchar"
    if [ $rs = 1 ]; then
        recipe_set || return 1
        vec="--vectors $RECIPE_SET"
    fi
    # shellcheck disable=SC2086
    ISOTRAIN_KERNELS=$kernels "$CONFORM" run --fresh-only --level $level --slowdown $slow $emu_opts $vec \
        --receipt "$d/fresh-receipt.json" -- $prefix"$d/isotrain" >"$d/fresh.log" 2>&1
    rc=$?
    first=$(sed -n 's/^    \(FAIL\|ERROR\) \(fresh\/[^ :]*\).*/\2/p' "$d/fresh.log" | head -n 1)
    if [ $rc -eq 1 ] && grep -q '^level fresh: FAIL' "$d/fresh.log"; then
        echo "fresh $id: killed by ${first:-a fresh case} (run $(since "$t0") s, --level $level, $run; $built)"
    else
        echo "fresh $id: SURVIVED the fresh cases (exit $rc; $(tail -n 1 "$d/fresh.log" | cut -c1-100)); see $d/fresh.log"
    fi
}

# fresh_control SET EXIT LOG WHAT: the unmutated reference $ref's fresh
# cases of SET alone pass (the runner exits EXIT, level fresh PASS)
fresh_control() {
    "$CONFORM" run --fresh-only --level all --vectors "$1" -- "$ref" >"$OUT/$3.log" 2>&1
    crc=$?
    if [ $crc -eq "$2" ] && grep -q '^level fresh: PASS' "$OUT/$3.log"; then
        echo "check-mutants-fresh: control: the unmutated reference $ref passes $4 (not killed)"
        return 0
    fi
    echo "check-mutants-fresh: control FAILED: the unmutated reference $ref did not pass $4 alone (exit $crc; see $OUT/$3.log)" >&2
    return 1
}

# fresh-all: every op mutant of spec/mutants.md (those a golden op vector
# kills: the table's "first op vector" is not none) against the fresh cases
# alone. Exit 0 only if every one is killed.
fresh_all() {
    t0=$(now)
    ids=$(awk -F'|' '/^\| `/ { id = $2; gsub(/[ `]/, "", id); v = $8; gsub(/ /, "", v); if (v != "none" && v != "") print id }' \
        spec/mutants.md)
    [ -n "$ids" ] || { echo "mutants.sh: no op mutant in spec/mutants.md" >&2; return 2; }
    # and every mutant of the family's rules (no op vector kills one: the
    # recipe's own run and its fresh cases must), against the recipe set
    for r in $(awk -F'\t' '!/^#/ && NF { print $1 }' "$LIST"); do
        prepare "$r" && [ $rs = 1 ] && ids="$ids $r"
    done
    recipe_set || return 2
    mkdir -p "$OUT"
    printf '%s\n' $ids | xargs -P "$JOBS" -n 1 sh "$0" fresh >"$OUT/fresh.txt"
    sort "$OUT/fresh.txt"
    n=$(printf '%s\n' $ids | wc -l)
    killed=$(grep -c ': killed by ' "$OUT/fresh.txt")
    # The controls: the kill criterion must not fire on the unmutated
    # reference (its fresh level passes), or every "killed" above means
    # nothing; against v1.2.0 and against the recipe set (corpus-digest too).
    ref=${REF_CLI:-build/native/isotrain}
    fresh_control vectors/v1.2.0 3 fresh-control "the same fresh cases" || return 1
    fresh_control "$RECIPE_SET" 3 fresh-control-recipe "the fresh cases of the recipe set of $RECIPE" || return 1
    echo "check-mutants-fresh: $killed of $n op and recipe mutants killed by the fresh cases alone ($(since "$t0") s wall clock, $JOBS jobs; load average $(cut -d' ' -f1-3 /proc/loadavg))"
    [ "$killed" -eq "$n" ]
}

all() {
    table=$1
    mkdir -p "$OUT"
    t0=$(now)
    recipe_set || return 1
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
fresh) fresh "$2" ;;
fresh-all) fresh_all ;;
*) echo "usage: sh ci/mutants.sh all TABLE | one ID | fresh ID | fresh-all" >&2; exit 2 ;;
esac
