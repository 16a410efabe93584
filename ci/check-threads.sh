#!/bin/sh
# Usage: ci/check-threads.sh CONFORM ISOTRAIN OUT_DIR [STEPS]
# Identical bits on 1, 2, 3 and 4 threads (issue 18, spec §4.1, §13.5):
# `isotrain-conform repeat` trains addmod113, then gptchar, four times, the Nth run on N
# threads (ci/rotate-threads.sh), every step checkpointed and hashed by the
# runner, and must find all four bit-identical. Negative control: the
# reference built with spec/mutants/threads-split-sum.patch (on 2+ threads
# each weight-gradient sum is split into two halves that start from +0 and
# are added, as an MPI_Allreduce of two ranks' partial sums would) must be
# found different, from step 1.
set -u
conform=${1:?usage: ci/check-threads.sh CONFORM ISOTRAIN OUT_DIR [STEPS]}
iut=${2:?isotrain}
out=${3:?output directory}
steps=${4:-2}
mkdir -p "$out"
fail=0
run() { # name binary [profile]
    rm -f "$out/$1.state" "$out/$1.state.log"
    "$conform" repeat --runs 4 --profile "${3:-addmod113}" --steps "$steps" \
        --iut "sh ci/rotate-threads.sh $out/$1.state '1 2 3 4' $2" > "$out/$1.log" 2>&1
    rc=$?
    used=$(tr '\n' ' ' < "$out/$1.state.log" 2>/dev/null)
    if [ "$used" != "1 2 3 4 " ]; then
        echo "check-threads: $1: the runs used threads '$used', not 1 2 3 4" >&2
        return 2
    fi
    return $rc
}
if run reference "$iut"; then
    echo "check-threads: addmod113 on 1, 2, 3, 4 threads: $(tail -n 1 "$out/reference.log")"
else
    echo "check-threads: addmod113 on 1, 2, 3, 4 threads: NOT identical:" >&2
    cat "$out/reference.log" >&2
    fail=1
fi
# gptchar's products, attention, GELU and LayerNorm split over threads too
if run gptchar "$iut" gptchar; then
    echo "check-threads: gptchar on 1, 2, 3, 4 threads: $(tail -n 1 "$out/gptchar.log")"
else
    echo "check-threads: gptchar on 1, 2, 3, 4 threads: NOT identical:" >&2
    cat "$out/gptchar.log" >&2
    fail=1
fi
MAKE=${MAKE:-make} sh ci/mutant-build.sh "$out/split-sum" threads-split-sum.patch OPT=-O2 > "$out/split-sum.build.log" 2>&1 ||
    { echo "check-threads: the negative control does not build ($out/split-sum.build.log)" >&2; exit 1; }
run split-sum "$out/split-sum/isotrain"
rc=$?
if [ $rc -eq 1 ] && grep -q "NOT identical: run 2 differs from run 1 first at step 1" "$out/split-sum.log"; then
    echo "check-threads: negative control (sums split across threads and added): $(grep 'NOT identical' "$out/split-sum.log")"
else
    echo "check-threads: negative control: expected repeat to find run 2 (2 threads) different at step 1, got exit $rc:" >&2
    cat "$out/split-sum.log" >&2
    fail=1
fi
run split-sum-gptchar "$out/split-sum/isotrain" gptchar
rc=$?
if [ $rc -eq 1 ] && grep -q "NOT identical: run 2 differs from run 1 first at step 1" "$out/split-sum-gptchar.log"; then
    echo "check-threads: negative control on gptchar: $(grep 'NOT identical' "$out/split-sum-gptchar.log")"
else
    echo "check-threads: negative control on gptchar: expected run 2 (2 threads) different at step 1, got exit $rc:" >&2
    cat "$out/split-sum-gptchar.log" >&2
    fail=1
fi
[ $fail -eq 0 ] && echo "check-threads: identical bits on 1-4 threads, and the check sees a split sum"
exit $fail
