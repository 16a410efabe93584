#!/usr/bin/env python3
"""`make pytorch-divergence`: three questions about an ordinary PyTorch model
(addmod113.py), answered by the isotrain runner, plus the divergence curve.

  1. Does it repeat itself on this machine (same seed twice)?
         isotrain-conform repeat --runs N --iut '<python> addmod113.py' --profile addmod113
  2. Where does it first differ between kernel sets (ATEN_CPU_CAPABILITY=default vs avx2)?
         isotrain-conform compare <trace default> <trace avx2>
     once with PyTorch's own initialisation and once with ADDMOD113_INIT=portable
     (same initial bytes everywhere), so training-kernel differences show alone.
  3. How fast does the gap grow? divergence.py: loss gap and max-abs parameter
     gap per step -> OUT/divergence.csv, OUT/divergence.svg.

    addmod113_study.py --conform PATH --python PY --out build/pytorch [--steps 300] [--repeat-runs 2]

Outputs of the runner: OUT/repeat.txt, OUT/compare-*.txt; traces in OUT/runs/.
Checkpoints (~77 MB per run) are deleted after the curve is computed unless
--keep-checkpoints.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from runlog import Tee

HERE = os.path.dirname(os.path.abspath(__file__))
PROG = os.path.join(HERE, "addmod113.py")


def clean_env(**kw):
    env = {k: v for k, v in os.environ.items()
           if k not in ("ATEN_CPU_CAPABILITY", "ISOTRAIN_TORCH_THREADS", "ADDMOD113_INIT", "ADDMOD113_SEED")}
    env.update({k: str(v) for k, v in kw.items() if v is not None})
    return env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conform", required=True)
    ap.add_argument("--python", default="python3")
    ap.add_argument("--out", default="build/pytorch")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--repeat-runs", type=int, default=2)
    ap.add_argument("--repeat-threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep-checkpoints", action="store_true")
    a = ap.parse_args()
    py = os.path.realpath(shutil.which(a.python) or a.python)
    runs_dir = os.path.join(a.out, "runs")
    os.makedirs(runs_dir, exist_ok=True)
    sys.stdout = Tee(os.path.join(a.out, "study.txt"), sys.stdout)
    timings = {}

    # 1. repeat
    if a.repeat_runs >= 2:
        t0 = time.time()
        cmd = [a.conform, "repeat", "--runs", str(a.repeat_runs), "--iut", "%s %s" % (py, os.path.relpath(PROG)),
               "--profile", "addmod113", "--steps", str(a.steps)]
        p = subprocess.run(cmd, capture_output=True, text=True,
                           env=clean_env(ISOTRAIN_TORCH_THREADS=a.repeat_threads))
        timings["repeat"] = time.time() - t0
        text = "$ ISOTRAIN_TORCH_THREADS=%d %s\n%s%s" % (a.repeat_threads, " ".join(
            "'%s'" % c if " " in c else c for c in cmd), p.stdout, p.stderr)
        with open(os.path.join(a.out, "repeat.txt"), "w") as f:
            f.write(text)
        print(text.rstrip())
        print()
        if p.returncode not in (0, 1):
            print("addmod113_study: the runner's repeat failed (exit %d)" % p.returncode, file=sys.stderr)
            return 2

    # 2. four training runs, two at a time
    legs = [("torch-init-default", "torch", "default"), ("torch-init-avx2", "torch", "avx2"),
            ("portable-init-default", "portable", "default"), ("portable-init-avx2", "portable", "avx2")]

    def train(leg):
        name, init, cap = leg
        d = os.path.join(runs_dir, name)
        ck = os.path.join(d, "checkpoints")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(ck)
        t0 = time.time()
        with open(os.path.join(d, "stderr.txt"), "w") as err:
            rc = subprocess.call([py, PROG, "train", "--profile", "addmod113", "--steps", str(a.steps),
                                  "--trace", os.path.join(d, "trace.txt"), "--checkpoint-dir", ck,
                                  "--checkpoint-steps", "all"],
                                 env=clean_env(ATEN_CPU_CAPABILITY=cap, ADDMOD113_INIT=init),
                                 stdout=subprocess.DEVNULL, stderr=err)
        timings[name] = time.time() - t0
        if rc != 0:
            raise RuntimeError("%s exited %d (see %s/stderr.txt)" % (name, rc, d))

    t0 = time.time()
    with ThreadPoolExecutor(max_workers=2) as pool:
        for f in [pool.submit(train, leg) for leg in legs]:
            f.result()
    timings["four runs (wall)"] = time.time() - t0

    T = lambda name: os.path.join(runs_dir, name, "trace.txt")  # noqa: E731
    C = lambda name: os.path.join(runs_dir, name, "checkpoints")  # noqa: E731
    for init in ("torch-init", "portable-init"):
        cmd = [a.conform, "compare", T(init + "-default"), T(init + "-avx2")]
        p = subprocess.run(cmd, capture_output=True, text=True)
        text = "$ %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr)
        with open(os.path.join(a.out, "compare-%s.txt" % init), "w") as f:
            f.write(text)
        if p.returncode not in (0, 1):
            print(text, file=sys.stderr)
            return 2
        # the head of the runner's answer and a sample of its loss-gap table
        lines = text.splitlines()
        print("\n".join(lines[:9]))
        tail = [ln for ln in lines[9:] if ln.split()[:1] in (["50"], ["100"], ["200"], ["300"])]
        if tail:
            print("      ...\n" + "\n".join(tail))
        print("  (full output: %s)" % os.path.join(a.out, "compare-%s.txt" % init))
        print()

    # 3. the curve
    p = subprocess.run([py, os.path.join(HERE, "divergence.py"),
                        "--csv", os.path.join(a.out, "divergence.csv"),
                        "--svg", os.path.join(a.out, "divergence.svg"),
                        "--title", "addmod113 (PyTorch %s): ATEN_CPU_CAPABILITY=default vs avx2" % torch_version(py),
                        "PyTorch init (torch.manual_seed)", T("torch-init-default"), C("torch-init-default"),
                        T("torch-init-avx2"), C("torch-init-avx2"),
                        "portable init (same initial bytes)", T("portable-init-default"), C("portable-init-default"),
                        T("portable-init-avx2"), C("portable-init-avx2")])
    if p.returncode != 0:
        return 2
    if not a.keep_checkpoints:
        for leg in legs:
            shutil.rmtree(C(leg[0]), ignore_errors=True)
    print()
    print("timings: " + ", ".join("%s %.0f s" % kv for kv in timings.items()))
    return 0


def torch_version(py):
    try:
        return subprocess.run([py, "-c", "import torch; print(torch.__version__)"],
                              capture_output=True, text=True).stdout.strip() or "?"
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
