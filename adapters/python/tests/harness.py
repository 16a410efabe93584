"""The start every test script here shares: the package (adapters/python) and
the example models on sys.path, and --lib naming the libisotrain.so that
isotrain.torch loads (default: ISOTRAIN_LIB or the checkout's build). Import
it before isotrain: the library is chosen when the package loads."""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))


def lib_args():
    """Parses --lib and exports it as ISOTRAIN_LIB; returns the arguments."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", help="libisotrain.so (default: ISOTRAIN_LIB or the checkout's build)")
    args = ap.parse_args()
    if args.lib:
        os.environ["ISOTRAIN_LIB"] = os.path.abspath(args.lib)
    return args


failures = []


def report(what, ok, detail=()):
    """Prints ok/FAIL and the detail lines under it; a FAIL is counted in failures."""
    print("%-4s %s" % ("ok" if ok else "FAIL", what))
    for line in detail:
        print("     " + line)
    if not ok:
        failures.append(what)


def check(what, ok, detail=""):
    """ok/FAIL, with the detail only under a FAIL."""
    report(what, ok, [detail] if detail and not ok else ())
