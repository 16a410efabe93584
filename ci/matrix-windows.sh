#!/bin/sh
# Usage: ci/matrix-windows.sh [--gptchar-windows | --gptchar-full | --recipe] CONFORM HOSTS_FILE OUT_DIR [JOBS]
#
# The windows matrix (issue 20; spec §8.4, vectors/FORMAT.md §6): every host
# of the hosts file runs the runner once against vectors/v1.2.0 with
# --windows, so besides every op vector and a training prefix it is resumed
# from the golden state at each window start the set ships (v1.2.0:
# addmod113 0-1, 150-151, 299-300; gptchar 0-3, 250-253, 497-500) and every
# step of each window is compared with the golden trace: an emulated host
# certifies the start, the middle and the end of each long run, not only
# its first steps. Since issue 27 those golden windows certify nothing
# (their end states ship): what certifies is the fresh windows every
# --windows run also gets (conformance/src/fresh/fresh_windows.c), three per
# profile, mlp13k included, from states the runner's linked reference makes
# under a seed drawn from the run seed (natively, about 100 s of the runner's
# time per host on a loaded 2-core machine, most of it addmod113's starts;
# under emulation the IUT trains 3 more addmod113 steps, 9 gptchar and 9
# mlp13k); `matrix` calls a receipt PASS (windows) only when every profile
# is covered by them.
#   - unemulated hosts (x86_64-native): no --steps, the full runs of all
#     three profiles (mlp13k 200, addmod113 300, gptchar 500) and the windows;
#   - emulated hosts (QEMU, Wine): --steps N with N = "prefix_steps" of the
#     hosts file (default 0; it bounds the golden and fresh-seed runs,
#     never a window: level_windows.c runs every window whole), so the
#     receipt is PARTIAL by design (scope reason "--steps N"). 0, because
#     the windows 0-1 and 0-3 start from the initial state and certify the
#     steps a prefix would, and an addmod113 step costs minutes under QEMU;
#     the prefix then certifies step 0 and the fresh-seed runs their
#     initialization (their steps are certified on the unemulated host);
#   - an expected-fail host (a negative control) runs the ops level only:
#     its op vectors are what must catch it (a training failure would start
#     an op-level replay of a full-batch step, most of a case time-out under
#     QEMU's x87 emulation).
# The whole windows matrix costs about an hour here (an addmod113 window step
# is 2-9 minutes under QEMU: 6.4 GFLOP), so it is the scheduled tier's (make
# matrix-windows). Per commit, --gptchar-windows (make matrix-gptchar-windows,
# part of make test): the same with --profile gptchar: every host certifies
# gptchar's op vectors and its windows 0-3, 250-253 and 497-500 (a gptchar
# step is 0.3 GFLOP), the unemulated host gptchar's 500 steps whole.
# With --gptchar-full (make matrix-gptchar-full, the scheduled tier): every
# emulated host expected to pass runs profile gptchar whole (500 steps,
# --profile gptchar --windows, every op vector gptchar uses); hours under
# QEMU. GPTCHAR_FULL_STEPS=N (a plumbing check, never the certification)
# cuts it to N steps and the table says so.
# With --recipe (make recipe-matrix, issue 32 item 4): MATRIX_VECTORS is a
# recipe set (isotrain-conform vectors --recipe), run like the windows
# matrix: the family's op vectors of v1.2.0, the recipe's run in full on an
# unemulated host (verdict PASS (recipe sha256:..., windows)), a prefix and
# every window under emulation. MATRIX_IUT='CMD' adds one row more, an IUT
# of the caller's run on this machine (host MATRIX_IUT_NAME, default "iut":
# not in the hosts file, so `matrix` describes it by its receipt and
# expects it to pass), in full, in any mode.
# MATRIX_VECTORS=DIR runs another set the same way (vectors/v1.1.0, which
# has no windows: its emulated hosts certify every op vector and the
# prefix); MATRIX_SIGN_KEY=FILE signs every receipt once its run is over
# (isotrain-conform sign; `make publish-matrix SET=...` passes the project key).
#
# The table (ci/matrix_windows_table.py; stdout and OUT_DIR/MATRIX-windows.md,
# or MATRIX-gptchar-full.md) shows per host and profile: the full run or the prefix (steps certified:
# the step cases the receipt has PASS), and each window's case verdict from
# the receipt (✓ PASS, ✗ anything else, "missing" if the receipt lacks it),
# then the receipt's verdict. Every verdict is the runner's; the script only
# compares them with what the hosts file expects. Exit 0 only if every host
# is as expected: a "pass" host's receipt verifies, has no failed or errored
# case, every step it was asked for passed, every window of the vector set
# passed, and an unemulated host's verdict is PASS; the expected-fail host
# has a failure.
set -u
mode=windows
case ${1:-} in
--gptchar-full) mode=gptchar-full; shift ;;
--gptchar-windows) mode=gptchar-windows; shift ;;
--recipe) mode=recipe; shift ;;
esac
conform=${1:?usage: ci/matrix-windows.sh [--gptchar-windows | --gptchar-full | --recipe] CONFORM HOSTS_FILE OUT_DIR [JOBS]}
hosts=${2:?hosts file}
out=${3:?output directory}
jobs=${4:-2}
py=${PYTHON:-/usr/bin/python3}
tag=matrix-$mode
full_steps=${GPTCHAR_FULL_STEPS:-}
case $full_steps in
    '' | *[!0-9]*) [ -z "$full_steps" ] || { echo "$tag: GPTCHAR_FULL_STEPS must be a step count, not '$full_steps'" >&2; exit 2; } ;;
