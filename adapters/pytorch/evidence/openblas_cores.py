#!/usr/bin/env python3
"""Which OpenBLAS kernel sets give the reference BLAS's bits on pinned mlp13k?
The command behind adapters/pytorch/README.md ("R2 and OpenBLAS").

    openblas_cores.py --conform build/conform/isotrain-conform --openblas DIR \\
                      [--python /usr/bin/python3] [--steps 20] [--cores Prescott,Core2,...]

DIR holds OpenBLAS's libblas.so.3 (ci/openblas-private.sh prints it). Trains
mlp13k natively with PyTorch pinned (ATEN_CPU_CAPABILITY=default, one thread)
once with the system's reference BLAS, then once per OPENBLAS_CORETYPE with
libblas.so.3 resolved to OpenBLAS (LD_LIBRARY_PATH, OPENBLAS_NUM_THREADS=1),
and prints per core type the kernel set OpenBLAS reports it used
(openblas_get_corename, via iut.py's diagnostics) and the runner's `compare`
verdict against the reference-BLAS run. A core type whose kernels need
instructions this CPU lacks ends the process (SIGILL): reported as such.
Informative; exit 0 when every comparison that could run ran, 2 otherwise.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ADAPTER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORES = "Prescott,Core2,Penryn,Nehalem,Sandybridge,Haswell,Zen,SkylakeX"


def train(a, trace, openblas=None, core=None):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "OPENBLAS_CORETYPE")}
    env.update(ATEN_CPU_CAPABILITY="default", ISOTRAIN_TORCH_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    if openblas:
        env.update(LD_LIBRARY_PATH=openblas, OPENBLAS_NUM_THREADS="1")
    if core:
        env["OPENBLAS_CORETYPE"] = core
    p = subprocess.run([a.python, os.path.join(ADAPTER, "iut.py"), "train", "--profile", "mlp13k",
                        "--steps", str(a.steps), "--trace", trace], env=env, capture_output=True, text=True)
    m = re.search(r"openblas_core=(\S+)", p.stderr)
    so = re.search(r"blas_so=(\S+)", p.stderr)
    return p.returncode, (m.group(1) if m else "?"), (so.group(1) if so else "?")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conform", required=True)
    ap.add_argument("--openblas", required=True)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--cores", default=CORES)
    a = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "reference.trace")
        rc, _, so = train(a, ref)
        if rc != 0 or "openblas" in so:
            print("openblas_cores: the reference-BLAS run failed or loaded %s (exit %d)" % (so, rc))
            return 2
        print("pinned mlp13k, %d steps, OpenBLAS (%s) with OPENBLAS_CORETYPE=X against the reference BLAS (%s):"
              % (a.steps, a.openblas, so))
        for core in [c for c in a.cores.split(",") if c]:
            t = os.path.join(tmp, core + ".trace")
            rc, used, so = train(a, t, a.openblas, core)
            if rc < 0 or rc == 128 + 4:
                print("  %-12s did not run on this CPU (signal %d: its kernels need instructions this CPU lacks)"
                      % (core, -rc if rc < 0 else 4))
                continue
            if rc != 0 or not so.startswith(a.openblas.rstrip("/") + "/"):
                print("  %-12s ERROR: exit %d, loaded %s" % (core, rc, so))
                bad += 1
                continue
            p = subprocess.run([a.conform, "compare", ref, t], capture_output=True, text=True)
            verdict = next((ln for ln in p.stdout.splitlines() if ln.startswith(("identical", "first differing step"))),
                           "runner exit %d" % p.returncode)
            print("  %-12s %-28s %s" % (core, "(OpenBLAS used %s)" % used, verdict))
            bad += p.returncode not in (0, 1)
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
