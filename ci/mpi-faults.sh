#!/bin/sh
# Usage: ci/mpi-faults.sh CONFORM 'IUT with -np NP' REFERENCE-CLI [HANG-DEADLINE-S]
#
# make test-mpi-faults: what the runner does when the MPI trainer breaks
# (spec/iut-protocol.md P8), each case with what must come out:
#
#   killed  rank 1 of 3 is SIGKILLed mid-run (after step 2 of FAULT_STEPS
#           is in the trace), on addmod113 and on gptchar: mpirun ends the
#           job; the runner reports FAIL, the run case naming how the IUT
#           ended and every step not reached ERROR, well within its deadline;
#           no process of the run is left, and nothing in the TMPDIR;
#   hung    rank 1 of 3 is SIGSTOPped mid-run, on both profiles: nothing more
#           happens until the runner's deadline (--timeout-run), which must
#           end the whole mpirun tree (mpirun, three ranks, the stopped one
#           too): the run case ERROR naming the time-out and --timeout-run
#           (P8), the steps not reached ERROR, the run FAIL (exit 1), the
#           runner back within the deadline plus a margin, no process left,
#           and nothing in the TMPDIR although the runner SIGKILLed mpirun
#           (isotrain-mpirun: Open MPI's files on the job's own tmpfs);
#   cleanup (issue 27 item 8) the runner SIGKILLed mid-train, and the IUT's
#           mpirun SIGTERMed, on gptchar: Open MPI's session directory and
#           shared-memory segments are gone (the TMPDIR they would be in holds
#           only the runner's own work directory, the trace), and nothing new
#           in /dev/shm. Negative control: the same with plain `mpirun` (the
#           IUT command before isotrain-mpirun) must leave them, or the check
#           proves nothing;
#   io      rank 0 cannot write a checkpoint mid-run (its path is a
#           directory): rank 0 alone sees it and ends the job (MPI_Abort),
#           exit 4 (P7: I/O) with the reason, the trace up to the step before;
#   ranks   more ranks than the batch has rows (65 for mlp13k's 64
#           positions): a usage error (exit 2) saying so, before any file is
#           written; 64 ranks (one position each) give the reference's trace.
#
# The rank to break is found among this run's processes only (an
# environment mark, its OMPI_COMM_WORLD_RANK), never by name.
set -u
conform=${1:?usage: ci/mpi-faults.sh CONFORM IUT-TEMPLATE REFERENCE-CLI [HANG-DEADLINE-S]}
tmpl=${2:?}
ref=${3:?}
# The hung runs wait for it in full: long enough for the faulted run to
# reach step 3 first (2-5 s in CI's runs at load 9), short enough that two
# of them do not cost a minute and a half of .ci/run.
hang_deadline=${4:-20}
# no evaluation keys (spec §13.7): the faults come sooner, nothing else changes
export ISOTRAIN_EVAL=0
# The faulted runs' length: long enough that the fault lands mid-run on a
# fast core (12 steps of addmod113 on 3 ranks took 0.9 s on a Zen 5, and the
# run ended before the poll below found rank 1), short enough for a loaded
# machine (about 0.2 s a step there).
# long enough that the signal lands mid-run on a fast machine (gptchar's
# 500 steps on 3 ranks take a few seconds; addmod113's are slower)
FAULT_STEPS=${FAULT_STEPS:-300}
mark="mpi-faults-$$-$(date +%s)"
export MPI_FAULTS_MARK=$mark
root=${TMPDIR:-/tmp}
bad=0
iut() { printf '%s\n' "$tmpl" | sed "s/-np NP /-np $1 /"; }
fail() { echo "test-mpi-faults: $*" >&2; bad=1; }

# pids of this script's runs (the mark in their environment), not zombies
marked() { # marked [ENV=VALUE]: those that also carry ENV=VALUE
    for d in /proc/[0-9]*; do
        env=$({ tr '\0' '\n' <"$d/environ"; } 2>/dev/null) || continue
        printf '%s\n' "$env" | grep -qx "MPI_FAULTS_MARK=$mark" || continue
        [ -z "${1:-}" ] || printf '%s\n' "$env" | grep -qx "$1" || continue
        state=$(sed 's/.*) //' "$d/stat" 2>/dev/null | cut -d' ' -f1)
        [ "$state" = Z ] && continue
        echo "${d#/proc/}"
    done
}

