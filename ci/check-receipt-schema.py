#!/usr/bin/env python3
"""Usage: ci/check-receipt-schema.py CONFORM RECEIPT...

The published schema against the runner and the receipts: spec/receipt.schema.json
must be what `CONFORM receipt --schema` generates from the field table
(conformance/src/trust/receipt_fields.c), a valid JSON Schema (draft 2020-12),
and every RECEIPT, as `CONFORM receipt --json` reads it, must validate against
it with python3-jsonschema, a reader that is not the runner's. The negative
control: the first receipt with levels.train.profiles[0].steps = 0.5 and with
an unknown member must each be invalid. Exit 0, or 1 naming the file and the
field."""
import json
import os
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("check-receipt-schema: python3-jsonschema is missing (apt-get install python3-jsonschema)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    conform, receipts = sys.argv[1], sys.argv[2:]
    path = os.path.join(ROOT, "spec", "receipt.schema.json")
    gen = subprocess.run([conform, "receipt", "--schema"], capture_output=True, text=True, check=True).stdout
    if open(path).read() != gen:
        sys.exit("check-receipt-schema: %s is not `isotrain-conform receipt --schema` (regenerate it)" % path)
    schema = json.loads(gen)
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    first = None
    for f in receipts:
        p = subprocess.run([conform, "receipt", "--json", f], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("check-receipt-schema: %s: the runner's reader refuses it:\n%s" % (f, p.stderr))
        r = json.loads(p.stdout)
        errs = sorted(v.iter_errors(r), key=lambda e: list(e.absolute_path))
        if errs:
            sys.exit("check-receipt-schema: %s: %s: %s" % (f, "/".join(map(str, errs[0].absolute_path)), errs[0].message))
        first = first or r
    # the controls: what the runner refuses, the schema refuses too
    bad = json.loads(json.dumps(first))
    bad["levels"]["train"]["profiles"][0]["steps"] = 0.5
    extra = json.loads(json.dumps(first))
    extra["iut"]["extra"] = 1
    for name, doc in (("steps = 0.5", bad), ("an unknown member iut.extra", extra)):
        if v.is_valid(doc):
            sys.exit("check-receipt-schema: control: a receipt with %s validates" % name)
    print("check-receipt-schema: spec/receipt.schema.json is the field table's; %d receipts validate (python3-jsonschema "
          "%s); controls: steps = 0.5 and an unknown member are invalid" % (len(receipts), "draft 2020-12"))


main()
