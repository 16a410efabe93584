#!/usr/bin/env python3
"""make pytorch-conforming-cross-isa: isotrain.torch on four instruction sets.

The same IUT (examples/iut.py --gptchar-model nanogpt: the three example
models, gptchar through the ordinary nanogpt.py made conforming; the ops verb) runs
natively on x86_64 and under qemu-aarch64 / qemu-s390x / qemu-ppc64le with
Debian's own python3-torch from the sysroots of ci/pytorch-sysroot.sh (make
pytorch-sysroots), each loading build/shared/<isa>/libisotrain.so (make
torch-so). The runner certifies every host: every op vector, then a prefix
of --qemu-steps training steps of the three profiles and of the fresh-seed runs,
each step's checkpoint hashed and compared with the vectors (PARTIAL by
design: a prefix; a full run under QEMU is hours of emulated Python).

Beside it, the problem: plain PyTorch pinned (ATEN_CPU_CAPABILITY=default,
one thread; adapters/pytorch/iut.py, mlp13k) trains the same number of steps
on each host, and the runner's `compare` puts each emulated host's trace
and checkpoints against x86_64's.

    conforming_cross_isa.py --conform RUNNER --python PY --sysroots DIR --shared DIR --out DIR
                            [--qemu-steps 2] [--arches arm64,s390x,ppc64el] [--slots 2] [--windows]

With --windows every host also runs the runner's windows (iut.py resumes
from a state: --resume/--from-step), and `matrix` must call its receipt
PASS (windows): every op vector, the prefix, and three fresh windows per
profile, at steps drawn from the run seed.

Writes DIR/cross-isa.md; exit 0 when every host is as expected (isotrain.torch:
no case failed, the only narrowing is --steps; plain pinned PyTorch: differs
from x86_64 on every emulated host).

Python's bytecode for the sysroots' torch is cached in build/pycache/<arch>
(PYTHONPYCACHEPREFIX): the sysroots are unpacked without the maintainer
scripts that compile it, so each emulated process would otherwise compile
torch's modules again (measured: 45 s -> 25 s CPU per `hello` on aarch64).
"""

import argparse
import os
import subprocess
import sys
import time

import runlib

HERE = os.path.dirname(os.path.abspath(__file__))
IUT = os.path.normpath(os.path.join(HERE, "..", "examples", "iut.py"))
PLAIN = os.path.join(runlib.ROOT, "adapters", "pytorch", "iut.py")
# debian arch -> (isa, qemu, -cpu)
ARCHES = {"arm64": ("aarch64", "qemu-aarch64", "cortex-a72"),
          "s390x": ("s390x", "qemu-s390x", "qemu"),
          "ppc64el": ("ppc64le", "qemu-ppc64le", "power9")}


class Host:
    def __init__(self, isa, prefix, python, env, emulator=None, cpu=None):
        self.isa, self.prefix, self.python, self.env = isa, prefix, python, env
        self.emulator, self.cpu = emulator, cpu


