#!/usr/bin/env python3
"""`make pytorch-cross-isa`: pinned PyTorch (default kernels, one thread)
across instruction sets, every verdict from the isotrain runner.

    cross_isa.py --conform build/conform/isotrain-conform --python /usr/bin/python3 \
                 --sysroots build/pytorch-sysroot --out build/pytorch-cross-isa \
                 [--steps 200] [--qemu-steps 30] [--arches arm64,s390x,ppc64el] [--jobs 2]

Hosts: this machine's x86_64 natively, and Debian's own python3-torch for
arm64, s390x and ppc64el run by qemu-aarch64 / qemu-s390x / qemu-ppc64le
with -L SYSROOT (ci/pytorch-sysroot.sh builds the sysroots). Each host runs
adapters/pytorch/iut.py (mlp13k; the spec's initial bytes, so every host
starts from identical parameters) with ATEN_CPU_CAPABILITY=default and
ISOTRAIN_TORCH_THREADS=1, checkpointing every step, and op_probe.py (every
op of step 1 on one set of inputs). Then, for every pair of hosts, the
runner's `compare` (with both checkpoint directories) gives the verdict:
identical, or the first differing step and the first differing tensor and
element. The first differing op comes from the probes: the first op of
step 1, in execution order, whose output bits differ between the two hosts
on identical inputs. Emulated hosts train --qemu-steps steps (QEMU runs
the whole Python process at 15-50x); the comparison covers the steps both
ran. Writes OUT/cross-isa.md (the table), OUT/compare-A-B.txt (the runner's
words), OUT/ops.txt (per-op differences), traces, checkpoints, logs.
Exit 0 when every run and comparison ran, 2 otherwise; the verdicts are
the evidence, not a pass/fail.
"""
import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from op_probe import OPS  # noqa: E402
from runlog import Tee  # noqa: E402

# debian arch -> (name in the table, qemu, -cpu)
ARCHES = {
    "arm64": ("aarch64", "qemu-aarch64", "cortex-a72"),
    "s390x": ("s390x", "qemu-s390x", "qemu"),
    "ppc64el": ("ppc64le", "qemu-ppc64le", "power9"),
}


class Host:
    def __init__(self, name, prefix, steps, python):
        self.name, self.prefix, self.steps, self.python = name, prefix, steps, python
        self.seconds = {}


def run_host(a, h):
    """Trains and probes on one host; returns an error text or None."""
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default", ISOTRAIN_TORCH_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    ck = os.path.join(a.out, "ck", h.name)
    os.makedirs(ck, exist_ok=True)
    jobs = [
        ("train", [os.path.join(HERE, "iut.py"), "train", "--profile", "mlp13k", "--steps", str(h.steps),
                   "--trace", os.path.join(a.out, "traces", h.name + ".trace"), "--checkpoint-dir", ck,
                   "--checkpoint-steps", "all"]),
        ("ops", [os.path.join(HERE, "op_probe.py"), "run", os.path.join(a.out, "inputs.npz"),
                 os.path.join(a.out, "ops", h.name + ".npz")]),
    ]
    for what, args in jobs:
        log = os.path.join(a.out, "logs", "%s-%s.stderr" % (h.name, what))
        t0 = time.time()
        with open(log, "w") as err:
            rc = subprocess.call(h.prefix + [h.python] + args, env=env, stdout=subprocess.DEVNULL, stderr=err)
        h.seconds[what] = time.time() - t0
        if rc != 0:
            return "%s %s exited with status %d (see %s)" % (h.name, what, rc, log)
    return None


def runner_compare(a, x, y):
    """The runner's verdict on two hosts' traces and checkpoints."""
    steps = min(x.steps, y.steps)
    tr = []
    for h in (x, y):  # the common steps only (the runner compares whole traces)
        src = os.path.join(a.out, "traces", h.name + ".trace")
        dst = os.path.join(a.out, "traces", "%s.first%d.trace" % (h.name, steps))
        with open(src) as f:
            lines = f.read().splitlines()
        head = lines[0].split()
        head = [("steps=%d" % steps if w.startswith("steps=") else w) for w in head]
        with open(dst, "w") as f:
            f.write("\n".join([" ".join(head)] + lines[1:steps + 2]) + "\n")
        tr.append(dst)
    p = subprocess.run([a.conform, "compare", tr[0], tr[1], "--checkpoints-a", os.path.join(a.out, "ck", x.name),
                        "--checkpoints-b", os.path.join(a.out, "ck", y.name)], capture_output=True, text=True)
    with open(os.path.join(a.out, "compare-%s-%s.txt" % (x.name, y.name)), "w") as f:
        f.write(p.stdout + p.stderr)
    if p.returncode not in (0, 1):
        return None, "runner exit %d: %s" % (p.returncode, p.stderr.strip())
    lines = p.stdout.splitlines()
    pick = lambda pre: next((l for l in lines if l.startswith(pre)), "")
    verdict = pick("identical") or pick("first differing step")
    tensor = pick("first differing tensor")
    loss = pick("loss bits identical through")
    return (verdict, tensor, loss, steps), None


