#!/bin/sh
# The two reference front ends refuse the same train command lines the same
# way (issue 28; spec/iut-protocol.md P7): `isotrain` and `isotrain-mpi`
# under `mpirun -np 1` are given one table of bad command lines and must
# exit with the same status and print the same lines of their own (the
# program's name aside; mpirun's banners about a non-zero exit are not the
# IUT's and are left out). A negative control first shows the comparison
# firing on two different lines.
#
#   ci/check-iut-front-ends.sh CLI MPI_IUT...
#   e.g. ci/check-iut-front-ends.sh build/native/isotrain mpirun -np 1 build/mpi/isotrain-mpi
set -u
cli=$1
shift
work=$(mktemp -d "${TMPDIR:-/tmp}/front-ends.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/empty"
fails=0
MPI="$*"

# $1: a name; then the command: its status and its own stderr lines, the
# program name made one
run_one() {
    name=$1
    shift
    "$@" < /dev/null > "$work/$name.out" 2> "$work/$name.raw"
    echo $? > "$work/$name.rc"
    grep -E '^(isotrain|isotrain-mpi)( train)?:|^failure=' "$work/$name.raw" | sed 's/^isotrain-mpi/isotrain/' \
        > "$work/$name.err"
}

# 0 when both front ends gave the same status and lines for their args
same() {
    a=$1
    b=$2
    cmp -s "$work/$a.rc" "$work/$b.rc" && cmp -s "$work/$a.err" "$work/$b.err"
}

check() {
    what=$1
    shift
    run_one cli "$cli" train "$@"
    # shellcheck disable=SC2086
    run_one mpi $MPI train "$@"
    rc=$(cat "$work/cli.rc")
    if [ "$rc" = 0 ] || [ ! -s "$work/cli.err" ]; then
        echo "FAIL $what: the CLI accepted it or said nothing (exit $rc)"
        fails=$((fails + 1))
    elif same cli mpi; then
        echo "ok   $what: exit $rc: $(head -n 1 "$work/cli.err")"
    else
        echo "FAIL $what: isotrain exit $rc, isotrain-mpi exit $(cat "$work/mpi.rc")"
        diff "$work/cli.err" "$work/mpi.err" | sed 's/^/     /'
        fails=$((fails + 1))
    fi
}

T="--trace $work/t"
D="--checkpoint-dir $work/d"
table() {
    while IFS='|' read -r what args; do
        [ -n "$what" ] || continue
        # shellcheck disable=SC2086
        check "$what" $args
    done
}

# negative control: two different bad lines must compare as different
run_one cli "$cli" train --profile mlp13k --steps 007 $T
run_one ctl "$@" train --profile mlp13k --steps 2 --steps 3 $T
if same cli ctl; then
    echo "FAIL negative control: two different refusals compared equal: the check cannot fail"
    exit 1
fi
echo "ok   negative control: different refusals compare as different"

table <<EOF
leading zero in --steps|--profile mlp13k --steps 007 $T
sign in --steps|--profile mlp13k --steps +2 $T
steps beyond u32|--profile mlp13k --steps 4294967296 $T
steps beyond a scheduled profile's|--profile gptchar --steps 501 $T
empty list item|--profile mlp13k --steps 200 $D --checkpoint-steps 50,,100 $T
trailing comma|--profile mlp13k --steps 200 $D --checkpoint-steps 50, $T
leading zero in a list|--profile mlp13k --steps 200 $D --checkpoint-steps 050 $T
checkpoint beyond steps|--profile mlp13k --steps 3 $D --checkpoint-steps 9 $T
checkpoints without a directory|--profile mlp13k --steps 3 --checkpoint-steps 1 $T
state steps without a directory|--profile addmod113 --steps 3 --state-steps 1 $T
unknown option|--profile mlp13k --bogus 1 $T
option without its value|--profile mlp13k $T --steps
duplicate option|--profile mlp13k --steps 3 --steps 1 $T
duplicate profile|--profile mlp13k --profile addmod113 $T
missing profile|--steps 3 $T
unknown profile|--profile nope $T
bad seed|--profile mlp13k --seed -1 $T
threads out of range|--profile addmod113 --threads 65 $T
resume without from-step|--profile mlp13k --resume $work/empty $T
from-step beyond steps|--profile mlp13k --steps 2 --resume $work/empty --from-step 3 $T
from-step with a leading zero|--profile mlp13k --steps 2 --resume $work/empty --from-step 01 $T
resume without state|--profile mlp13k --steps 2 --resume $work/empty --from-step 1 $T
resume gptchar without state|--profile gptchar --steps 2 --resume $work/empty --from-step 1 $T
EOF
if [ "$fails" -ne 0 ]; then
    echo "check-iut-front-ends: $fails command line(s) refused differently"
    exit 1
fi
echo "check-iut-front-ends: PASS: both front ends refuse every line of the table alike"
