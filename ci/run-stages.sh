#!/usr/bin/env bash
# Usage: ci/run-stages.sh NAME MAKE STAGE...
#
# Runs `MAKE STAGE` for each stage in order, stopping at the first that fails
# (as make would), and prints each stage's wall and CPU time (its processes
# and all their children: bash's `time`) as it ends, then a table of them
# all. The table is what README.md's "Checks, tiers and their cost" quotes;
# it is also written to $STAGE_TIMES (default build/stage-times-NAME.txt).
set -u
name=${1:?usage: ci/run-stages.sh NAME MAKE STAGE...}
make=${2:?}
shift 2
out=${STAGE_TIMES:-build/stage-times-$name.txt}
mkdir -p "$(dirname "$out")"
rows=()
total0=$(date +%s.%N)
fmt() { printf '%-28s %8.0f s wall %8.0f s CPU\n' "$1" "$2" "$3"; }
status=0
for stage in "$@"; do
    t0=$(date +%s.%N)
    c0=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
    $make --no-print-directory "$stage"
    status=$?
    t1=$(date +%s.%N)
    # the CPU of this shell's waited-for children (utime, stime, cutime, cstime), in clock ticks
    c1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
    hz=$(getconf CLK_TCK)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { print (b - a) / hz }')
    rows+=("$(fmt "$stage" "$wall" "$cpu")")
    echo "run-stages $name: $(fmt "$stage" "$wall" "$cpu" | tr -s ' ') (exit $status)"
    [ "$status" = 0 ] || break
done
total=$(awk -v a="$total0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
{
    echo "stages of $name on $(nproc) cores ($(uname -m)), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end:"
    printf '%s\n' "${rows[@]}"
    printf '%-28s %8.0f s wall\n' "total" "$total"
    [ "$status" = 0 ] || echo "stopped: $stage failed (exit $status)"
} | tee "$out"
exit "$status"