# the vector set of each profile's first spec version
vectors_of() { case $1 in gptchar) echo vectors/v1.2.0 ;; *) echo vectors/v1.1.0 ;; esac; }

# /dev/shm entries that were not there at the start (Open MPI's segments
# would be vader_segment.*)
shm0=$(ls /dev/shm 2>/dev/null | sort)
shm_new() { printf '%s\n' "$shm0" >"$root/mpi-faults-shm.$$"; ls /dev/shm 2>/dev/null | sort | comm -13 "$root/mpi-faults-shm.$$" -; rm -f "$root/mpi-faults-shm.$$"; }

fault() { # fault killed|hung SIGNAL TIMEOUT PROFILE
    what=$1 sig=$2 timeout=$3 prof=$4
    base=$(mktemp -d "$root/mpi-faults.XXXXXX")
    log=$base.log
    t0=$(date +%s)
    TMPDIR=$base sh ci/mpi-private-tmp.sh "$conform" run --vectors "$(vectors_of "$prof")" --level train \
        --profile "$prof" --steps $FAULT_STEPS --timeout-run "$timeout" --receipt "$base.json" -- $(iut 3) >"$log" 2>&1 &
    runner=$!
    # Rank 1 of the training job is looked for as soon as the run's trace
    # exists (not before: hello and info are jobs of their own), and signalled
    # as soon as step 2 is in the trace: scanning /proc takes longer than a
    # fast profile's whole run (gptchar ran its 100 steps while the scan of
    # an earlier version went on, and the signal came after the end).
    target=
    for _ in $(seq 1 30000); do # up to 10 minutes for step 2 on a loaded machine
        tr=$(ls "$base"/isotrain-mpi.*/isotrain-conform.*/trace.txt 2>/dev/null | head -1)
        if [ -n "$tr" ] && [ -z "$target" ]; then
            target=$(marked OMPI_COMM_WORLD_RANK=1 | while read -r p; do
                [ "$(cat "/proc/$p/comm" 2>/dev/null)" = isotrain-mpi ] &&
                    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q ' train ' && echo "$p"; done | head -1)
        fi
        [ -n "$target" ] && [ "$(grep -c '^step=' "$tr")" -ge 3 ] && break
        kill -0 "$runner" 2>/dev/null || break
        sleep 0.02
    done
    if [ -z "$target" ]; then
        fail "$what ($prof): never found rank 1 mid-run"
        wait "$runner"
        cat "$log" >&2
        rm -rf "$base" "$log" "$base.json"
        return
    fi
    t1=$(date +%s)
    at=$(($(grep -c '^step=' "$tr") - 1))
    kill "-$sig" "$target"
    # a signal after the last step tests nothing: say so, never pass it
    [ "$at" -lt "$FAULT_STEPS" ] || fail "$what ($prof): rank 1 was signalled after the run's last step ($at): no mid-run fault was made"
    wait "$runner"
    rc=$?
    t2=$(date +%s)
    echo "test-mpi-faults: $what ($prof): SIG$sig to rank 1 (pid $target) with step $at in the trace; runner exit $rc $((t2 - t1)) s later"
    [ "$rc" = 1 ] || fail "$what: the runner exited $rc, expected 1 (FAIL)"
    # the run case's word (spec/iut-protocol.md P8): a crash is a FAIL of the
    # run, a time-out an ERROR of it (it says nothing about the results); the
    # run FAILs (exit 1) either way
    word=FAIL; [ "$what" = hung ] && word=ERROR
    run_line=$(grep "$word $prof/run: " "$log" | head -1)
    echo "  $run_line"
    [ -n "$run_line" ] || fail "$what ($prof): no \"$word $prof/run\" line"
    case $what in
    killed)
        printf '%s\n' "$run_line" | grep -q 'killed by signal 9\|exited non-zero' ||
            fail "killed: the run case does not say how the IUT ended"
        [ $((t2 - t1)) -lt "$timeout" ] || fail "killed: the runner waited for its deadline: mpirun did not end the job" ;;
    hung)
        printf '%s\n' "$run_line" | grep -q "TIME-OUT: the training run hung: no exit within $timeout s" ||
            fail "hung: the run case does not name the time-out"
        printf '%s\n' "$run_line" | grep -q -- "--timeout-run S or --slowdown F" ||
            fail "hung: the run case does not name the option that raises the deadline"
        [ $((t2 - t0)) -le $((timeout + 60)) ] || fail "hung: the runner took $((t2 - t0)) s for a $timeout s deadline" ;;
    esac
    # the receipt's cases: the steps after the fault are ERROR, "not reached: <why>"
    errs=$(/usr/bin/python3 ci/receipt_json.py "$base.json" | /usr/bin/python3 -c '
import json, sys
r, p = json.load(sys.stdin), sys.argv[1]
bad = [c for c in r["cases"] if c["level"] == "train" and c["id"].startswith(p + "/")
       and c["id"] != p + "/run" and c["verdict"] == "ERROR" and "not reached" in c.get("reason", "")]
print(len(bad), bad[0]["id"] if bad else "-", bad[0].get("reason", "")[:160] if bad else "")' "$prof")
    echo "  receipt: steps ERROR (not reached), count, first, reason: $errs"
    [ "${errs%% *}" -ge 1 ] 2>/dev/null || fail "$what: no step is ERROR (not reached) in the receipt"
    grep -E 'mpi-private-tmp' "$log" | sed 's/^/  /'
    grep -q 'mpi-private-tmp' "$log" && fail "$what ($prof): Open MPI left files in the TMPDIR"
    [ -z "$(shm_new | grep vader_segment)" ] || fail "$what ($prof): new segments in /dev/shm: $(shm_new | tr '\n' ' ')"
    left=$(marked)
    [ -z "$left" ] || fail "$what: processes of the run still running: $left"
    [ -z "$(ls -A "$base")" ] || fail "$what: left in TMPDIR: $(ls -A "$base")"
    rm -rf "$base"
    [ $bad = 0 ] || sed 's/^/    /' "$log" | tail -30 >&2
    rm -f "$log" "$base.json"
}

