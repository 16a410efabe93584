#!/bin/sh
# Usage: ci/matrix-addmod113.sh CONFORM HOSTS_FILE OUT_DIR [JOBS]
#
# Profile addmod113 (spec §13) on every host of the matrix: the runner at
# level all against vectors/v1.1.0 with --profile addmod113 and the host's
# step count from the hosts file ("addmod113_steps"; 300, the whole run,
# unemulated). Under QEMU one full-batch step costs about 10 s, so an
# emulated host certifies every op vector of both profiles plus a prefix of
# the training run and of a fresh-seed run; its receipt says so (verdict
# PARTIAL, scope reason "--steps N"). The table (stdout and
# OUT_DIR/MATRIX-addmod113.md) shows per host: steps certified, the verdict,
# the ops, train and fresh cases, and the digest of the last certified step
# with whether it equals the vectors'.
# Exit 0 only if every host is as the hosts file expects: a "pass" host has
# no failed case and its digests match, the expected-fail host has a failure.
set -u
conform=${1:?usage: ci/matrix-addmod113.sh CONFORM HOSTS_FILE OUT_DIR [JOBS]}
hosts=${2:?hosts file}
out=${3:?output directory}
jobs=${4:-2}
py=${PYTHON:-/usr/bin/python3}
CONFORM=$conform VECTORS=${MATRIX_VECTORS:-vectors/v1.1.0} OUT=$out
export CONFORM VECTORS OUT

mkdir -p "$out"
list=$("$conform" matrix --hosts "$hosts" --list) || exit 2
if [ -n "${MATRIX_HOSTS:-}" ]; then
    list=$(printf '%s\n' "$list" | awk -v keep=" $MATRIX_HOSTS " 'index(keep, " " $1 " ")')
fi
steps_of() { # host -> addmod113_steps (default: 300 unemulated, 1 emulated)
    "$py" -c 'import json,sys
h=[x for x in json.load(open(sys.argv[1]))["hosts"] if x["name"]==sys.argv[2]][0]
print(h.get("addmod113_steps", 300 if h.get("emulator") is None else 1))' "$hosts" "$1"
}
# Wine keeps its server's socket directory in TMPDIR and leaves it behind
# when the runner kills the server with the rest of the IUT's processes:
# the hosts run with a TMPDIR of their own, removed when this script ends.
hosts_tmp=$(mktemp -d "${TMPDIR:-/tmp}/matrix-hosts.XXXXXX") || exit 2
trap 'rm -rf "$hosts_tmp"' EXIT
export TMPDIR="$hosts_tmp"
start=$(date +%s)
printf '%s\n' "$list" | while IFS="$(printf '\t')" read -r name build expected slowdown iut; do
    rm -f "$out/$name.json" "$out/$name.log"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$build" "$expected" "$slowdown" "$(steps_of "$name")" "$iut"
done > "$out/plan.tsv"
# the cross builds the hosts need (mk/cross.mk), once each
for build in $(cut -f2 "$out/plan.tsv" | sort -u); do
    ${MAKE:-make} --no-print-directory "cross-$build" > "$out/build-$build.log" 2>&1 ||
        echo "matrix-addmod113: build $build FAILED (see $out/build-$build.log)"
done
# ISOTRAIN_THREADS=2: same bits (spec §13.5); QEMU runs guest threads on host
# threads. ISOTRAIN_EVAL=0: no §13.7 evaluation keys (optional; each costs
# three steps under QEMU)
# A negative control (expected-fail) runs the ops level only: its op vectors
# (attention, addmod113_loss_grad) are what must catch it, and a training
# failure would start an op-level replay of a full-batch step, which under
# QEMU's x87 emulation takes most of the case time-out (20 min).
while IFS="$(printf '\t')" read -r name build expected slowdown steps iut; do
    level=all
    [ "$expected" = expected-fail ] && level=ops
    printf '%s\0%s\0%s\0%s\0%s\0' "$name" "$slowdown" "$steps" "$iut" "$level"
done < "$out/plan.tsv" | xargs -0 -n 5 -P "$jobs" sh -c '
    name=$1 slowdown=$2 steps=$3 iut=$4 level=$5
    t0=$(date +%s)
    ISOTRAIN_THREADS=2 ISOTRAIN_EVAL=0 "$CONFORM" run --iut "$iut" --vectors "$VECTORS" --profile addmod113 --steps "$steps" \
        --level "$level" --slowdown "$slowdown" --timeout-run 3600 --host "$name" --receipt "$OUT/$name.json" > "$OUT/$name.log" 2>&1
    echo "matrix-addmod113: $name: $steps steps, $(( $(date +%s) - t0 )) s: $(tail -n 1 "$OUT/$name.log" | cut -c1-90)"
' sh
echo "matrix-addmod113: $(( $(date +%s) - start )) s wall clock ($jobs hosts at a time)"
"$py" - "$out" <<'PYEOF'
import base64, json, os, sys
out = sys.argv[1]
rows, ok = [], True
for line in open(os.path.join(out, "plan.tsv")):
    name, build, expected, slowdown, steps, iut = line.rstrip("\n").split("\t")
    path = os.path.join(out, name + ".json")
    try:
        env = json.load(open(path))
        r = json.loads(base64.b64decode(env["payload"]))["predicate"]["isotrainReceipt"]
    except Exception as e:  # no receipt: the run did not finish
        rows.append((name, steps, "NO RECEIPT", "", "", "", "", str(e)[:40])); ok = False; continue
    c, lv = r["counts"], r["levels"]
    prof = [p for p in lv.get("train", {}).get("profiles", []) if p["profile"] == "addmod113"]
    cks = prof[0]["checkpoints"] if prof else []
    last = max((k for k in cks if k.get("reached")), key=lambda k: k["step"], default=None)
    tally = {}
    for case in r.get("cases", []):
        lvl = case.get("level"); v = case.get("verdict")
        t = tally.setdefault(lvl, [0, 0]); t[0 if v == "PASS" else 1] += v in ("PASS", "FAIL", "ERROR")
    failed = c["failed"] + c["errors"]
    match = bool(last and last.get("matches_vectors"))
    good = (failed == 0 and match) if expected == "pass" else failed > 0
    ok &= good
    rows.append((name, steps + ("" if int(steps) >= 300 else " (prefix)"), r["verdict"],
                 "%d/%d" % tuple(tally.get("ops", [0, 0])), "%d/%d" % tuple(tally.get("train", [0, 0])),
                 "%d/%d" % tuple(tally.get("fresh", [0, 0])),
                 ("step %d %s %s" % (last["step"], (last.get("sha256") or "-")[:16], "= vectors" if match else "DIFFERS"))
                 if last else "-", "as expected" if good else "NOT AS EXPECTED (%s)" % expected))
head = ("host", "addmod113 steps", "verdict", "ops pass/fail", "train pass/fail", "fresh pass/fail",
        "last certified step: digest", "")
md = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)] + ["| " + " | ".join(map(str, r)) + " |" for r in rows]
text = ("Profile addmod113 on the host matrix (vectors/v1.1.0; emulated hosts certify every op vector and a "
        "prefix of steps, so their verdict is PARTIAL by design)\n\n" + "\n".join(md) + "\n")
open(os.path.join(out, "MATRIX-addmod113.md"), "w").write(text)
print(text)
sys.exit(0 if ok else 1)
PYEOF
