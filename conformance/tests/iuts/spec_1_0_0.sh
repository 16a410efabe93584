#!/bin/sh
# A correct implementation of spec 1.0.0 (profile mlp13k only), built from
# the reference: its hello claims spec=1.0.0 without train_seed=1 (P2's
# capability keys arrived in 1.1.0); the ops of 1.1.0 (sqrt, relu, attention,
# adamw, addmod113) are unknown to it, answered error=unsupported (P5, as in
# 1.0.0); a profile other than mlp13k is refused as 1.0.0's P7 allowed, with
# a non-zero status that is not 64 (64 for a profile arrived in 1.1.0).
# It must get PASS on vectors/v1.0.0 and PARTIAL (never FAIL) on v1.1.0.
#
# SPEC_CLAIM (default 1.0.0) and TRAIN_SEED=1 make the same trainer claim a
# later version: the negative controls of the version rules (an IUT that
# claims 1.1.0 must answer an unknown profile with 64).
. "$(dirname "$0")/common.sh"
claim=${SPEC_CLAIM:-1.0.0}
case $1 in
hello)
    if [ "${TRAIN_SEED:-0}" = 1 ]; then
        echo "protocol=1 name=spec-$claim version=0 spec=$claim train_seed=1"
    else
        echo "protocol=1 name=spec-$claim version=0 spec=$claim"
    fi ;;
ops)
    # a 1.1.0 op becomes an op name nobody implements: the reference then
    # answers error=unsupported after checking the line's syntax (P3, P5);
    # sed -u passes each request on as it arrives (P3: one answer per line)
    sed -u -E 's/^(id=[^ ]* op=)(sqrt|relu_forward|relu_backward|attention_forward|attention_backward|adamw|addmod113_perm|addmod113_init|addmod113_loss_grad)( |$)/\1not_in_1_0_0_\2\3/' |
        "$IT_REF_CLI" ops ;;
train)
    shift
    prev=
    for a in "$@"; do
        if [ "$prev" = --profile ] && [ "$a" != mlp13k ]; then
            echo "spec-$claim: unknown profile '$a'" >&2
            exit 2
        fi
        prev=$a
    done
    exec "$IT_REF_CLI" train "$@" ;;
*) unsupported ;;
esac