ranks() {
    base=$(mktemp -d "$root/mpi-faults.XXXXXX")
    out=$(TMPDIR=$base sh ci/mpi-private-tmp.sh $(iut 65) train --profile mlp13k --steps 1 \
        --trace "$base/trace.txt" 2>&1)
    rc=$?
    msg=$(printf '%s\n' "$out" | grep 'ranks for a batch' | head -1)
    echo "test-mpi-faults: ranks: 65 ranks, mlp13k: exit $rc: $msg"
    [ "$rc" = 2 ] || fail "ranks: exit $rc, expected 2 (usage)"
    [ -n "$msg" ] || fail "ranks: no message about the rank count: $out"
    [ ! -e "$base/trace.txt" ] || fail "ranks: a trace was written"
    TMPDIR=$base sh ci/mpi-private-tmp.sh $(iut 64) train --profile mlp13k --steps 3 --trace "$base/t64.txt" ||
        fail "ranks: 64 ranks failed"
    "$ref" train --profile mlp13k --steps 3 --trace "$base/ref.txt"
    if cmp -s "$base/ref.txt" "$base/t64.txt"; then
        echo "test-mpi-faults: ranks: 64 ranks (one position each), 3 steps: the reference's trace byte for byte"
    else
        fail "ranks: 64 ranks differ from the reference"
    fi
    rm -rf "$base"
}

io() {
    base=$(mktemp -d "$root/mpi-faults.XXXXXX")
    mkdir -p "$base/ck/step-000100.bin"
    out=$(TMPDIR=$base sh ci/mpi-private-tmp.sh $(iut 3) train --profile mlp13k --trace "$base/trace.txt" \
        --checkpoint-dir "$base/ck" 2>&1)
    rc=$?
    msg=$(printf '%s\n' "$out" | grep 'FAILED (io-error)' | head -1)
    lines=$(grep -c '^step=' "$base/trace.txt" 2>/dev/null || echo 0)
    echo "test-mpi-faults: io: checkpoint 100 unwritable, 3 ranks: exit $rc, $lines trace lines: $msg"
    [ "$rc" = 4 ] || fail "io: exit $rc, expected 4"
    [ -n "$msg" ] || fail "io: no reason given: $out"
    [ "$lines" = 101 ] || fail "io: the trace has $lines step lines, expected 101 (steps 0..100)"
    left=$(marked)
    [ -z "$left" ] || fail "io: processes still running: $left"
    rm -rf "$base"
}

