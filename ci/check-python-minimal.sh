#!/bin/sh
# Usage: ci/check-python-minimal.sh CONFORM
# spec/iut-protocol.md P9: the standard-library example IUT passes the op
# groups it implements, fresh cases included (a filtered ops-only run is
# PARTIAL, P10); over every group it must NOT pass, because the ops
# it does not implement are skipped and a skipped case never counts as passed.
set -u
conform=$1
iut='python3 adapters/python-minimal/iut.py'
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# a filtered, ops-only run is PARTIAL (exit 3) at best (iut-protocol.md P10);
# every case of its groups, the fresh ones included, must pass
"$conform" run --vectors vectors/v1.0.0 --iut "$iut" --level ops --filter dot --filter philox --filter rng \
    --filter sgd --filter tanh_backward >"$out" 2>&1
rc=$?
if [ $rc -ne 3 ] || ! grep -q "level ops: PASS" "$out" || ! grep -q "level fresh: PASS" "$out"; then
    cat "$out"
    echo "python-minimal: FAIL: its own op groups (published and fresh cases) did not pass (exit $rc, expected 3: PARTIAL)" >&2
    exit 1
fi
tail -n 2 "$out"

if "$conform" run --vectors vectors/v1.0.0 --iut "$iut" --level ops >"$out" 2>&1; then
    cat "$out"
    echo "python-minimal: FAIL: a run with unsupported ops reported PASS" >&2
    exit 1
fi
grep -q "level ops: NOT REACHED" "$out" || { cat "$out"; echo "python-minimal: FAIL: expected 'level ops: NOT REACHED'" >&2; exit 1; }
echo "python-minimal: its 5 op groups pass; over all groups the level is NOT REACHED, as it must be"
