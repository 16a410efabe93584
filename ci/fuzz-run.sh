#!/bin/sh
# Usage: ci/fuzz-run.sh HARNESS SEED_CORPUS OUTDIR SECONDS [DICT] -- [LIBFUZZER_ARGS...]
# Runs one libFuzzer harness (mk/fuzz.mk) for SECONDS seconds on its committed
# seed corpus, which it never writes to: new inputs go to OUTDIR/corpus/NAME/,
# a crashing input to OUTDIR/artifacts/NAME/. Prints libFuzzer's final stats
# as one line; exits non-zero, with the end of the log, on any crash, leak,
# sanitizer report or time-out.
set -u
bin=$1 seeds=$2 out=$3 seconds=$4
shift 4
dict=""
if [ "${1:-}" != "--" ] && [ $# -gt 0 ]; then dict=$1; shift; fi
[ "${1:-}" = "--" ] && shift
name=$(basename "$bin")

[ -x "$bin" ] || { echo "fuzz: $name: no harness binary $bin" >&2; exit 2; }
[ -d "$seeds" ] && [ -n "$(ls -A "$seeds" 2>/dev/null)" ] ||
    { echo "fuzz: $name: no seed corpus in $seeds (mk/fuzz.mk says where it goes)" >&2; exit 2; }
case $seconds in '' | *[!0-9]*) echo "fuzz: FUZZ_SECONDS must be a whole number of seconds, got '$seconds'" >&2; exit 2 ;; esac

work=$out/corpus/$name
art=$out/artifacts/$name
log=$out/$name.log
mkdir -p "$work" "$art"
echo "fuzz: $name: $seconds s on $seeds (log: $log)"
"$bin" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$art/" \
    ${dict:+-dict="$dict"} "$@" "$work" "$seeds" > "$log" 2>&1
status=$?

stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n 1; }
runs=$(stat number_of_executed_units)
if [ $status -ne 0 ] || [ -z "$runs" ]; then
    echo "fuzz: $name: FAILED (libFuzzer exit status $status); the end of $log:" >&2
    tail -n 40 "$log" >&2
    ls "$art" 2>/dev/null | sed "s|^|fuzz: $name: input saved as $art/|" >&2
    exit 1
fi
echo "fuzz: $name: $runs executions in $seconds s ($(stat average_exec_per_sec)/s), $(stat new_units_added) new inputs, peak RSS $(stat peak_rss_mb) MB, no crash"