# cleanup_case LAUNCHER|CONTROL: the runner SIGKILLed mid-train and the
# IUT's mpirun SIGTERMed (gptchar, 3 ranks), Open MPI told to keep its files
# in the TMPDIR (as the segments' directory too); prints what was left there
# besides the runner's work directory and the trace, and in /dev/shm.
cleanup_case() {
    cmd=$1
    base=$(mktemp -d "$root/mpi-faults.XXXXXX")
    # shellcheck disable=SC2086
    TMPDIR=$base OMPI_MCA_btl_vader_backing_directory=$base "$conform" run --vectors vectors/v1.2.0 --level train \
        --profile gptchar --steps $FAULT_STEPS -- $cmd >"$base.log" 2>&1 &
    runner=$!
    for _ in $(seq 1 6000); do
        tr=$(ls "$base"/isotrain-conform.*/trace.txt 2>/dev/null | head -1)
        [ -n "$tr" ] && [ "$(grep -c '^step=' "$tr")" -ge 3 ] && break
        kill -0 "$runner" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$runner"
    wait "$runner" 2>/dev/null
    for _ in $(seq 1 100); do [ -z "$(marked)" ] && break; sleep 0.1; done
    # shellcheck disable=SC2086
    TMPDIR=$base OMPI_MCA_btl_vader_backing_directory=$base $cmd train --profile gptchar --steps $FAULT_STEPS \
        --trace "$base/term-trace.txt" >>"$base.log" 2>&1 &
    job=$!
    for _ in $(seq 1 6000); do
        [ "$(grep -c '^step=' "$base/term-trace.txt" 2>/dev/null)" -ge 3 ] 2>/dev/null && break
        kill -0 "$job" 2>/dev/null || break
        sleep 0.1
    done
    kill -TERM "$job"
    wait "$job" 2>/dev/null
    for _ in $(seq 1 100); do [ -z "$(marked)" ] && break; sleep 0.1; done
    left=$(cd "$base" && find . -mindepth 1 -maxdepth 2 ! -path './isotrain-conform.*' ! -name term-trace.txt | sed 's|^\./||' | sort | tr '\n' ' ')
    echo "$left$(shm_new | sed 's|^|/dev/shm/|' | tr '\n' ' ')"
    rm -rf "$base" "$base.log"
}

cleanup() {
    plain=$(iut 3 | sed 's|^[^ ]*isotrain-mpirun |mpirun |')
    ctl=$(cleanup_case "$plain")
    echo "test-mpi-faults: cleanup: control, plain mpirun (runner SIGKILLed, then mpirun SIGTERMed): left ${ctl:-nothing}"
    [ -n "$ctl" ] || fail "cleanup: the control (plain mpirun) left nothing: the check cannot tell"
    case $ctl in *ompi.*) ;; *) fail "cleanup: the control left no Open MPI session directory: the check cannot tell" ;; esac
    # the control's segments in /dev/shm, if its Open MPI put them there, are this run's
    for f in $(shm_new | grep '^vader_segment\.'); do rm -f "/dev/shm/$f"; done
    got=$(cleanup_case "$(iut 3)")
    echo "test-mpi-faults: cleanup: isotrain-mpirun (runner SIGKILLed, then mpirun SIGTERMed): left ${got:-nothing}"
    [ -z "$got" ] || fail "cleanup: isotrain-mpirun left: $got"
}

fault killed KILL 600 addmod113
fault killed KILL 600 gptchar
fault hung STOP "$hang_deadline" addmod113
fault hung STOP "$hang_deadline" gptchar
cleanup
io
ranks
left=$(marked)
[ -z "$left" ] || fail "processes still running at the end: $left"
[ $bad = 0 ] || { echo "test-mpi-faults: FAILED" >&2; exit 1; }
echo "test-mpi-faults: a killed rank, a hung rank, rank 0's I/O failure and too many ranks each end as they must, nothing left behind"
