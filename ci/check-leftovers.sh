#!/bin/sh
# Usage: ci/check-leftovers.sh TMPDIR MARK
#        ci/check-leftovers.sh --self-test
# After `make test`: no process the suite started is still running, and no
# work directory is left in the suite's TMPDIR. The suite's processes are
# the ones whose environment carries ISOTRAIN_SUITE_RUN=MARK (make test
# exports it); this script and its ancestors (make, the shell) are exempt.
# --self-test plants a leftover process and a leftover directory and
# checks that both are reported (the negative control of this check).
set -u

pid_ancestors() { # the pids from $1 up to 1
    p=$1
    while [ "$p" -gt 1 ] 2>/dev/null; do
        printf ' %s ' "$p"
        p=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f2) || break
        [ -n "$p" ] || break
    done
}

check() { # check TMPDIR MARK: prints what is left, exits 1 if anything
    tmp=$1 mark=$2 bad=0
    exempt=$(pid_ancestors $$)
    for d in /proc/[0-9]*; do
        pid=${d#/proc/}
        case $exempt in *" $pid "*) continue ;; esac
        if { tr '\0' '\n' < "$d/environ"; } 2>/dev/null | grep -qx "ISOTRAIN_SUITE_RUN=$mark"; then
            cmd=$({ tr '\0' ' ' < "$d/cmdline"; } 2>/dev/null | cut -c1-160)
            state=$({ sed 's/.*) //' "$d/stat"; } 2>/dev/null | cut -d' ' -f1)
            [ "$state" = Z ] && continue # exited, its parent has not reaped it yet
            echo "check-leftovers: still running: pid $pid: $cmd" >&2
            bad=1
        fi
    done
    if [ -d "$tmp" ] && [ -n "$(ls -A "$tmp")" ]; then
        echo "check-leftovers: left in $tmp:" >&2
        ls -A "$tmp" | sed 's/^/  /' >&2
        bad=1
    fi
    return $bad
}

if [ "${1:-}" = --self-test ]; then
    tmp=$(mktemp -d)
    mark="self-test-$$"
    ISOTRAIN_SUITE_RUN=$mark sleep 30 &
    planted=$!
    mkdir "$tmp/isotrain-conform.planted"
    out=$(check "$tmp" "$mark" 2>&1); rc=$?
    kill "$planted" 2>/dev/null; wait "$planted" 2>/dev/null
    rm -rf "$tmp"
    case $rc:$out in
    1:*"still running: pid $planted"*"isotrain-conform.planted"*)
        echo "check-leftovers: self-test: a planted process and directory were both reported" ;;
    *)
        echo "check-leftovers: self-test FAILED (exit $rc): $out" >&2
        exit 1 ;;
    esac
    exit 0
fi

[ $# -eq 2 ] || { echo "usage: $0 TMPDIR MARK | --self-test" >&2; exit 2; }
if check "$1" "$2"; then
    echo "check-leftovers: no process of the suite is running and $1 is empty"
else
    exit 1
fi
