#!/bin/sh
# Usage: ci/check-frozen.sh ISOTRAIN FROZEN_TRACE WORKDIR
# Trains mlp13k with ISOTRAIN, hashes the checkpoint files it wrote (the
# trainer's own digests are not trusted), and compares every trace line with
# the frozen trace. Exit 0 only if every step and every checkpoint matched.
set -eu
bin=$1
frozen=$2
work=$3

[ -x "$bin" ] || { echo "check-frozen: no executable $bin" >&2; exit 2; }
[ -r "$frozen" ] || { echo "check-frozen: cannot read frozen trace $frozen" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work/checkpoints"

if ! "$bin" train --profile mlp13k --trace "$work/trace" --checkpoint-dir "$work/checkpoints" \
        --checkpoint-steps 0,50,100,150,200 2>"$work/stderr"; then
    echo "check-frozen: FAIL: training exited non-zero:" >&2
    cat "$work/stderr" >&2
    exit 1
fi

status=0
for step in 0 50 100 150 200; do
    file=$(printf '%s/checkpoints/step-%06d.bin' "$work" "$step")
    if [ ! -f "$file" ]; then
        echo "check-frozen: FAIL: checkpoint for step $step missing ($file)" >&2
        status=1
        continue
    fi
    size=$(wc -c < "$file")
    [ "$size" -eq 52352 ] || { echo "check-frozen: FAIL: $file has $size bytes, expected 52352" >&2; status=1; }
    sha256sum "$file" | awk -v s="$step" '{ print s, $1 }' >> "$work/checkpoint-digests"
done

# One awk pass: the first differing line, and the table at 50/100/150/200.
awk -v frozen="$frozen" -v ck="$work/checkpoint-digests" '
    function field(line, key,   n, i, kv) {
        n = split(line, kv, " ")
        for (i = 1; i <= n; i++) if (index(kv[i], key "=") == 1) return substr(kv[i], length(key) + 2)
        return ""
    }
    BEGIN {
        while ((getline l < ck) > 0) { split(l, p, " "); file_digest[p[1]] = p[2] }
        n = 0
        while ((getline l < frozen) > 0) want[++n] = l
    }
    { got[NR] = $0 }
    END {
        bad = 0
        lines = NR > n ? NR : n
        for (i = 1; i <= lines; i++) if (got[i] != want[i]) {
            printf "FAIL: first difference at trace line %d\n  expected: %s\n  got:      %s\n", i, want[i], got[i]
            bad = 1; break
        }
        printf "%6s  %-12s %-10s  %s\n", "step", "loss", "loss bits", "sha256 of checkpoint bytes"
        for (i = 1; i <= NR; i++) {
            s = field(got[i], "step")
            if (s in file_digest) {
                d = field(got[i], "digest")
                loss = field(got[i], "loss_dec"); bits = field(got[i], "loss")
                if (loss == "") { loss = "(init)"; bits = "-" }
                mark = (d == file_digest[s]) ? "" : "  FAIL: file hashes to " file_digest[s]
                if (mark != "") bad = 1
                printf "%6s  %-12s %-10s  %s%s\n", s, loss, bits, d, mark
            }
        }
        if (bad) exit 1
        printf "mlp13k: %d trace lines identical to %s; checkpoints 0/50/100/150/200 hash to the traced digests\n", NR, frozen
    }' "$work/trace" || status=1

if [ "$status" -eq 0 ]; then
    echo "conformance (frozen-trace check): PASS"
else
    echo "conformance (frozen-trace check): FAIL"
fi
exit "$status"
