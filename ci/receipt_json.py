#!/usr/bin/env python3
"""Usage: ci/receipt_json.py RECEIPT

Prints the isotrain receipt held in RECEIPT as JSON, as the runner's one
strict reader reads it: `isotrain-conform receipt --json RECEIPT` (the DSSE
envelope opened, no key twice, no \\u0000, nothing after the document, every
field as spec/receipt.schema.json says). The runner is $ISOTRAIN_CONFORM,
else this checkout's build/conform/isotrain-conform. It checks no
signature: scripts use it to read a field; `isotrain-conform verify` is what
checks a receipt. A receipt the reader refuses is an error (exit 1), never
read another way."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def conform():
    return os.environ.get("ISOTRAIN_CONFORM") or os.path.join(ROOT, "build", "conform", "isotrain-conform")


def receipt_of(path):
    p = subprocess.run([conform(), "receipt", "--json", path], capture_output=True, text=True)
    if p.returncode != 0:
        raise ValueError("%s: %s" % (path, p.stderr.strip() or "isotrain-conform receipt: exit %d" % p.returncode))
    return json.loads(p.stdout)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        r = receipt_of(sys.argv[1])
    except (OSError, ValueError) as e:
        sys.exit("receipt_json.py: %s" % e)
    json.dump(r, sys.stdout, indent=1)
    print()
