#!/bin/sh
# A correct implementation of spec 1.1 (profiles mlp13k and addmod113, the
# fresh-seed run), built from the reference: its hello claims spec=1.1.1
# with train_seed=1; gptchar (1.2.0) is a profile it cannot know, refused
# with 64 as 1.1.0's P7 says, in the golden run and in the fresh-seed run
# alike. On vectors/v1.2.0 it is judged by 1.1: never a FAIL for gptchar.
# (Its ops verb is the reference's, which also answers 1.2.0's ops: an IUT
# may do more than it claims.) REFUSE_PROFILE=mlp13k, the negative control,
# refuses a profile it claims instead.
. "$(dirname "$0")/common.sh"
case $1 in
hello) echo "protocol=1 name=spec-1.1 version=0 spec=1.1.1 train_seed=1" ;;
ops) exec "$IT_REF_CLI" ops ;;
train)
    shift
    prev=
    for a in "$@"; do
        if [ "$prev" = --profile ] && [ "$a" = "${REFUSE_PROFILE:-gptchar}" ]; then
            echo "spec-1.1: unknown profile '$a'" >&2
            exit 64
        fi
        prev=$a
    done
    exec "$IT_REF_CLI" train "$@" ;;
*) unsupported ;;
esac
