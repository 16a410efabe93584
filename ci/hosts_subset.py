#!/usr/bin/python3
"""Usage: ci/hosts_subset.py HOSTS_FILE 'NAME...' OUT.json   (make recipe-matrix)

Writes the hosts file with only the hosts named (in the file's order; "-"
or nothing keeps all, "none" keeps none: the caller's IUT alone), so `matrix` judges the
hosts that ran and lists no others as without receipt. A name the file does
not have is an error (exit 2), never a host quietly left out.
"""
import json
import sys


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    src, names, out = argv[1], argv[2].split(), argv[3]
    names = [] if names == ["none"] else names or ["-"]
    doc = json.load(open(src))
    known = [h["name"] for h in doc["hosts"]]
    unknown = [n for n in names if n not in known and names != ["-"]]
    if unknown:
        print("hosts_subset: %s: no host named %s (known: %s)" % (src, ", ".join(unknown), " ".join(known)),
              file=sys.stderr)
        return 2
    if names != ["-"]:
        doc["hosts"] = [h for h in doc["hosts"] if h["name"] in names]
    json.dump(doc, open(out, "w"), indent=1)
    print("hosts_subset: %d of %d hosts of %s in %s" % (len(doc["hosts"]), len(known), src, out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
