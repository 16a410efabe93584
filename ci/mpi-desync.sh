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
# The same for what each rank reads for itself with one command line (two
# working directories, -wdir): a recipe only rank 0 can read (before: a
# hang, no message: rank 1 left before the first collective), a recipe of
# another batch on rank 1 (before: exit 0 and a 1-step trace, each rank
# having split its own batch), a recipe of other heads on rank 1 (a
# field the profile row does not keep, so the ranks must compare the
# recipe's document; before: exit 0 and a trace whose step 1 differs from
# one process's);
# a state of step 1 of another seed on rank 1 (before: exit 0 and a trace);
# each must be refused the same way, naming the rank and what differs
# (reference/iut/train_verb.c: the refused and same hooks).
# Each case has a time-out (DESYNC_TIMEOUT, 60 s), so a hang is a failure,
# never a stuck CI job.
set -u
tmpl=${1:?usage: ci/mpi-desync.sh IUT-TEMPLATE (with -np NP)}
limit=${DESYNC_TIMEOUT:-60}
case $tmpl in *" -np NP "*) ;; *) echo "mpi-desync: the template has no '-np NP ': $tmpl" >&2; exit 2 ;; esac
launcher=${tmpl%% -np NP *}
bin=${tmpl##* -np NP }
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac # the ranks may start in other directories
bad=0
t0=$(date +%s)
fail() { echo "test-mpi-desync: $*" >&2; bad=1; }

# case LABEL 'RANK-0 ARGS' 'RANK-1 ARGS' WANT0 WANT1 [WDIR0 WDIR1]: one 2-rank
# job, rank 0's and rank 1's command lines as given (word-split; no argument
# holds a space), each started in its WDIR if given; WANT0 and WANT1: the
# lines rank 0 and rank 1 must write on stderr
case_() {
    label=$1 a0=$2 a1=$3 want0=$4 want1=$5 w0=${6:+-wdir $6} w1=${7:+-wdir $7}
    d=$(mktemp -d "${TMPDIR:-/tmp}/mpi-desync.XXXXXX") || exit 2
    s=$(date +%s)
    # shellcheck disable=SC2086 # the words of the launcher and of each line
    printf 'id=d/1 op=exp x=3f800000\n' | sh ci/mpi-private-tmp.sh timeout -k 5 "$limit" \
        $launcher -np 1 $w0 $bin $a0 : -np 1 $w1 $bin $a1 >"$d/out" 2>"$d/err"
    rc=$?
    secs=$(($(date +%s) - s))
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

# ranks started with different command lines
argv() { # argv A0 A1: the lines each rank must write
    w0="the ranks were not started with one command line: 1 of 2 rank(s) differ from rank 0's 'isotrain-mpi $1'"
    w1="rank 1: started as 'isotrain-mpi $2', not with rank 0's command line"
}
l0="train --profile mlp13k --steps 2 --trace -"
argv ops "$l0"
case_ "ops on rank 0, train on rank 1" ops "$l0" "$w0" "$w1"
argv "$l0" "train --profile mlp13k --steps 3 --trace -"
case_ "--steps 2 against --steps 3" "$l0" "train --profile mlp13k --steps 3 --trace -" "$w0" "$w1"
argv "$l0" "train --profile mlp13k --steps 2 --seed 7 --trace -"
case_ "--seed on rank 1 alone" "$l0" "train --profile mlp13k --steps 2 --seed 7 --trace -" "$w0" "$w1"

# one command line, each rank in a directory of its own: what each reads
top=$(mktemp -d "${TMPDIR:-/tmp}/mpi-desync-dirs.XXXXXX") || exit 2
mkdir "$top/a" "$top/b"
cp spec/recipes/tiny.json "$top/a/r.json"
cp spec/recipes/shakespeare100k.txt "$top/a/"
cp spec/recipes/shakespeare100k.txt "$top/b/"
l1="train --recipe r.json --steps 1 --trace -"
case_ "--recipe rank 1 cannot read" "$l1" "$l1" \
    "another rank refused the request rank 0 accepted (exit 2; each such rank names itself): nothing ran" \
    "isotrain-mpi train: rank 1: --recipe: r.json: cannot be read" "$top/a" "$top/b"
# other_recipe KEY FROM TO NOUN: rank 1 reads tiny.json with KEY's value
# FROM changed to TO; rank 0 the file as shipped
other_recipe() {
    sed "s/\"$1\": $2,/\"$1\": $3,/" spec/recipes/tiny.json >"$top/b/r.json"
    cmp -s "$top/a/r.json" "$top/b/r.json" && { echo "mpi-desync: could not change tiny.json's $1" >&2; exit 2; }
    case_ "--recipe of $4 on rank 1" "$l1" "$l1" \
        "the ranks read different data (the profile row and the run's options) on 1 rank(s) besides rank 0" \
        "isotrain-mpi train: rank 1: read other data than rank 0: the profile row and the run's options" "$top/a" "$top/b"
}
other_recipe batch 4 5 "another batch"
other_recipe heads 4 2 "other heads"
# states of step 1 of two seeds, each resumed by one rank (before: exit 0 and a trace)
for w in a b; do
    seed=
    [ $w = b ] && seed="--seed 7"
    # shellcheck disable=SC2086
    sh ci/mpi-private-tmp.sh $launcher -np 1 -wdir "$top/$w" $bin train --profile mlp13k --steps 1 $seed --state-steps 1 \
        --checkpoint-dir ck --trace /dev/null </dev/null >/dev/null 2>&1 || { echo "mpi-desync: no state in $top/$w" >&2; exit 2; }
done
l2="train --profile mlp13k --steps 2 --resume ck --from-step 1 --trace -"
case_ "--resume from another state on rank 1" "$l2" "$l2" \
    "the ranks read different data (the state it resumes from) on 1 rank(s) besides rank 0" \
    "isotrain-mpi train: rank 1: read other data than rank 0: the state it resumes from" "$top/a" "$top/b"
rm -rf "$top"

echo "test-mpi-desync: $(($(date +%s) - t0)) s in all"
[ $bad = 0 ] || { echo "test-mpi-desync: FAILED" >&2; exit 1; }
echo "test-mpi-desync: ranks started with different command lines, or reading different files, are refused before anything runs"