esac
CONFORM=$conform VECTORS=${MATRIX_VECTORS:-vectors/v1.2.0} OUT=$out MODE=$mode TAG=$tag
export CONFORM VECTORS OUT MODE TAG
[ "$mode" != recipe ] || [ -n "${MATRIX_VECTORS:-}" ] ||
    { echo "$tag: --recipe needs MATRIX_VECTORS=DIR, a recipe set (isotrain-conform vectors --recipe)" >&2; exit 2; }

mkdir -p "$out"
# the judging first, on planted receipts: each defect must be caught
table=$(dirname "$0")/matrix_windows_table.py
"$py" "$table" --self-test || exit 2
list=$("$conform" matrix --hosts "$hosts" --list) || exit 2
if [ -n "${MATRIX_HOSTS:-}" ]; then
    list=$(printf '%s\n' "$list" | awk -v keep=" $MATRIX_HOSTS " 'index(keep, " " $1 " ")')
fi
# host -> the --steps argument: "all" (the whole run: no --steps) or a
# count (never empty: read splits on tabs and would merge an empty field). windows:
# prefix_steps under an emulator (default 0), "" unemulated; gptchar-full:
# GPTCHAR_FULL_STEPS or "all". A host gptchar-full leaves out prints "-".
steps_of() {
    "$py" -c 'import json,sys
h=[x for x in json.load(open(sys.argv[1]))["hosts"] if x["name"]==sys.argv[2]][0]
emulated = h.get("emulator") is not None
if sys.argv[3] == "gptchar-full":
    print((sys.argv[4] or "all") if emulated and h.get("expected") == "pass" else "-")
else:
    p = h.get("prefix_steps", 0)
    if emulated and not (isinstance(p, int) and p >= 0):
        sys.exit("%s: host %s: prefix_steps must be a step count, not %r" % (sys.argv[1], sys.argv[2], p))
    print(p if emulated else "all")' "$hosts" "$1" "$mode" "$full_steps"
}
# Wine keeps its server's socket directory in TMPDIR and leaves it behind
# when the runner kills the server with the rest of the IUT's processes:
# the hosts run with a TMPDIR of their own, removed when this script ends.
hosts_tmp=$(mktemp -d "${TMPDIR:-/tmp}/matrix-hosts.XXXXXX") || exit 2
trap 'rm -rf "$hosts_tmp"' EXIT
export TMPDIR="$hosts_tmp"
start=$(date +%s)
printf '%s\n' "$list" | while IFS="$(printf '\t')" read -r name build expected slowdown iut; do
    [ -n "$name" ] || continue # MATRIX_HOSTS may keep none (the caller's IUT alone)
    steps=$(steps_of "$name") || exit 2
    [ "$steps" = - ] && continue
    rm -f "$out/$name.json" "$out/$name.log" "$out/$name.verify" "$out/$name.verified"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$build" "$expected" "$slowdown" "$steps" "$iut"
