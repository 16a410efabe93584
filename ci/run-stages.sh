#!/usr/bin/env bash
# Usage: ci/run-stages.sh NAME MAKE STAGE...
#
# Runs `MAKE STAGE` for each stage in order, stopping at the first that fails
# (as make would), and prints each stage's wall and CPU time (its processes
# and all their children: bash's `time`) as it ends, then a table of them
# all. The table is what README.md's "Checks, tiers and their cost" quotes;
# it is also written to $STAGE_TIMES (default build/stage-times-NAME.txt).
#
# Lanes: a STAGE argument `A,B+C,D` runs the lane A then B beside the lane C
# then D, and goes on when both lanes have ended (failed if either failed; a
# lane stops at its first failure). Most groups keep one of the two cores
# busy (a runner waiting on one IUT, a browser, MPI's deadlines), so two
# lanes finish in the time of the longer. Each stage of a lane writes to
# build/stage-logs/STAGE.log, printed whole when the stage ends, so the two
# lanes' lines never interleave. Stages side by side must not build the same
# files: the makefile builds what both use in a stage before the lanes.
set -u
name=${1:?usage: ci/run-stages.sh NAME MAKE STAGE...}
make=${2:?}
shift 2
out=${STAGE_TIMES:-build/stage-times-$name.txt}
logs=$(dirname "$out")/stage-logs
mkdir -p "$(dirname "$out")" "$logs"
rows=$(mktemp "$logs/rows.XXXXXX")
total0=$(date +%s.%N)
fmt() { printf '%-28s %8.0f s wall %8.0f s CPU\n' "$1" "$2" "$3"; }
# the CPU of shell PID's waited-for children (utime, stime, cutime, cstime),
# in clock ticks; PID is taken outside $(...), which is a subshell of its own
ticks() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat"; }

# run_stage STAGE LABEL: one group, timed; its row is appended to $rows.
run_stage() {
    local t0 c0 st wall cpu me=$BASHPID
    t0=$(date +%s.%N)
    c0=$(ticks "$me")
    $make --no-print-directory "$1"
    st=$?
    wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    cpu=$(awk -v a="$c0" -v b="$(ticks "$me")" -v hz="$(getconf CLK_TCK)" 'BEGIN { print (b - a) / hz }')
    fmt "$2" "$wall" "$cpu" >> "$rows"
    echo "run-stages $name: $(fmt "$2" "$wall" "$cpu" | tr -s ' ') (exit $st)"
    return "$st"
}

# run_lane LANE K N: the comma-separated stages of lane K of N, in order.
run_lane() {
    local s st
    IFS=, read -ra stages <<< "$1"
    for s in "${stages[@]}"; do
        [ -n "$s" ] || continue # a stage left out (TEST_MATRIX= in the GitHub workflow)
        run_stage "$s" "$s [lane $2/$3]" > "$logs/$s.log" 2>&1
        st=$?
        flock "$logs/.print" sh -c 'echo "---- run-stages: $1 (lane $2/$3) ----"; cat "$4"' sh "$s" "$2" "$3" "$logs/$s.log"
        [ "$st" = 0 ] || { echo "$s" > "$logs/lane-$2.failed"; return "$st"; }
    done
}

run_lanes() {
    local lanes pids k st=0 pid
    IFS=+ read -ra lanes <<< "$1"
    pids=()
    rm -f "$logs"/lane-*.failed
    for k in "${!lanes[@]}"; do
        run_lane "${lanes[$k]}" $((k + 1)) "${#lanes[@]}" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do
        wait "$pid" || st=$?
    done
    return "$st"
}

status=0
for stage in "$@"; do
    case $stage in
        *+*) run_lanes "$stage" ;;
        *) run_stage "$stage" "$stage" ;;
    esac
    status=$?
    [ "$status" = 0 ] || break
done
total=$(awk -v a="$total0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
{
    echo "stages of $name on $(nproc) cores ($(uname -m)), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end:"
    cat "$rows"
    printf '%-28s %8.0f s wall\n' "total" "$total"
    [ "$status" = 0 ] || echo "stopped: $stage failed (exit $status)$(cat "$logs"/lane-*.failed 2>/dev/null | sed 's/^/; in its lanes: /' | tr -d '\n')"
} | tee "$out"
rm -f "$rows"
exit "$status"
