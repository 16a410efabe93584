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
  4. Next to it, the conforming trainer on the spec's profile addmod113
     (spec §13, with --reference): the reference run twice on this machine
     (`isotrain-conform repeat`), natively against qemu-aarch64 for a prefix
     (`compare`), and the same profile in PyTorch (addmod113_profile.py: the
     spec's data, init and hyper-parameters) under default vs avx2 kernels.
     All go into the one figure: the reference's pairs sit on the "exactly 0"
     line, PyTorch's rise from step 1.

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
    ap.add_argument("--reference", help="the reference CLI (build/native/isotrain): adds question 4")
    ap.add_argument("--reference-aarch64", help="its static aarch64 build, run under qemu-aarch64")
    ap.add_argument("--reference-steps", type=int, default=300)
    ap.add_argument("--qemu-steps", type=int, default=2)
    ap.add_argument("--profile-steps", type=int, default=10,
                    help="steps of addmod113_profile.py per kernel set (full batch at width 128 is slow in PyTorch)")
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

    # 4. the spec's profile: the reference and PyTorch
    extra = []
    if a.reference:
        extra = profile_legs(a, py, runs_dir, timings)
        if extra is None:
            return 2

    # 3. the curve
    p = subprocess.run([py, os.path.join(HERE, "divergence.py"),
                        "--csv", os.path.join(a.out, "divergence.csv"),
                        "--svg", os.path.join(a.out, "divergence.svg"),
                        "--title", "addmod113 (PyTorch %s): ATEN_CPU_CAPABILITY=default vs avx2" % torch_version(py),
                        "PyTorch init (torch.manual_seed)", T("torch-init-default"), C("torch-init-default"),
                        T("torch-init-avx2"), C("torch-init-avx2"),
                        "portable init (same initial bytes)", T("portable-init-default"), C("portable-init-default"),
                        T("portable-init-avx2"), C("portable-init-avx2")] + extra)
    if p.returncode != 0:
        return 2
    if not a.keep_checkpoints:
        for leg in legs:
            shutil.rmtree(C(leg[0]), ignore_errors=True)
        for name in ("ref-run1", "ref-run2", "ref-native-prefix", "ref-aarch64", "profile-default", "profile-avx2"):
            shutil.rmtree(C(name), ignore_errors=True)
    print()
    print("timings: " + ", ".join("%s %.0f s" % kv for kv in timings.items()))
    return 0


def profile_legs(a, py, runs_dir, timings):
    """Question 4: returns divergence.py's extra arguments, or None on failure."""
    T = lambda name: os.path.join(runs_dir, name, "trace.txt")  # noqa: E731
    C = lambda name: os.path.join(runs_dir, name, "checkpoints")  # noqa: E731

    def train(name, cmd, steps, env):
        d = os.path.join(runs_dir, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(C(name))
        t0 = time.time()
        with open(os.path.join(d, "stderr.txt"), "w") as err:
            rc = subprocess.call(cmd + ["train", "--profile", "addmod113", "--steps", str(steps), "--trace", T(name),
                                        "--checkpoint-dir", C(name), "--checkpoint-steps", "all"],
                                 env=env, stdout=subprocess.DEVNULL, stderr=err)
        timings[name] = time.time() - t0
        if rc != 0:
            raise RuntimeError("%s exited %d (see %s/stderr.txt)" % (name, rc, d))

    def runner(title, cmd, fname):
        p = subprocess.run(cmd, capture_output=True, text=True)
        text = "$ %s\n%s%s" % (" ".join("'%s'" % c if " " in c else c for c in cmd), p.stdout, p.stderr)
        with open(os.path.join(a.out, fname), "w") as f:
            f.write(text)
        print("%s\n%s\n  (full output: %s)\n" % (title, "\n".join(text.splitlines()[:8]),
                                                   os.path.join(a.out, fname)))
        return p.returncode in (0, 1)

    env = dict(clean_env(), ISOTRAIN_THREADS="2")
    legs = [("ref-run1", [a.reference], a.reference_steps, env), ("ref-run2", [a.reference], a.reference_steps, env),
            ("profile-default", [py, os.path.join(HERE, "addmod113_profile.py")], a.profile_steps,
             clean_env(ATEN_CPU_CAPABILITY="default")),
            ("profile-avx2", [py, os.path.join(HERE, "addmod113_profile.py")], a.profile_steps,
             clean_env(ATEN_CPU_CAPABILITY="avx2"))]
    if a.reference_aarch64:
        legs += [("ref-native-prefix", [a.reference], a.qemu_steps, env),
                 ("ref-aarch64", ["qemu-aarch64", "-cpu", "cortex-a72", a.reference_aarch64], a.qemu_steps, env)]
    t0 = time.time()
    with ThreadPoolExecutor(max_workers=2) as pool:
        for f in [pool.submit(train, *leg) for leg in legs]:
            f.result()
    timings["profile legs (wall)"] = time.time() - t0
    ok = runner("4. profile addmod113, the reference twice on this machine:",
                [a.conform, "compare", T("ref-run1"), T("ref-run2")], "compare-reference-repeat.txt")
    ok &= runner("   PyTorch on the same profile (spec data, init, hyper-parameters), default vs avx2 kernels:",
                 [a.conform, "compare", T("profile-default"), T("profile-avx2")], "compare-profile-pytorch.txt")
    extra = ["isotrain reference, run 1 vs run 2 (this machine)", T("ref-run1"), C("ref-run1"), T("ref-run2"),
             C("ref-run2"),
             "PyTorch on profile addmod113, default vs avx2", T("profile-default"), C("profile-default"),
             T("profile-avx2"), C("profile-avx2")]
    if a.reference_aarch64:
        ok &= runner("   the reference natively vs under qemu-aarch64 (prefix of %d steps):" % a.qemu_steps,
                     [a.conform, "compare", T("ref-native-prefix"), T("ref-aarch64")], "compare-reference-aarch64.txt")
        extra += ["isotrain reference, x86_64 vs aarch64 (qemu)", T("ref-native-prefix"), C("ref-native-prefix"),
                  T("ref-aarch64"), C("ref-aarch64")]
    return extra if ok else None


def torch_version(py):
    try:
        return subprocess.run([py, "-c", "import torch; print(torch.__version__)"],
                              capture_output=True, text=True).stdout.strip() or "?"
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