def first_op(a, x, y):
    import numpy as np
    with np.load(os.path.join(a.out, "ops", x.name + ".npz")) as f, \
            np.load(os.path.join(a.out, "ops", y.name + ".npz")) as g:
        rows, first = [], None
        for name, _ in OPS:
            for k in sorted(k for k in f.files if k.startswith(name + ".")):
                # bit patterns in one byte order (a big-endian host saved its own)
                u, v = (w.astype(w.dtype.newbyteorder("<")) for w in (f[k], g[k]))
                ub = u.view("<u4") if u.dtype.kind == "f" else u
                vb = v.view("<u4") if v.dtype.kind == "f" else v
                d = int(np.count_nonzero(ub != vb))
                ulp = int(np.max(np.abs(ub.astype(np.int64) - vb.astype(np.int64)))) if d else 0
                rows.append("  %-34s %5d of %5d differ%s" % (k, d, u.size, ", max %d ULP" % ulp if d else ""))
                if d and first is None:
                    first = "%s (%d of %d, <= %d ULP)" % (k, d, u.size, ulp)
    return first or "none: every op of step 1 gives the same bits", rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conform", required=True)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--sysroots", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--qemu-steps", type=int, default=30)
    ap.add_argument("--arches", default="arm64,s390x,ppc64el")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    for d in ("traces", "ck", "ops", "logs"):
        os.makedirs(os.path.join(a.out, d), exist_ok=True)
    sys.stdout = Tee(os.path.join(a.out, "cross-isa.txt"), sys.stdout)

    hosts = [Host("x86_64", [], a.steps, a.python)]
    for arch in [s for s in a.arches.split(",") if s]:
        if arch not in ARCHES:
            print("cross-isa: unknown architecture %r (known: %s)" % (arch, ", ".join(ARCHES)))
            return 2
        name, qemu, cpu = ARCHES[arch]
        root = os.path.abspath(os.path.join(a.sysroots, arch, "root"))
        if not os.path.exists(os.path.join(root, ".complete")):
            print("cross-isa: no sysroot for %s in %s (ci/pytorch-sysroot.sh %s %s)" % (arch, root, arch,
                                                                                       os.path.join(a.sysroots, arch)))
            return 2
        hosts.append(Host(name, [qemu, "-L", root, "-cpu", cpu], a.qemu_steps, os.path.join(root, "usr/bin/python3")))

    env = dict(os.environ, ATEN_CPU_CAPABILITY="default", ISOTRAIN_TORCH_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    if subprocess.call([a.python, os.path.join(HERE, "op_probe.py"), "inputs", os.path.join(a.out, "inputs.npz")],
                       env=env) != 0:
        print("cross-isa: op_probe.py inputs failed")
        return 2
    t0 = time.time()
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        errors = [e for e in ex.map(lambda h: run_host(a, h), hosts) if e]
    if errors:
        print("\n".join("cross-isa: " + e for e in errors))
        return 2
    for h in hosts:
        print("cross-isa: %-8s %s: train %d steps %.0f s, op probes %.0f s" % (
            h.name, " ".join(h.prefix[:1] + h.prefix[3:]) or "native", h.steps, h.seconds["train"], h.seconds["ops"]))

    table = ["| A | B | steps compared | runner verdict | first differing tensor (runner) | first differing op of step 1 (probes, identical inputs) |",
             "|---|---|---|---|---|---|"]
    op_text = []
    for i, x in enumerate(hosts):
        for y in hosts[i + 1:]:
            res, err = runner_compare(a, x, y)
            if err:
                print("cross-isa: %s vs %s: %s" % (x.name, y.name, err))
                return 2
            verdict, tensor, loss, steps = res
            op, rows = first_op(a, x, y)
            tensor = tensor.split(": ", 1)[1] if tensor else "-"
            table.append("| %s | %s | 0..%d | %s%s | %s | %s |" % (x.name, y.name, steps, verdict,
                                                                  ("; " + loss) if loss else "", tensor, op))
            op_text += ["%s vs %s:" % (x.name, y.name)] + rows
    with open(os.path.join(a.out, "ops.txt"), "w") as f:
        f.write("\n".join(op_text) + "\n")
    with open(os.path.join(a.out, "cross-isa.md"), "w") as f:
        f.write("\n".join(table) + "\n")
    print("\n".join(table))
    print("cross-isa: all hosts and comparisons ran in %.0f s; the runner's words: %s/compare-*.txt; per-op: %s/ops.txt"
          % (time.time() - t0, a.out, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