done > "$out/plan.tsv" || exit 2
if [ -n "${MATRIX_IUT:-}" ]; then # the caller's IUT: no build of ours ("-"), its whole run
    iut_name=${MATRIX_IUT_NAME:-iut}
    rm -f "$out/$iut_name.json" "$out/$iut_name.log" "$out/$iut_name.verify" "$out/$iut_name.verified"
    printf '%s\t-\tpass\t1\tall\t%s\n' "$iut_name" "$MATRIX_IUT" >> "$out/plan.tsv"
fi
# the cross builds the hosts need (mk/cross.mk), once each
for build in $(cut -f2 "$out/plan.tsv" | grep -vx -- - | sort -u); do
    ${MAKE:-make} --no-print-directory "cross-$build" > "$out/build-$build.log" 2>&1 ||
        echo "$tag: build $build FAILED (see $out/build-$build.log)"
done
# ISOTRAIN_THREADS=2: same bits (spec §13.5); QEMU runs guest threads on host
# threads. ISOTRAIN_EVAL=0: no §13.7 evaluation keys (optional; each costs
# three steps under QEMU)
while IFS="$(printf '\t')" read -r name build expected slowdown steps iut; do
    level=all
    [ "$expected" = expected-fail ] && level=ops
    printf '%s\0%s\0%s\0%s\0%s\0' "$name" "$slowdown" "$steps" "$iut" "$level"
done < "$out/plan.tsv" | xargs -0 -n 5 -P "$jobs" sh -c '
    name=$1 slowdown=$2 steps=$3 iut=$4 level=$5
    t0=$(date +%s)
    set -f # the argv form (after --, no shell): emulator and guest bound
    set -- --windows
    [ "$steps" = all ] || set -- "$@" --steps "$steps"
    case $MODE in gptchar-*) set -- "$@" --profile gptchar ;; esac
    ISOTRAIN_THREADS=2 ISOTRAIN_EVAL=0 "$CONFORM" run --vectors "$VECTORS" "$@" \
        --level "$level" --slowdown "$slowdown" --timeout-run 3600 --host "$name" --receipt "$OUT/$name.json" \
        -- $iut > "$OUT/$name.log" 2>&1
    # gathered only through the trust gate: the fresh, unsigned receipt of
    # this machine must verify (every verdict recomputed)
    "$CONFORM" verify --allow-unsigned --vectors "$VECTORS" "$OUT/$name.json" > "$OUT/$name.verify" 2>&1
    echo $? > "$OUT/$name.verified"
    # signed in a step of its own, every IUT process gone: the key is never
    # on the machine while the trainer under test runs (isotrain-conform sign)
    [ -z "${MATRIX_SIGN_KEY:-}" ] || "$CONFORM" sign --sign-key "$MATRIX_SIGN_KEY" "$OUT/$name.json" >> "$OUT/$name.log" 2>&1 ||
        echo "$TAG: $name: could not sign $OUT/$name.json (see $OUT/$name.log)"
    echo "$TAG: $name: $steps steps + windows, $(( $(date +%s) - t0 )) s: $(tail -n 1 "$OUT/$name.log" | cut -c1-90)"
' sh
echo "$tag: $(( $(date +%s) - start )) s wall clock ($jobs hosts at a time)"
"$py" "$table" "$out" "$VECTORS" "$mode" "$full_steps"
