#!/bin/sh
# The reference, except that every mlp13k checkpoint from step 2 on has the
# lowest bit of its first byte flipped: right at steps 0 and 1 (all that
# `--steps 1` trains), wrong everywhere after. Issue 27 item 1: on main,
# `run --windows --steps 1` on vectors/v1.2.0 (no mlp13k windows shipped)
# never looked past step 1 of mlp13k; fresh windows drawn over its whole run
# must catch it.
. "$(dirname "$0")/common.sh"
case $1 in
train)
    shift; parse_train "$@"
    ref_train "$@" || exit $?
    [ "$PROFILE" = mlp13k ] || exit 0
    flip_checkpoints_after 1 ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
