#!/bin/sh
# Usage: ci/check-matrix-kernels.sh HOSTS_FILE MATRIX_DIR
# Each host of the matrix must have run the kernel set qemu/hosts.json names
# for it ("kernels"; "best" = whatever the machine has): the set is read from
# the hello line its receipt stored (kernels=NAME). Prints one line per host.
set -u
hosts=${1:?usage: ci/check-matrix-kernels.sh HOSTS_FILE MATRIX_DIR}
dir=${2:?matrix directory}
RECEIPT_JSON_DIR=$(dirname "$0") python3 - "$hosts" "$dir" <<'PY'
import json, os, re, sys
sys.path.insert(0, os.environ["RECEIPT_JSON_DIR"])
from receipt_json import receipt_of
hosts, d = sys.argv[1], sys.argv[2]
fail = 0
for h in json.load(open(hosts))["hosts"]:
    want = h.get("kernels")
    path = os.path.join(d, h["name"] + ".json")
    if not want or not os.path.exists(path):
        print("matrix-kernels: %-20s no receipt" % h["name"])
        continue
    r = receipt_of(path)
    def find(o):
        if isinstance(o, dict):
            if isinstance(o.get("hello"), str):
                return o["hello"]
            o = list(o.values())
        if isinstance(o, list):
            for v in o:
                f = find(v)
                if f:
                    return f
        return None
    hello = find(r)
    m = re.search(r"\bkernels=(\S+)", hello or "")
    got = m.group(1) if m else None
    ok = got is not None and (want == "best" or got == want)
    fail |= not ok
    print("matrix-kernels: %-20s kernels=%-9s %s" % (h["name"], got, "ok" if ok else "EXPECTED " + want))
sys.exit(1 if fail else 0)
PY
