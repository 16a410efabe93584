#!/bin/sh
# Usage: ci/mpi-private-tmp.sh [--killed] CMD ARG...
#
# Runs CMD (a runner or mpirun command) with a TMPDIR of its own, made
# inside the current one, where Open MPI also puts its shared-memory
# segments (OMPI_MCA_btl_vader_backing_directory; by default they go to
# /dev/shm, outside any TMPDIR). Open MPI keeps a session directory
# (ompi.HOST.UID/) and those segments there while a job runs.
#
# Afterwards: when every mpirun ended by itself, Open MPI has removed what it
# made, and anything left is an error (exit 1, listed). Through
# build/mpi/isotrain-mpirun (mk/mpi.mk's MPI_IUT) Open MPI's files are on the
# job's own tmpfs instead, so nothing may be left even after a SIGKILLed
# mpirun. With --killed (plain mpirun only), CMD is expected to have
# SIGKILLed an mpirun (the runner does at a deadline: P8), which cannot
# clean up after itself: what it left is listed and removed. Either way the private TMPDIR is removed, so make test's TMPDIR
# (ci/check-leftovers.sh) stays empty. Exit status: CMD's, or 1 for an
# unexpected leftover.
set -u
killed=0
[ "${1:-}" = --killed ] && { killed=1; shift; }
[ $# -ge 1 ] || { echo "usage: $0 [--killed] CMD ARG..." >&2; exit 2; }
base=${TMPDIR:-/tmp}
mkdir -p "$base"
tmp=$(mktemp -d "$base/isotrain-mpi.XXXXXX") || exit 2
TMPDIR=$tmp OMPI_MCA_btl_vader_backing_directory=$tmp "$@"
rc=$?
left=$(cd "$tmp" && find . -mindepth 1 -maxdepth 2 | sort | sed 's|^\./||')
if [ -n "$left" ]; then
    if [ $killed = 1 ]; then
        echo "mpi-private-tmp: a killed mpirun left (removed now):" $left
    else
        echo "mpi-private-tmp: Open MPI left files after runs that ended by themselves:" $left >&2
        [ $rc = 0 ] && rc=1
    fi
fi
rm -rf "$tmp"
exit $rc
