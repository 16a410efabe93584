#!/bin/sh
# Usage: ci/check-python-minimal.sh CONFORM
# spec/iut-protocol.md P9: the standard-library example IUT passes the op
# groups it implements; over every group it must NOT pass, because the ops
# it does not implement are skipped and a skipped case never counts as passed.
set -u
conform=$1
iut='python3 adapters/python-minimal/iut.py'
out=$(mktemp)
trap 'rm -f "$out"' EXIT

if ! "$conform" run --iut "$iut" --level ops --filter dot --filter philox --filter rng \
        --filter sgd --filter tanh_backward >"$out" 2>&1; then
    cat "$out"
    echo "python-minimal: FAIL: its own op groups did not pass" >&2
    exit 1
fi
tail -n 2 "$out"

if "$conform" run --iut "$iut" --level ops >"$out" 2>&1; then
    cat "$out"
    echo "python-minimal: FAIL: a run with unsupported ops reported PASS" >&2
    exit 1
fi
grep -q "level ops: NOT REACHED" "$out" || { cat "$out"; echo "python-minimal: FAIL: expected 'level ops: NOT REACHED'" >&2; exit 1; }
echo "python-minimal: its 5 op groups pass; over all groups the level is NOT REACHED, as it must be"
