#!/usr/bin/env python3
"""`make pytorch-cross-isa`: pinned PyTorch (default kernels, one thread)
across instruction sets, every verdict from the isotrain runner, every
result checked against a committed expectation table.

    cross_isa.py --conform build/conform/isotrain-conform --python /usr/bin/python3 \\
                 --sysroots build/pytorch-sysroot --out build/pytorch-cross-isa \\
                 [--steps 200] [--qemu-steps 30] [--arches arm64,s390x,ppc64el] [--jobs 2] \\
                 [--expect adapters/pytorch/expected/cross-isa.txt] [--update-expected] [--reuse]

Hosts: this machine's x86_64 natively, and Debian's own python3-torch for
arm64, s390x and ppc64el run by qemu-aarch64 / qemu-s390x / qemu-ppc64le
with -L SYSROOT (ci/pytorch-sysroot.sh builds the sysroots). Each host, with
ATEN_CPU_CAPABILITY=default and ISOTRAIN_TORCH_THREADS=1, starts Python twice:
  iut.py train      mlp13k from the spec's initial bytes, a checkpoint every step
  host_probes.py    (one process) every op of step 1 on saved inputs, the
                    single-op sweep (op_sweep.py), torch.tanh/exp beside libm's
                    tanhf/expf through ctypes, and mlp13k with PyTorch's own
                    init after torch.manual_seed(0) (steps 0 and 1)
Then, on this host: for every pair, the runner's `compare` (training, and the
PyTorch-init run) and the first differing op of step 1; the per-op, per-ISA
sweep table; which formula each host's results follow (evidence/fused_forms.py:
separately rounded or fused multiply-add, bias first or last); the
disassembly of libm and libblas (evidence/fma_disasm.py); the compile probe
(evidence/compile_probe.sh). Emulated hosts train --qemu-steps steps (QEMU runs
the whole Python process at 15-50x); pairs are compared over the steps both ran.

All of it, without timings, is OUT/evidence.txt; it must equal --expect
(default adapters/pytorch/expected/cross-isa.txt, written from a real run by
--update-expected). Any difference is printed as a unified diff and fails the
run. --reuse analyses the outputs of an earlier run in OUT without running
anything again (to re-check an expectation, or to see the check fire on a
changed one). Other files in OUT: cross-isa.md (the pair table), ops.txt,
sweep.md, compare-*.txt (the runner's words), traces, checkpoints, logs.

Exit status: 0 when the evidence equals the expectation, 1 when it differs,
2 when a run, a comparison or the check itself could not be made.
"""
import argparse
import difflib
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "evidence"))
import analysis  # noqa: E402
from runlog import Tee  # noqa: E402

# debian arch -> (name in the table, qemu, -cpu)
ARCHES = {
    "arm64": ("aarch64", "qemu-aarch64", "cortex-a72"),
    "s390x": ("s390x", "qemu-s390x", "qemu"),
    "ppc64el": ("ppc64le", "qemu-ppc64le", "power9"),
}
EXPECT = os.path.join(HERE, "expected", "cross-isa.txt")


class Host:
    def __init__(self, name, prefix, steps, python):
        self.name, self.prefix, self.steps, self.python = name, prefix, steps, python
        self.seconds = {}


def pinned_env():
    return dict(os.environ, ATEN_CPU_CAPABILITY="default", ISOTRAIN_TORCH_THREADS="1", PYTHONDONTWRITEBYTECODE="1")


def run_host(a, h):
    """Trains and probes on one host; returns an error text or None."""
    ck = os.path.join(a.out, "ck", h.name)
    os.makedirs(ck, exist_ok=True)
    jobs = [
        ("train", [os.path.join(HERE, "iut.py"), "train", "--profile", "mlp13k", "--steps", str(h.steps),
                   "--trace", os.path.join(a.out, "traces", h.name + ".trace"), "--checkpoint-dir", ck,
                   "--checkpoint-steps", "all"]),
        ("probes", [os.path.join(HERE, "host_probes.py"), "run", os.path.join(a.out, "inputs"),
                    os.path.join(a.out, "probes", h.name)]),
    ]
    for what, args in jobs:
        log = os.path.join(a.out, "logs", "%s-%s.stderr" % (h.name, what))
        t0 = time.time()
        with open(log, "w") as err:
            rc = subprocess.call(h.prefix + [h.python] + args, env=pinned_env(), stdout=subprocess.DEVNULL, stderr=err)
        h.seconds[what] = time.time() - t0
        if rc != 0:
            return "%s %s exited with status %d (see %s)" % (h.name, what, rc, log)
    return None


def prefix_trace(src, dst, steps):
    """The first `steps` steps of a trace (the runner compares whole traces)."""
    with open(src) as f:
        lines = f.read().splitlines()
    head = [("steps=%d" % steps if w.startswith("steps=") else w) for w in lines[0].split()]
    with open(dst, "w") as f:
        f.write("\n".join([" ".join(head)] + lines[1:steps + 2]) + "\n")
    return dst


