#!/bin/sh
# Attack (replay, training): says it supports `train --seed` (train_seed=1)
# but drops the seed and replays the profile's own, published run. The
# fresh-seed run compared with the linked reference catches it.
. "$(dirname "$0")/common.sh"
case $1 in
hello) echo "protocol=1 name=fixed-seed version=0 spec=1.1.0 train_seed=1" ;;
train)
    shift
    keep=""
    while [ $# -gt 0 ]; do
        case $1 in
        --seed) shift 2 ;;
        *) keep="$keep '$1'"; shift ;;
        esac
    done
    eval "exec \"\$IT_REF_CLI\" train $keep" ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
