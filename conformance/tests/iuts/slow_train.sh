#!/bin/sh
# Trains for ever (records its pid in $IT_ESCAPE_DIR/pid.train): the runner
# is interrupted meanwhile and must kill it, remove its work directory and
# write an ERROR receipt.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello slow-train ;;
train) host_pid; echo "$HOST_PID" > "$IT_ESCAPE_DIR/pid.train"; exec sleep 600 ;;
*) unsupported ;;
esac
