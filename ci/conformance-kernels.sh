#!/bin/sh
# Usage: ci/conformance-kernels.sh CONFORM ISOTRAIN OUT_DIR
# Certifies every kernel set this CPU runs (`isotrain info` kernels_available),
# one full `isotrain-conform run --level all` each with ISOTRAIN_KERNELS
# forced, a receipt per set in OUT_DIR/kernels-<set>.json; then checks that
# each receipt's hello line names the set that was forced (so a run cannot
# silently certify another set), and that forcing a set that is unknown or
# that this CPU cannot run is refused (exit 2) rather than replaced.
set -u
conform=${1:?usage: ci/conformance-kernels.sh CONFORM ISOTRAIN OUT_DIR}
iut=${2:?isotrain}
out=${3:?output directory}
mkdir -p "$out"
sets=$("$iut" info | sed -n 's/^kernels_available=//p' | tr ',' ' ')
[ -n "$sets" ] || { echo "conformance-kernels: $iut info lists no kernel set" >&2; exit 1; }
fail=0
for k in $sets; do
    if ISOTRAIN_KERNELS=$k "$conform" run --iut-exec "$iut" --level all --receipt "$out/kernels-$k.json" \
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
[ $fail -eq 0 ] && echo "conformance-kernels: every kernel set of this CPU certified ($sets)"
exit $fail
