#!/usr/bin/env python3
"""Usage: ci/receipt_json.py RECEIPT

Prints the isotrain receipt held in RECEIPT as JSON: the file itself when it
is a plain receipt, or, for a DSSE envelope (what `isotrain-conform run`
writes), the receipt inside its in-toto Statement (predicate.isotrainReceipt).
It checks no signature: scripts use it to read a field; `isotrain-conform
verify` is what checks a receipt."""
import base64
import json
import sys


def receipt_of(path):
    with open(path) as f:
        doc = json.load(f)
    if isinstance(doc, dict) and "payloadType" in doc:
        statement = json.loads(base64.b64decode(doc["payload"]))
        return statement["predicate"]["isotrainReceipt"]
    return doc


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    json.dump(receipt_of(sys.argv[1]), sys.stdout, indent=1)
    print()
