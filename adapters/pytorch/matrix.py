#!/usr/bin/env python3
"""`make pytorch-matrix`: the design brief's evidence R1 and R2 about PyTorch,
reproduced on this machine, natively and under QEMU user mode, with every
verdict taken from the isotrain runner.

    matrix.py --conform build/conform/isotrain-conform --python /usr/bin/python3 \
              --out build/pytorch-matrix [--steps 200] [--qemu qemu-x86_64]

It trains mlp13k with adapters/pytorch/iut.py under each setting (traces in
OUT/traces/, stderr in OUT/logs/), then asks the runner:
  `isotrain-conform compare A B`   for every pair (output: OUT/compare-<row>.txt)
  `isotrain-conform run --level train` against the golden vectors
                                   (output: OUT/golden-run.txt, receipt OUT/golden-receipt.json)
and prints one table row per comparison: the runner's verdict line, the loss
bits as the runner's loss-gap table shows them, what the brief leads us to
expect, and whether the two agree. This script never compares traces itself.

Exit status: 0 when every row came out as expected, 1 when one did not
(the evidence has changed: read the row), 2 when something could not be run.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from runlog import Tee

HERE = os.path.dirname(os.path.abspath(__file__))
IUT = os.path.join(HERE, "iut.py")
# measured (README, "R2 and OpenBLAS"): OpenBLAS's Nehalem kernels against the
# reference BLAS on mlp13k, both pinned
OPENBLAS_VS_REFERENCE = "identical"


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


class Runs:
    """Training runs of iut.py; each writes OUT/traces/<name>.trace."""

    def __init__(self, args):
        self.a = args
        self.python = os.path.realpath(shutil.which(args.python) or args.python)
        self.timing = {}
        self.facts = {}

    def trace(self, name):
        return os.path.join(self.a.out, "traces", name + ".trace")

    def run(self, name, cap=None, threads=None, cpu=None, openblas=False, coretype=None, steps=None):
        """openblas: libblas.so.3 resolves to the private OpenBLAS (--openblas, by
        LD_LIBRARY_PATH, one OpenBLAS thread); coretype: OPENBLAS_CORETYPE."""
        env = {k: v for k, v in os.environ.items() if k not in (
            "ATEN_CPU_CAPABILITY", "ISOTRAIN_TORCH_THREADS", "LD_LIBRARY_PATH", "OPENBLAS_CORETYPE",
            "OPENBLAS_NUM_THREADS")}
        if cap:
            env["ATEN_CPU_CAPABILITY"] = cap
        if threads:
            env["ISOTRAIN_TORCH_THREADS"] = str(threads)
        if openblas:
            env["LD_LIBRARY_PATH"] = self.a.openblas
            env["OPENBLAS_NUM_THREADS"] = "1"
        if coretype:
            env["OPENBLAS_CORETYPE"] = coretype
        cmd = [self.python, IUT, "train", "--profile", "mlp13k", "--steps", str(steps or self.a.steps),
               "--trace", self.trace(name)]
        if cpu:
            cmd = [self.a.qemu, "-cpu", cpu] + cmd
        log = os.path.join(self.a.out, "logs", name + ".stderr")
        t0 = time.time()
        with open(log, "w") as err:
            rc = subprocess.call(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        self.timing[name] = time.time() - t0
        with open(log) as f:
            m = re.search(r"pytorch-mlp13k: (.*)", f.read())
        self.facts[name] = m.group(1) if m else "?"
        if rc != 0:
            raise RuntimeError("%s exited with status %d (see %s)" % (" ".join(cmd), rc, log))
        # the run loaded the BLAS its row is about (/proc/self/maps inside the process):
        # the private OpenBLAS, or else the system's reference BLAS
        so = re.search(r"blas_so=(\S+)", self.facts[name])
        so = so.group(1) if so else ""
        if openblas:
            ok = all(p.startswith(self.a.openblas.rstrip("/") + "/") for p in so.split(",")) and "openblas" in so
        else:
            ok = "libblas" in so and "openblas" not in so
        if not ok:
            raise RuntimeError("%s loaded %s, not the %s its row needs (see %s)" % (
                name, so or "no BLAS", "private OpenBLAS in " + self.a.openblas if openblas else "reference BLAS", log))


def runner_compare(a, conform, name, trace_a, trace_b):
    """(exit status, verdict line, loss summary, full text) from `isotrain-conform compare`."""
    p = subprocess.run([conform, "compare", trace_a, trace_b], capture_output=True, text=True)
    text = p.stdout + p.stderr
    with open(os.path.join(a.out, "compare-%s.txt" % name), "w") as f:
        f.write("$ isotrain-conform compare %s %s\n%s" % (trace_a, trace_b, text))
    verdict = next((ln.strip() for ln in text.splitlines()
                    if ln.startswith("identical:") or ln.startswith("first differing step:")), None)
    if p.returncode not in (0, 1) or verdict is None:
        return 2, "runner error (exit %d): %s" % (p.returncode, text.strip().splitlines()[-1:] or ""), "", text
    if p.returncode == 0:
        return 0, verdict, "identical at every step", text
    # the runner's loss-gap table: "  step  lossA  lossB  |A-B|  ULP"
    gaps = [(int(m.group(1)), m.group(2)) for m in
            re.finditer(r"^\s+(\d+)\s+\S+\s+\S+\s+\S+\s+(\d+|NaN)\s*$", text, re.M)]
    differ = [(s, u) for s, u in gaps if u != "0"]
    through = re.search(r"loss bits identical through step (\d+)", text)
    parts = []
    if through:
        parts.append("same through step %s" % through.group(1))
    if gaps:
        worst = max((int(u) for _, u in differ if u != "NaN"), default=0)
        parts.append("differ at %d of %d steps%s" % (len(differ), len(gaps),
                                                     (", <= %d ULP" % worst) if differ else ""))
    return 1, verdict, "; ".join(parts), text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conform", required=True)
    ap.add_argument("--python", default="python3")
    ap.add_argument("--out", default="build/pytorch-matrix")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--qemu", default="qemu-x86_64")
    ap.add_argument("--vectors", default="vectors/v1.0.0")
    ap.add_argument("--isotrain", default="", help="the reference CLI (build/native/isotrain), for spec_diff.py")
    ap.add_argument("--openblas", default="",
                    help="directory holding OpenBLAS's libblas.so.3 (ci/openblas-private.sh); empty: no OpenBLAS rows")
    ap.add_argument("--openblas-steps", type=int, default=20)
    ap.add_argument("--openblas-core", default="Nehalem", help="the OPENBLAS_CORETYPE of the pinned OpenBLAS rows")
    a = ap.parse_args()
    for d in ("traces", "logs"):
        os.makedirs(os.path.join(a.out, d), exist_ok=True)
    sys.stdout = Tee(os.path.join(a.out, "matrix.txt"), sys.stdout)
    if not os.access(a.conform, os.X_OK):
        sys.exit("matrix.py: the runner %s is not built (make conformance-runner)" % a.conform)
    if shutil.which(a.qemu) is None:
        sys.exit("matrix.py: %s not found (Debian package qemu-user)" % a.qemu)

    flags = cpu_flags()
    has_avx2, has_avx512 = "avx2" in flags, "avx512f" in flags
    nthreads = os.cpu_count() or 1
    r = Runs(a)
    t_start = time.time()
    try:
        # native runs, one at a time (timings stay meaningful)
        r.run("native-default", cap="default")
        r.run("native-avx2", cap="avx2")
        if nthreads > 1:
            r.run("native-default-%dt" % nthreads, cap="default", threads=nthreads)
            r.run("native-avx2-%dt" % nthreads, cap="avx2", threads=nthreads)
        if has_avx512:
            r.run("native-avx512", cap="avx512")
        r.run("native-pinned", cap="default", threads=1)
        # emulated runs: two at a time (QEMU runs one thread of the interpreter)
        jobs = [("qemu-Nehalem", {}, "Nehalem"), ("qemu-Haswell", {}, "Haswell"),
                ("qemu-Nehalem-pinned", {"cap": "default", "threads": 1}, "Nehalem"),
                ("qemu-Haswell-pinned", {"cap": "default", "threads": 1}, "Haswell")]
        if a.openblas:
            # R2 with OpenBLAS as libblas.so.3 (pinned otherwise), fewer steps: the first
            # difference is at step 1. Its own CPUID dispatch, then OPENBLAS_CORETYPE pinned.
            ob = {"cap": "default", "threads": 1, "openblas": True, "steps": a.openblas_steps}
            r.run("native-pinned-%d" % a.openblas_steps, cap="default", threads=1, steps=a.openblas_steps)
            r.run("native-pinned-openblas", **ob)
            r.run("native-pinned-openblas-core", coretype=a.openblas_core, **ob)
            jobs += [("qemu-Nehalem-pinned-openblas", ob, "Nehalem"), ("qemu-Haswell-pinned-openblas", ob, "Haswell"),
                     ("qemu-Haswell-pinned-openblas-core", dict(ob, coretype=a.openblas_core), "Haswell")]
        with ThreadPoolExecutor(max_workers=2) as pool:
            for f in [pool.submit(r.run, n, cpu=c, **kw) for n, kw, c in jobs]:
                f.result()
    except RuntimeError as e:
        print("matrix.py: %s" % e, file=sys.stderr)
        return 2
    t_runs = time.time() - t_start

    T = r.trace
    threads_default = re.search(r"threads=(\d+)", r.facts["native-default"])
    tdef = threads_default.group(1) if threads_default else "?"
    rows = [  # (id, evidence, comparison, trace A, trace B, expected: "differ" | "identical" | None = n/a)
        ("r1-native", "R1 native dispatch",
         "ATEN_CPU_CAPABILITY=default vs =avx2, PyTorch's default threads (%s here)" % tdef,
         T("native-default"), T("native-avx2"), "differ" if has_avx2 else None)]
    if nthreads > 1:
        rows.append(("r1-native-mt", "R1 native dispatch",
                     "ATEN_CPU_CAPABILITY=default vs =avx2, %d threads" % nthreads,
                     T("native-default-%dt" % nthreads), T("native-avx2-%dt" % nthreads),
                     "differ" if has_avx2 else None))
        rows.append(("threads-check", "thread count", "avx2 kernels: 1 thread vs %d threads" % nthreads,
                     T("native-avx2"), T("native-avx2-%dt" % nthreads), "identical"))
    rows.append(("r1-native-avx512", "R1 native dispatch", "ATEN_CPU_CAPABILITY=default vs =avx512",
                 T("native-default"), T("native-avx512") if has_avx512 else None,
                 "differ" if has_avx512 else None))
    rows += [
        ("r1-emulated", "R1 emulated", "qemu-x86_64 -cpu Nehalem vs -cpu Haswell, no settings",
         T("qemu-Nehalem"), T("qemu-Haswell"), "differ"),
        ("emu-check-nehalem", "emulation check", "qemu -cpu Nehalem vs native default kernels",
         T("qemu-Nehalem"), T("native-default"), "identical"),
        ("emu-check-haswell", "emulation check", "qemu -cpu Haswell vs native avx2 kernels",
         T("qemu-Haswell"), T("native-avx2"), "identical" if has_avx2 else None),
        ("r2-nehalem", "R2 pinned", "default kernels + 1 thread: native vs qemu -cpu Nehalem",
         T("native-pinned"), T("qemu-Nehalem-pinned"), "identical"),
        ("r2-haswell", "R2 pinned", "default kernels + 1 thread: native vs qemu -cpu Haswell",
         T("native-pinned"), T("qemu-Haswell-pinned"), "identical"),
        ("r2-emulated", "R2 pinned", "default kernels + 1 thread: qemu Nehalem vs qemu Haswell",
         T("qemu-Nehalem-pinned"), T("qemu-Haswell-pinned"), "identical"),
    ]

    if a.openblas:
        def core(name):  # the kernel set OpenBLAS reported in that run
            m = re.search(r"openblas_core=(\S+)", r.facts.get(name, ""))
            return m.group(1) if m else "?"
        nb = a.openblas_steps
        rows += [
            ("r2-openblas-emulated", "R2 + OpenBLAS",
             "pinned, OpenBLAS as libblas.so.3, OPENBLAS_CORETYPE unset: qemu Nehalem (core %s) vs qemu Haswell (core %s)"
             % (core("qemu-Nehalem-pinned-openblas"), core("qemu-Haswell-pinned-openblas")),
             T("qemu-Nehalem-pinned-openblas"), T("qemu-Haswell-pinned-openblas"), "differ"),
            ("r2-openblas-native", "R2 + OpenBLAS",
             "pinned, OpenBLAS, OPENBLAS_CORETYPE unset: native (core %s) vs qemu Nehalem (core %s)"
             % (core("native-pinned-openblas"), core("qemu-Nehalem-pinned-openblas")),
             T("native-pinned-openblas"), T("qemu-Nehalem-pinned-openblas"),
             "differ" if "fma" in flags else None),
            ("r2-openblas-core-emulated", "R2 + OpenBLAS pinned",
             "pinned, OpenBLAS, OPENBLAS_CORETYPE=%s on Haswell: qemu Nehalem (core %s) vs qemu Haswell (core %s)"
             % (a.openblas_core, core("qemu-Nehalem-pinned-openblas"), core("qemu-Haswell-pinned-openblas-core")),
             T("qemu-Nehalem-pinned-openblas"), T("qemu-Haswell-pinned-openblas-core"), "identical"),
            ("r2-openblas-core-native", "R2 + OpenBLAS pinned",
             "pinned, OpenBLAS, OPENBLAS_CORETYPE=%s: native (core %s) vs qemu Nehalem (core %s)"
             % (a.openblas_core, core("native-pinned-openblas-core"), core("qemu-Nehalem-pinned-openblas")),
             T("native-pinned-openblas-core"), T("qemu-Nehalem-pinned-openblas"), "identical"),
            ("blas-choice", "which BLAS",
             "pinned, native: reference BLAS vs OpenBLAS with OPENBLAS_CORETYPE=%s (core %s), %d steps"
             % (a.openblas_core, core("native-pinned-openblas-core"), nb),
             T("native-pinned-%d" % nb), T("native-pinned-openblas-core"), OPENBLAS_VS_REFERENCE),
        ]

    table, unexpected, broken = [], 0, 0
    for rid, ev, what, ta, tb, expect in rows:
        if tb is None or expect is None:
            reason = "n/a (this CPU has no %s)" % ("AVX-512" if "avx512" in rid else "FMA" if "openblas" in rid else "AVX2")
            table.append((ev, what, reason, "", "n/a", "-"))
            continue
        rc, verdict, loss, _ = runner_compare(a, a.conform, rid, ta, tb)
        if rc == 2:
            broken += 1
            table.append((ev, what, verdict, "", expect, "ERROR"))
            continue
        got = "identical" if rc == 0 else "differ"
        ok = got == expect
        unexpected += not ok
        exp_text = "digests differ" if expect == "differ" else "identical"
        table.append((ev, what, verdict, loss, exp_text, "as expected" if ok else "NOT as expected"))

    # PyTorch against the golden vectors: the runner's run --level train
    receipt = os.path.join(a.out, "golden-receipt.json")
    iut_cmd = "%s %s" % (r.python, os.path.relpath(IUT))
    t0 = time.time()
    p = subprocess.run([a.conform, "run", "--iut", iut_cmd, "--level", "train", "--vectors", a.vectors,
                        "--receipt", receipt], capture_output=True, text=True)
    t_golden = time.time() - t0
    golden_text = p.stdout + p.stderr
    with open(os.path.join(a.out, "golden-run.txt"), "w") as f:
        f.write("$ isotrain-conform run --iut '%s' --level train --receipt %s\n%s" % (iut_cmd, receipt, golden_text))
    summary = next((ln.strip() for ln in golden_text.splitlines()
                    if re.match(r"level train: .*\(\d+ passed", ln)), None)
    first = re.search(r"first step whose parameters differ: (\d+)", golden_text)
    if p.returncode == 1 and summary and "FAIL" in summary:
        golden_ok = "as expected"
    elif p.returncode in (0, 1) and summary:
        golden_ok = "NOT as expected"
        unexpected += 1
    else:
        golden_ok = "ERROR"
        broken += 1
    table.append(("PyTorch vs golden", "run --level train, vectors %s" % a.vectors,
                  summary or "runner error (exit %d)" % p.returncode,
                  ("first step whose parameters differ: %s" % first.group(1)) if first else "",
                  "non-conformant", golden_ok))

    # ---- print -------------------------------------------------------------------------
    print("PyTorch mlp13k matrix: %d steps, host CPU: %s, flags: %s; PyTorch: %s"
          % (a.steps, cpu_model(), " ".join(sorted(f for f in flags if f in ("avx", "avx2", "fma", "avx512f"))) or "-",
             r.facts.get("native-avx2", "?")))
    head = ("evidence", "comparison", "runner verdict", "loss bits (runner's loss-gap table)", "expected", "")
    widths = [max(len(str(row[i])) for row in table + [head]) for i in range(len(head))]
    fmt = lambda row: "| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |"  # noqa: E731
    print(fmt(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in table:
        print(fmt(row))
    print()
    print("where PyTorch departs from the golden vectors (isotrain-conform run, verbatim):")
    block = re.search(r"^  where it differs:\n((?:    .*\n)+)", golden_text, re.M)
    print(block.group(0).rstrip() if block else "  (no localization in the runner's output; see golden-run.txt)")
    print()
    print("what each process saw (iut.py's stderr):")
    for n in sorted(r.facts):
        print("  %-24s %6.1f s  %s" % (n, r.timing[n], r.facts[n]))
    print("  %-24s %6.1f s  (the runner's run --level train, incl. hello)" % ("golden run", t_golden))
    print()
    print("which ops differ between kernel sets (adapters/pytorch/kernel_diff.py; informative, not a verdict):")
    sys.stdout.flush()
    kd = subprocess.run([r.python, os.path.join(HERE, "kernel_diff.py")] + (["avx2"] if has_avx2 else []) +
                        (["avx512"] if has_avx512 else []), capture_output=True, text=True)
    print(kd.stdout.rstrip() if kd.returncode == 0 and (has_avx2 or has_avx512) else
          "  (no second kernel set on this CPU)" if kd.returncode == 0 else "  kernel_diff.py failed: " + kd.stderr[-300:])
    print()
    print("where step 1 departs from the spec, op by op (adapters/pytorch/evidence/spec_diff.py; informative):")
    sys.stdout.flush()
    if a.isotrain:
        sd = subprocess.run([r.python, os.path.join(HERE, "evidence", "spec_diff.py"), "--isotrain", a.isotrain] +
                            (["default", "avx2"] if has_avx2 else ["default"]), capture_output=True, text=True)
        print(sd.stdout.rstrip() if sd.returncode == 0 else "  spec_diff.py failed: " + (sd.stdout + sd.stderr)[-300:])
    else:
        print("  (no --isotrain: the reference CLI answers the spec's side)")
    print()
    if a.openblas:
        print("which OpenBLAS kernel sets give the reference BLAS's bits (adapters/pytorch/evidence/openblas_cores.py;"
              " informative):")
        sys.stdout.flush()
        oc = subprocess.run([r.python, os.path.join(HERE, "evidence", "openblas_cores.py"), "--conform", a.conform,
                             "--openblas", a.openblas, "--python", r.python, "--steps", str(a.openblas_steps)],
                            capture_output=True, text=True)
        print(oc.stdout.rstrip() if oc.returncode == 0 else "  openblas_cores.py failed: " + (oc.stdout + oc.stderr)[-300:])
        print()
    print("training runs: %.0f s wall; traces in %s/traces, runner outputs in %s"
          % (t_runs, a.out, a.out))
    if broken:
        print("pytorch-matrix: %d row(s) could not be decided (ERROR above)" % broken)
        return 2
    if unexpected:
        print("pytorch-matrix: %d row(s) NOT as expected: the evidence differs on this machine" % unexpected)
        return 1
    print("pytorch-matrix: every row as expected")
    return 0


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


if __name__ == "__main__":
    sys.exit(main())
