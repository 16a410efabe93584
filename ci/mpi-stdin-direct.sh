#!/bin/sh
# Usage: ci/mpi-stdin-direct.sh 'IUT with -np NP'
#
# make test-mpi-stdin (in make test-mpi): through isotrain-mpirun the op
# requests reach rank 0 on the caller's own pipe, never through mpirun's
# stdin forwarding, whose end-of-input handling crashes mpirun itself
# (SIGSEGV in orte_iof_hnp_read_local_handler, open-mpi/ompi#7483: about 1
# ops session in 10 on 2 ranks; reference/mpi/stdin_direct.c). An ops session
# on 2 ranks with a FIFO as its stdin, checked while it runs:
#   - rank 0's fd 0 is that FIFO, and mpirun's is /dev/null (it forwards
#     nothing, so its crashing path never runs);
#   - both requests are answered, in order, and closing the FIFO ends the
#     job with exit 0.
# Negative control: the same with plain mpirun (the IUT before this check),
# where rank 0's fd 0 must be found to be another pipe (mpirun's), or the
# check proves nothing. Rank 0 is found among this run's processes only (an
# environment mark, its OMPI_COMM_WORLD_RANK), never by name.
set -u
tmpl=${1:?usage: ci/mpi-stdin-direct.sh IUT-TEMPLATE}
mark="mpi-stdin-$$-$(date +%s)"
export MPI_STDIN_MARK="$mark"
bad=0
fail() { echo "test-mpi-stdin: $*" >&2; bad=1; }

rank0() { # the pid of this script's rank 0, if it runs
    for d in /proc/[0-9]*; do
        env=$({ tr '\0' '\n' <"$d/environ"; } 2>/dev/null) || continue
        printf '%s\n' "$env" | grep -qx "MPI_STDIN_MARK=$mark" || continue
        printf '%s\n' "$env" | grep -qx "OMPI_COMM_WORLD_RANK=0" || continue
        echo "${d#/proc/}"
        return 0
    done
    return 1
}

# session LABEL IUT: one ops session on a FIFO; sets r0_in and run_in (what
# rank 0's and the started process's fd 0 are), answers, rc; dir: the FIFO's
session() {
    label=$1
    dir=$(mktemp -d "${TMPDIR:-/tmp}/mpi-stdin.XXXXXX") || exit 2
    mkfifo "$dir/in" || exit 2
    # Open MPI's own files in this directory (plain mpirun makes them in TMPDIR)
    # shellcheck disable=SC2086
    TMPDIR=$dir OMPI_MCA_btl_vader_backing_directory=$dir $2 ops <"$dir/in" >"$dir/out" 2>"$dir/err" &
    pid=$!
    exec 3>"$dir/in"
    printf 'id=s/1 op=exp x=3f800000\n' >&3
    i=0
    while ! grep -q '^id=s/1 ' "$dir/out" && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    r0=$(rank0) || r0=
    r0_in=$( [ -n "$r0" ] && readlink "/proc/$r0/fd/0") || r0_in="(rank 0 not found)"
    run_in=$(readlink "/proc/$pid/fd/0") || run_in="(gone)"
    printf 'id=s/2 op=exp x=00000000\n' >&3
    exec 3>&-
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -0 "$pid" 2>/dev/null && { fail "$label: still running 60 s after its input ended: killed"; kill -9 "$pid"; }
    wait "$pid"
    rc=$?
    answers=$(grep -c '^id=s/[12] y=' "$dir/out")
    echo "test-mpi-stdin: $label: rank 0 reads $r0_in, the launched mpirun $run_in; $answers of 2 answered, exit $rc"
    if [ "$answers" != 2 ] || [ "$rc" != 0 ]; then
        fail "$label: the session did not end well; its stderr:"
        sed 's/^/    /' "$dir/err" >&2
    fi
}

iut=$(printf '%s\n' "$tmpl" | sed 's/-np NP /-np 2 /')
session "isotrain-mpirun" "$iut"
[ "$r0_in" = "$dir/in" ] || fail "isotrain-mpirun: rank 0 reads $r0_in, not the caller's pipe $dir/in: mpirun forwards the requests"
[ "$run_in" = /dev/null ] || fail "isotrain-mpirun: mpirun's stdin is $run_in, not /dev/null: it could forward"
rm -rf "$dir"

plain=$(printf '%s\n' "$iut" | sed 's|^[^ ]*isotrain-mpirun |mpirun |')
session "control, plain mpirun" "$plain"
case $r0_in in
"$dir/in" | "(rank 0 not found)") fail "control: plain mpirun: rank 0 reads $r0_in: the check cannot tell forwarding" ;;
esac
rm -rf "$dir"

[ $bad = 0 ] || { echo "test-mpi-stdin: FAILED" >&2; exit 1; }
echo "test-mpi-stdin: rank 0 reads the requests from the caller's pipe; mpirun forwards none (the control's rank 0 reads mpirun's pipe)"
