#!/bin/sh
# Answers hello like the reference, then, in ops or train, starts a child
# that leaves its process group and session (setsid) and sleeps, records
# both pids (as the host sees them: common.sh host_pid) in
# $IT_ESCAPE_DIR/pid.<verb> and pid.<verb>.child, and sleeps itself: the
# test kills the runner with SIGKILL meanwhile, and nothing of this tree may
# survive it (spec/iut-protocol.md P8, "Containment").
. "$(dirname "$0")/common.sh"
case $1 in
hello) exec "$IT_REF_CLI" hello ;;
ops | train)
    setsid sh -c 'read -r p _ < /proc/self/stat; echo $p > "$IT_ESCAPE_DIR/pid.$1.child"; exec sleep 600' sh "$1" \
        </dev/null >/dev/null 2>&1 &
    host_pid
    echo "$HOST_PID" > "$IT_ESCAPE_DIR/pid.$1"
    exec sleep 600 ;;
*) unsupported ;;
esac
