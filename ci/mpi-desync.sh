#!/bin/sh
# Usage: ci/mpi-desync.sh 'IUT with -np NP'
#
# make test-mpi-desync (in make test-mpi): ranks started with different
# command lines (an MPMD mpirun line, `-np 1 isotrain-mpi A : -np 1
# isotrain-mpi B`) must be refused before anything runs: exit 2 on the
# job, rank 0's line naming the disagreement, the differing rank's line
# naming itself, nothing on stdout (reference/mpi/isotrain_mpi.c,
# same_command_line). Each rank sizes its buffers and counts its steps and
# messages from its own argv, so ranks that parsed different lines act on
# different requests. Measured before the check (the negative control, run
# with this script on a build without it):
#   - ops on rank 0, train on rank 1: rank 0 answered, then the job hung
#     (rank 0 in ops' closing barrier, rank 1 in train's first collective)
#     until this script's time-out;
#   - --steps 2 against --steps 3: hung (rank 1 waits for a step-3 partial);
#   - --seed 7 on rank 1 alone: exit 0, with a trace made of two different
#     initialisations' partials.
# Each case has a time-out (DESYNC_TIMEOUT, 60 s), so a hang is a failure,
# never a stuck CI job.
set -u
tmpl=${1:?usage: ci/mpi-desync.sh IUT-TEMPLATE (with -np NP)}
limit=${DESYNC_TIMEOUT:-60}
case $tmpl in *" -np NP "*) ;; *) echo "mpi-desync: the template has no '-np NP ': $tmpl" >&2; exit 2 ;; esac
launcher=${tmpl%% -np NP *}
bin=${tmpl##* -np NP }
bad=0
t0=$(date +%s)
fail() { echo "test-mpi-desync: $*" >&2; bad=1; }

# case LABEL 'RANK-0 ARGS' 'RANK-1 ARGS': one 2-rank job, rank 0's and rank 1's
# command lines as given (word-split; no argument holds a space)
case_() {
    label=$1 a0=$2 a1=$3
    d=$(mktemp -d "${TMPDIR:-/tmp}/mpi-desync.XXXXXX") || exit 2
    s=$(date +%s)
    # shellcheck disable=SC2086 # the words of the launcher and of each line
    printf 'id=d/1 op=exp x=3f800000\n' | sh ci/mpi-private-tmp.sh timeout -k 5 "$limit" \
        $launcher -np 1 $bin $a0 : -np 1 $bin $a1 >"$d/out" 2>"$d/err"
    rc=$?
    secs=$(($(date +%s) - s))
    want0="the ranks were not started with one command line: 1 of 2 rank(s) differ from rank 0's 'isotrain-mpi $a0'"
    want1="rank 1: started as 'isotrain-mpi $a1', not with rank 0's command line"
    ok=1
    if [ "$rc" = 124 ]; then
        fail "$label: killed at the ${limit} s time-out (a hang), expected exit 2"
        ok=0
    elif [ "$rc" != 2 ]; then
        fail "$label: exit $rc, expected 2"
        ok=0
    fi
    grep -qF "$want0" "$d/err" || { fail "$label: no line \"$want0\" from rank 0"; ok=0; }
    grep -qF "$want1" "$d/err" || { fail "$label: no line \"$want1\" from rank 1"; ok=0; }
    [ ! -s "$d/out" ] || { fail "$label: something ran: stdout has $(wc -l <"$d/out") line(s)"; ok=0; }
    if [ $ok = 1 ]; then
        echo "test-mpi-desync: $label: refused, exit 2, both ranks named ($secs s)"
    else
        sed 's/^/    /' "$d/err" | head -20 >&2
    fi
    rm -rf "$d"
}

case_ "ops on rank 0, train on rank 1" "ops" "train --profile mlp13k --steps 2 --trace -"
case_ "--steps 2 against --steps 3" "train --profile mlp13k --steps 2 --trace -" "train --profile mlp13k --steps 3 --trace -"
case_ "--seed on rank 1 alone" "train --profile mlp13k --steps 2 --trace -" "train --profile mlp13k --steps 2 --seed 7 --trace -"

echo "test-mpi-desync: $(($(date +%s) - t0)) s in all"
[ $bad = 0 ] || { echo "test-mpi-desync: FAILED" >&2; exit 1; }
echo "test-mpi-desync: ranks started with different command lines are refused before anything runs"