def runner_compare(a, tag, ta, tb, cka, ckb):
    """The runner's words on two traces with their checkpoints: (lines that
    state a result, None) or (None, error)."""
    p = subprocess.run([a.conform, "compare", ta, tb, "--checkpoints-a", cka, "--checkpoints-b", ckb],
                       capture_output=True, text=True)
    with open(os.path.join(a.out, "compare-%s.txt" % tag), "w") as f:
        f.write(p.stdout + p.stderr)
    if p.returncode not in (0, 1):
        return None, "runner exit %d: %s" % (p.returncode, p.stderr.strip())
    keep = ("identical", "first differing step", "loss bits identical through", "first differing tensor",
            "differing elements")
    got = [ln.strip() for ln in p.stdout.splitlines() if ln.startswith(keep)]
    if not got or not got[0].startswith(("identical", "first differing step")):
        return None, "no verdict line in the runner's output (compare-%s.txt)" % tag
    return got, None


def native(cmd, out_file):
    """Runs a native evidence command; (its stdout lines, exit status)."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    with open(out_file, "w") as f:
        f.write(p.stdout + p.stderr)
    return p.stdout.rstrip("\n").splitlines() + ([("stderr: " + ln) for ln in p.stderr.splitlines()]), p.returncode


def diff_expectation(expected, now, exp_name, now_name):
    return list(difflib.unified_diff(expected.splitlines(), now.splitlines(), exp_name, now_name, lineterm=""))


def check_fires(now):
    """Negative control of the expectation check, on every run: one changed
    character in the expectation must make the comparison report a difference."""
    lines = now.splitlines()
    i = next(i for i, ln in enumerate(lines) if ln and not ln.startswith("#"))
    mutated = "\n".join(lines[:i] + [lines[i][:-1] + ("x" if lines[i][-1:] != "x" else "y")] + lines[i + 1:]) + "\n"
    return bool(diff_expectation(mutated, now, "mutated", "now"))


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
    ap.add_argument("--expect", default=EXPECT)
    ap.add_argument("--update-expected", action="store_true")
    ap.add_argument("--reuse", action="store_true")
    a = ap.parse_args()
    for d in ("traces", "ck", "probes", "logs"):
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

    t0 = time.time()
    if not a.reuse:
        if subprocess.call([a.python, os.path.join(HERE, "host_probes.py"), "inputs", os.path.join(a.out, "inputs")],
                           env=pinned_env()) != 0:
            print("cross-isa: host_probes.py inputs failed")
            return 2
        with ThreadPoolExecutor(max_workers=a.jobs) as ex:
            errors = [e for e in ex.map(lambda h: run_host(a, h), hosts) if e]
        if errors:
            print("\n".join("cross-isa: " + e for e in errors))
            return 2
        for h in hosts:
            print("cross-isa: %-8s %s: train %d steps %.0f s, probes %.0f s (wall)" % (
                h.name, " ".join(h.prefix[:1] + h.prefix[3:]) or "native", h.steps, h.seconds["train"],
                h.seconds["probes"]))

    # ---- the evidence, in the expectation's order --------------------------------------
    names = [h.name for h in hosts]
    steps = min(h.steps for h in hosts)
    ev = ["# make pytorch-cross-isa: the evidence (adapters/pytorch/cross_isa.py; timings left out)",
          "hosts: %s; ATEN_CPU_CAPABILITY=default, 1 thread; steps compared 0..%d" % (" ".join(names), steps), ""]
    table = ["| A | B | steps compared | runner verdict | first differing tensor (runner) | first differing op of step 1 (probes, identical inputs) |",
             "|---|---|---|---|---|---|"]
    ev.append("[mlp13k from the spec's initial bytes, pinned: the runner's compare, and the first differing op of step 1]")
    ops_text, init_ev = [], ["", "[mlp13k with PyTorch's own init after torch.manual_seed(0), one SGD step: the runner's compare]"]
    pr = os.path.join(a.out, "probes")
    try:
        for i, x in enumerate(hosts):
            for y in hosts[i + 1:]:
                ta = prefix_trace(os.path.join(a.out, "traces", x.name + ".trace"),
                                  os.path.join(a.out, "traces", "%s.first%d.trace" % (x.name, steps)), steps)
                tb = prefix_trace(os.path.join(a.out, "traces", y.name + ".trace"),
                                  os.path.join(a.out, "traces", "%s.first%d.trace" % (y.name, steps)), steps)
                got, err = runner_compare(a, "%s-%s" % (x.name, y.name), ta, tb,
                                          os.path.join(a.out, "ck", x.name), os.path.join(a.out, "ck", y.name))
                if err:
                    print("cross-isa: %s vs %s: %s" % (x.name, y.name, err))
                    return 2
                op, rows = analysis.first_op(pr, x.name, y.name)
                op = op or "none: every op of step 1 gives the same bits"
                ev += ["%s vs %s: %s" % (x.name, y.name, ln) for ln in got]
                ev.append("%s vs %s: first differing op of step 1: %s" % (x.name, y.name, op))
                pick = lambda pre: next((ln for ln in got if ln.startswith(pre)), "")  # noqa: E731
                loss = pick("loss bits identical through")
                tensor = pick("first differing tensor")
                table.append("| %s | %s | 0..%d | %s%s | %s | %s |" % (
                    x.name, y.name, steps, got[0], ("; " + loss) if loss else "",
                    tensor.split(": ", 1)[1] if tensor else "-", op))
                ops_text += ["%s vs %s:" % (x.name, y.name)] + rows
                got, err = runner_compare(a, "torchinit-%s-%s" % (x.name, y.name),
                                          os.path.join(pr, x.name, "torchinit.trace"), os.path.join(pr, y.name, "torchinit.trace"),
                                          os.path.join(pr, x.name, "torchinit-ck"), os.path.join(pr, y.name, "torchinit-ck"))
                if err:
                    print("cross-isa: torch init %s vs %s: %s" % (x.name, y.name, err))
                    return 2
                init_ev += ["%s vs %s: %s" % (x.name, y.name, ln) for ln in got]
        ev += init_ev
        ev += ["", "[step 1 of mlp13k op by op, identical inputs: elements that differ per pair]"] + ops_text
        sweep = analysis.sweep_table(pr, names)
        ev += ["", "[single ops over shapes and value ranges (op_sweep.py): '=' same bits as %s, else elements"
               " that differ and max ULP; then the first 12 hex digits of the output's SHA-256]" % names[0]] + sweep
        ev += ["", "[which formula each host's results equal bit for bit (evidence/fused_forms.py)]"]
        ev += analysis.forms(pr, os.path.join(a.out, "inputs"), names)
        ev += ["", "[torch.tanh / torch.exp beside the C library's tanhf / expf (ctypes), same inputs, same host]"]
        ev += analysis.libm(pr, names)
    except (OSError, KeyError, ValueError) as e:
        print("cross-isa: the outputs in %s cannot be analysed: %s" % (a.out, e))
        return 2
    arches = ",".join(s for s in a.arches.split(",") if s)
    lines, rc = native([a.python, os.path.join(HERE, "evidence", "fma_disasm.py"), "--sysroots", a.sysroots,
                        "--arches", arches], os.path.join(a.out, "fma-disasm.txt"))
    ev += ["", "[fused multiply-adds in the libraries PyTorch calls (evidence/fma_disasm.py, exit %d)]" % rc] + lines
    lines, rc = native(["sh", os.path.join(HERE, "evidence", "compile_probe.sh")], os.path.join(a.out, "compile-probe.txt"))
    ev += ["", "[GCC on aten::tanh_backward's arithmetic (evidence/compile_probe.sh, exit %d)]" % rc] + lines
    now = "\n".join(ev) + "\n"

    with open(os.path.join(a.out, "ops.txt"), "w") as f:
        f.write("\n".join(ops_text) + "\n")
    with open(os.path.join(a.out, "sweep.md"), "w") as f:
        f.write("\n".join(sweep) + "\n")
    with open(os.path.join(a.out, "cross-isa.md"), "w") as f:
        f.write("\n".join(table) + "\n")
    with open(os.path.join(a.out, "evidence.txt"), "w") as f:
        f.write(now)
    print("\n".join(table))
    print("cross-isa: analysed in %.0f s; the runner's words: %s/compare-*.txt; all evidence: %s/evidence.txt"
          % (time.time() - t0, a.out, a.out))

    if a.update_expected:
        os.makedirs(os.path.dirname(os.path.abspath(a.expect)), exist_ok=True)
        with open(a.expect, "w") as f:
            f.write(now)
        print("cross-isa: wrote the expectation %s from this run" % a.expect)
        return 0
    if not check_fires(now):
        print("cross-isa: the expectation check does not fire on a changed line: the check is broken")
        return 2
    try:
        with open(a.expect) as f:
            expected = f.read()
    except OSError as e:
        print("cross-isa: no expectation to compare with: %s (write one from a real run: --update-expected)" % e)
        return 2
    d = diff_expectation(expected, now, a.expect, os.path.join(a.out, "evidence.txt"))
    if d:
        print("\n".join(d))
        print("cross-isa: the evidence differs from the expectation %s (%d changed lines above). If a knob"
              " (PYTORCH_CROSS_*) changed, the expectation is for the defaults; if Debian's packages changed,"
              " read the diff, then re-record with PYTORCH_CROSS_UPDATE=1 and commit it with the reason."
              % (a.expect, sum(1 for ln in d if ln[:1] in "+-" and ln[:3] not in ("+++", "---"))))
        return 1
    print("cross-isa: the evidence equals the expectation %s (%d lines; the check fires on a changed line)"
          % (a.expect, len(ev)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
