#!/bin/sh
# Usage: sh ci/rotate-threads.sh STATE "1 2 3 4" ISOTRAIN [ARGS...]
# An IUT command for `isotrain-conform repeat` whose Nth start trains with
# the Nth thread count of the list (ISOTRAIN_THREADS), so repeat's "all
# runs bit-identical" covers 1, 2, 3 and 4 threads (make check-threads).
# STATE counts the starts; STATE.log records each start's thread count.
set -eu
state=${1:?usage: ci/rotate-threads.sh STATE "COUNTS" ISOTRAIN [ARGS...]}
counts=$2
shift 2
n=$(cat "$state" 2>/dev/null || echo 0)
echo $((n + 1)) > "$state"
set -- "$@"
i=0 pick=
for c in $counts; do
    [ $i -eq "$n" ] && pick=$c
    i=$((i + 1))
done
[ -n "$pick" ] || { echo "rotate-threads: start $((n + 1)) but only $i thread counts" >&2; exit 2; }
echo "$pick" >> "$state.log"
ISOTRAIN_THREADS=$pick exec "$@"