class Plain:
    """plain pinned PyTorch trained directly (not through the runner), for `compare`"""

    def __init__(self, host, steps, out, conform):
        self.host, self.steps = host, steps
        self.dir = os.path.join(out, host.isa, "plain")
        os.makedirs(self.dir, exist_ok=True)
        self.trace = os.path.join(self.dir, "trace.txt")
        self.ck = os.path.join(self.dir, "checkpoints")
        os.makedirs(self.ck, exist_ok=True)  # that IUT (protocol 1.0.0) does not make it
        self.threads = 1
        self.cmd = host.prefix + [host.python, PLAIN, "train", "--profile", "mlp13k", "--steps", str(steps),
                                  "--trace", self.trace, "--checkpoint-dir", self.ck, "--checkpoint-steps", "all"]

    def start(self):
        self.t0 = time.time()
        self.log = open(os.path.join(self.dir, "train.txt"), "w")
        env = dict(self.host.env, ATEN_CPU_CAPABILITY="default", ISOTRAIN_TORCH_THREADS="1")
        self.proc = subprocess.Popen(self.cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        return self

    def finish(self, status, ru):
        self.status = os.waitstatus_to_exitcode(status)
        self.proc.returncode = self.status
        self.cpu, self.wall = ru.ru_utime + ru.ru_stime, time.time() - self.t0
        self.log.close()
        return self


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conform", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--sysroots", required=True)
    ap.add_argument("--shared", required=True, help="build/shared: <isa>/libisotrain.so")
    ap.add_argument("--out", required=True)
    ap.add_argument("--qemu-steps", type=int, default=2)
    ap.add_argument("--arches", default="arm64,s390x,ppc64el")
    ap.add_argument("--slowdown", type=int, default=40)
    ap.add_argument("--slots", type=int, default=2)
    ap.add_argument("--windows", action="store_true",
                    help="the runner's fresh and golden windows too (iut.py resumes: train_resume=1); "
                         "each host's receipt then goes through `matrix`, which must say PASS (windows)")
    a = ap.parse_args()
    out, conform, shared = os.path.abspath(a.out), os.path.abspath(a.conform), os.path.abspath(a.shared)
    os.makedirs(out, exist_ok=True)
    k = a.qemu_steps
    base = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", ATEN_CPU_CAPABILITY="default", ISOTRAIN_TORCH_THREADS="1",
                ISOTRAIN_TORCH_EVAL="0")  # the optional §13.7 keys: a step's cost under emulation
    hosts = [Host("x86_64", [], a.python, dict(base, ISOTRAIN_LIB=os.path.join(shared, "x86_64", "libisotrain.so")))]
    for arch in a.arches.split(","):
        if arch not in ARCHES:
            sys.exit("conforming_cross_isa: unknown architecture %r (%s)" % (arch, ", ".join(ARCHES)))
        isa, qemu, cpu = ARCHES[arch]
        root = os.path.join(os.path.abspath(a.sysroots), arch, "root")
        if not os.path.exists(os.path.join(root, ".complete")):
            sys.exit("conforming_cross_isa: no complete sysroot in %s (make pytorch-sysroots)" % root)
        env = dict(base, ISOTRAIN_LIB=os.path.join(shared, isa, "libisotrain.so"),
                   PYTHONPYCACHEPREFIX=os.path.join(runlib.ROOT, "build", "pycache", arch))
        env.pop("PYTHONDONTWRITEBYTECODE")  # the cache above is the point
        hosts.append(Host(isa, [qemu, "-L", root, "-cpu", cpu], os.path.join(root, "usr", "bin", "python3"), env,
                          qemu, cpu))

    t0 = time.time()
    jobs = []
    for h in hosts:
        args = ["--level", "all", "--steps", str(k), "--host", h.isa] + (["--windows"] if a.windows else [])
        if h.emulator:
            args += ["--slowdown", str(a.slowdown), "--emulator", h.emulator, "--emulator-cpu", h.cpu]
        r = runlib.Run(h.isa + "/isotrain-torch", conform,
                       " ".join(h.prefix + [h.python, IUT, "--gptchar-model", "nanogpt"]), args, h.env, out)
        r.host = h
        h.cure = r
        h.plain = Plain(h, k, out, conform)
        jobs += [r, h.plain]
    runlib.run_all(jobs, a.slots)

    bad = []
    lines = ["| host | runs as | isotrain.torch: runner verdict | digests, steps 0..%d (mlp13k, addmod113, gptchar "
             "through nanogpt.py + conform) | "
             "plain pinned PyTorch vs x86_64 (runner's compare, mlp13k, %d steps) | CPU s (wall s) |" % (k, k),
             "|---|---|---|---|---|---|"]
    ref = hosts[0]
    for h in hosts:
        r = h.cure.receipt()
        counts = (r or {}).get("counts", {})
        reasons = (r or {}).get("scope", {}).get("reasons", [])
        ok = (h.cure.verdict() == "PARTIAL" and counts.get("failed", 1) == 0 and counts.get("errors", 1) == 0 and
              all("--steps" in why for why in reasons))
        dig = h.cure.final_digests()
        same = all(dig.get(p, (None,))[0] == k for p in ("mlp13k", "addmod113", "gptchar"))
        ok = ok and same
        windows = ""
        if a.windows:  # the matrix's word on the receipt: PASS (windows) or not
            m = subprocess.run([conform, "matrix", "--allow-unsigned", h.cure.receipt_path], capture_output=True,
                               text=True)
            with open(os.path.join(out, "matrix-%s.txt" % h.isa), "w") as f:
                f.write(m.stdout + m.stderr)
            windows = "; matrix: " + ("PASS (windows)" if "PASS (windows)" in m.stdout else "not PASS (windows), see "
                                      "matrix-%s.txt" % h.isa)
            ok = ok and "PASS (windows)" in m.stdout
        if h is ref:
            problem = "(the reference host)"
            problem_ok = h.plain.status == 0
        else:
            c = subprocess.run([conform, "compare", ref.plain.trace, h.plain.trace, "--checkpoints-a", ref.plain.ck,
                                "--checkpoints-b", h.plain.ck], capture_output=True, text=True)
            with open(os.path.join(out, "compare-plain-x86_64-%s.txt" % h.isa), "w") as f:
                f.write(c.stdout + c.stderr)
            first = next((l.strip() for l in c.stdout.splitlines() if l.strip().startswith(("first differing step",
                                                                                              "identical"))), "?")
            problem = ("**differs**: " if c.returncode == 1 else "identical: " if c.returncode == 0 else "error: ") + first
            problem_ok = h.plain.status == 0 and c.returncode == 1
        if not ok:
            bad.append(h.isa + " isotrain.torch")
        if not problem_ok:
            bad.append(h.isa + " plain")
        runs_as = "%s -cpu %s, Debian python3-torch" % (h.emulator, h.cpu) if h.emulator else "native"
        lines.append("| %s | %s | **%s** %s | %s | %s | %.0f + %.0f (%.0f) |" % (
            h.isa, runs_as, h.cure.verdict(), h.cure.verdict_line().split(";")[0] + windows,
            "= vectors at every step 0..%d" % k if ok else "see %s" % h.cure.log_path, problem,
            h.cure.cpu, h.plain.cpu, max(h.cure.wall, h.plain.wall)))
    table = "\n".join(lines)
    summary = ("conforming_cross_isa: %d host(s), %d step(s) under emulation, %.0f s wall; %s"
               % (len(hosts), k, time.time() - t0, "as expected" if not bad else "NOT as expected: " + ", ".join(bad)))
    with open(os.path.join(out, "cross-isa.md"), "w") as f:
        f.write(table + "\n\n" + summary + "\n")
    print(table)
    print(summary)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
