#!/bin/sh
# Correct but slow (issue 27 item 8): the reference's results, one second
# late per step, as an interpreted trainer on a loaded machine is. Under a
# deadline shorter than that its golden run must be a TIME-OUT that names
# --timeout-run and --slowdown, never a wrong result; with the deadline
# raised it passes.
. "$(dirname "$0")/common.sh"
case $1 in
train)
    shift; parse_train "$@"
    ref_train "$@" || exit $?
    sleep "${STEPS:-1}" ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
