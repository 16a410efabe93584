#!/bin/sh
# Usage: ci/conformance-kernels.sh CONFORM ISOTRAIN OUT_DIR [STEPS]
# Certifies every kernel set this CPU runs (`isotrain info` kernels_available),
# each with ISOTRAIN_KERNELS forced, in two runs:
#   1. vectors/v1.0.0 in full (`run --level all`: every op vector, mlp13k's
#      200 steps, fresh cases): PASS (full certification), receipt
#      OUT_DIR/kernels-<set>.json;
#   2. vectors/v1.2.0 with --windows (every op vector of the three profiles,
#      addmod113's windows 0-1, 150-151, 299-300 and gptchar's 0-3, 250-253,
#      497-500 resumed from their golden states, fresh cases) and training
#      runs of STEPS steps (default 20; PARTIAL by --steps alone), or with
#      STEPS=all every profile in full (PASS: make conformance-kernels-full,
#      the scheduled tier; portable's 300 addmod113 steps cost minutes);
#      receipts OUT_DIR/kernels-v1.2.0/kernels-<set>.json, judged by the
#      windows matrix's table (ci/matrix_windows_table.py, one row per set:
#      no failed case, every step asked for passed, every window passed, a
#      whole run PASS).
# Each receipt must verify, and its hello line must name the set that was
# forced (so a run cannot silently certify another set); forcing a set that
# is unknown or that this CPU cannot run must be refused (exit 2) rather than
# replaced.
set -u
conform=${1:?usage: ci/conformance-kernels.sh CONFORM ISOTRAIN OUT_DIR}
iut=${2:?isotrain}
out=${3:?output directory}
steps=${4:-20}
case $steps in
    all | [0-9] | [0-9]*[0-9]) ;;
    *) echo "conformance-kernels: STEPS is a step count or 'all', not '$steps'" >&2; exit 2 ;;
esac
mkdir -p "$out"
sets=$("$iut" info | sed -n 's/^kernels_available=//p' | tr ',' ' ')
[ -n "$sets" ] || { echo "conformance-kernels: $iut info lists no kernel set" >&2; exit 1; }
fail=0
for k in $sets; do
    if ISOTRAIN_KERNELS=$k "$conform" run --iut-exec "$iut" --vectors vectors/v1.0.0 --level all --receipt "$out/kernels-$k.json" \
        > "$out/kernels-$k.log" 2>&1 && grep -q "; PASS (full certification)$" "$out/kernels-$k.log"; then
        verdict=pass
    else
        verdict=FAIL
        fail=1
    fi
    hello=$(python3 "$(dirname "$0")/receipt_json.py" "$out/kernels-$k.json" | sed -n 's/^ *"hello": "\(.*\)",*$/\1/p')
    if ! printf '%s\n' "$hello" | grep -q " kernels=$k\$"; then
        echo "conformance-kernels: $k: the receipt's hello line does not name kernels=$k" >&2
        verdict=FAIL
        fail=1
    fi
    # this machine's own fresh, unsigned receipt: it must verify (every
    # verdict recomputed), and is accepted unsigned only because we say so
    if ! "$conform" verify --allow-unsigned "$out/kernels-$k.json" > "$out/kernels-$k.verify" 2>&1; then
        echo "conformance-kernels: $k: the receipt does not verify:" >&2
        cat "$out/kernels-$k.verify" >&2
        verdict=FAIL
        fail=1
    fi
    echo "conformance-kernels: kernels=$k: $verdict: $(tail -n 1 "$out/kernels-$k.log")"
done
# negative controls: no silent fallback to another set
for bad in no-such-set $(for k in sse2 avx avx2 avx512 neon; do case " $sets " in *" $k "*) ;; *) echo "$k" ;; esac; done); do
    ISOTRAIN_KERNELS=$bad "$iut" hello > /dev/null 2> "$out/refused-$bad.err"
    rc=$?
    if [ "$rc" -ne 2 ]; then
        echo "conformance-kernels: ISOTRAIN_KERNELS=$bad: exit $rc, expected 2 (refused)" >&2
        fail=1
    else
        echo "conformance-kernels: ISOTRAIN_KERNELS=$bad refused: $(cat "$out/refused-$bad.err")"
    fi
done
# 2. vectors/v1.2.0: every profile's op vectors and windows per set
py=${PYTHON:-/usr/bin/python3}
table=$(dirname "$0")/matrix_windows_table.py
"$py" "$table" --self-test || exit 2
v12=$out/kernels-v1.2.0
mkdir -p "$v12"
: > "$v12/plan.tsv"
for k in $sets; do
    rm -f "$v12/kernels-$k.json" "$v12/kernels-$k.verified"
    set --
    [ "$steps" = all ] || set -- --steps "$steps"
    t0=$(date +%s)
    ISOTRAIN_KERNELS=$k "$conform" run --iut-exec "$iut" --vectors vectors/v1.2.0 --windows "$@" --timeout-run 3600 \
        --receipt "$v12/kernels-$k.json" > "$v12/kernels-$k.log" 2>&1
    "$conform" verify --allow-unsigned "$v12/kernels-$k.json" > "$v12/kernels-$k.verify" 2>&1
    echo $? > "$v12/kernels-$k.verified"
    hello=$(python3 "$(dirname "$0")/receipt_json.py" "$v12/kernels-$k.json" 2>/dev/null | sed -n 's/^ *"hello": "\(.*\)",*$/\1/p')
    if ! printf '%s\n' "$hello" | grep -q " kernels=$k\$"; then
        echo "conformance-kernels: $k (v1.2.0): the receipt's hello line does not name kernels=$k" >&2
        fail=1
    fi
    printf 'kernels-%s\tnative\tpass\t1\t%s\t%s\n' "$k" "$steps" "$iut" >> "$v12/plan.tsv"
    echo "conformance-kernels: kernels=$k v1.2.0 --windows${1:+ $1 $2}: $(( $(date +%s) - t0 )) s: $(tail -n 1 "$v12/kernels-$k.log")"
done
"$py" "$table" "$v12" vectors/v1.2.0 windows "" || fail=1
[ $fail -eq 0 ] && echo "conformance-kernels: every kernel set of this CPU certified ($sets): v1.0.0 in full, v1.2.0 $( [ "$steps" = all ] && echo "in full" || echo "$steps-step runs") and every window"
exit $fail
