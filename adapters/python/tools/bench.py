#!/usr/bin/env python3
"""make bench-torch-conforming: steps per second of the conforming PyTorch
path against plain PyTorch and the C reference, the three profiles (gptchar
through nanogpt.py made conforming, and through gptchar.py), each through
its training command with a trace line and a parameter digest per step (what
the runner certifies):

  C reference      build/native/isotrain train --profile P --threads T
  isotrain.torch   adapters/python/examples/iut.py train --profile P   (ISOTRAIN_TORCH_THREADS=T)
  plain PyTorch    adapters/pytorch/iut.py (mlp13k), addmod113_profile.py (addmod113),
                   iut.py --gptchar-model plain (gptchar: nanogpt.py unconverted), pinned to
                   T threads: the same recipes with torch's own layers (not conforming)

Time is CPU time (user + system of the process and its threads, from
wait4), never wall time: the machine is shared. Per step = (CPU(N steps) -
CPU(0 steps)) / N, so start-up, imports, initialization and the step-0 line
cancel; the minimum over --repeat runs is reported. The traces of the C
reference and of isotrain.torch are also compared line for line: the fast
path must be the same bits.

    bench.py --lib SO --isotrain build/native/isotrain [--threads 1] [--steps-mlp13k 2000]
             [--steps-addmod113 20] [--steps-plain-addmod113 3] [--repeat 3] [--no-plain]

N must be large enough that N steps cost well above the start-up's noise
(a Python process with torch: about 0.3 s either way): a difference at or
below zero is reported as too noisy, never as a speed. The optional
evaluation of addmod113 (spec §13.7) is left out (ISOTRAIN_EVAL=0,
ISOTRAIN_TORCH_EVAL=0): it is not a training step.
"""

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
CONFORMING = os.path.normpath(os.path.join(HERE, "..", "examples", "iut.py"))
PLAIN = {"mlp13k": os.path.join(ROOT, "adapters", "pytorch", "iut.py"),
         "addmod113": os.path.join(ROOT, "adapters", "pytorch", "addmod113_profile.py")}


def cpu_of(cmd, env):
    """CPU seconds of one command (its whole process tree that it waited for)."""
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execve(cmd[0], cmd, env)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("bench: %s exited with %d" % (" ".join(cmd), os.waitstatus_to_exitcode(status)))
    return ru.ru_utime + ru.ru_stime


def per_step(make_cmd, env, n, repeat):
    """min over repeats of (CPU(n) - CPU(0)) / n; returns (seconds, trace of the last n-step run)."""
    best = None
    tmp = tempfile.mkdtemp(prefix="bench-torch-")
    trace = os.path.join(tmp, "trace.txt")
    for _ in range(repeat):
        c0 = cpu_of(make_cmd(0, trace), env)
        cn = cpu_of(make_cmd(n, trace), env)
        s = (cn - c0) / n
        if s > 0:
            best = s if best is None else min(best, s)
    with open(trace) as f:
        lines = f.read().splitlines()
    os.unlink(trace)
    os.rmdir(tmp)
    return best, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--isotrain", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps-mlp13k", type=int, default=2000)
    ap.add_argument("--steps-addmod113", type=int, default=20)
    ap.add_argument("--steps-gptchar", type=int, default=20)
    ap.add_argument("--steps-plain-addmod113", type=int, default=3,
                    help="plain PyTorch's addmod113 steps take seconds each with the reference BLAS")
    ap.add_argument("--steps", type=int, help="addmod113's step count (make's TORCH_BENCH_STEPS)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-plain", action="store_true")
    ap.add_argument("--profiles", default="mlp13k,addmod113,gptchar",
                    help="comma-separated: which profiles' rows (make's TORCH_BENCH_PROFILES)")
    a = ap.parse_args()
    if a.steps:
        a.steps_addmod113 = a.steps
    th = str(a.threads)
    env = dict(os.environ, ISOTRAIN_LIB=os.path.abspath(a.lib), ISOTRAIN_TORCH_THREADS=th, ISOTRAIN_THREADS=th,
               ISOTRAIN_EVAL="0", ISOTRAIN_TORCH_EVAL="0",
               ATEN_CPU_CAPABILITY=os.environ.get("ATEN_CPU_CAPABILITY", "default"), PYTHONDONTWRITEBYTECODE="1")
    py = os.path.realpath(a.python) if os.path.isabs(a.python) else a.python
    status = 0
    print("bench-torch: CPU time per training step, %s thread(s), min of %d x (CPU(N) - CPU(0)) / N; "
          "a trace line with the parameter digest every step" % (th, a.repeat))
    # (label, profile, N, the conforming IUT's leading arguments, plain PyTorch's command prefix)
    cases = [("mlp13k", "mlp13k", a.steps_mlp13k, [], [py, PLAIN["mlp13k"]]),
             ("addmod113", "addmod113", a.steps_addmod113, [], [py, PLAIN["addmod113"]]),
             ("gptchar (nanogpt.py + conform)", "gptchar", a.steps_gptchar, ["--gptchar-model", "nanogpt"],
              [py, CONFORMING, "--gptchar-model", "plain"]),
             ("gptchar (gptchar.py)", "gptchar", a.steps_gptchar, [], None)]
    wanted = set(a.profiles.split(","))
    for label, prof, n, it_args, plain_prefix in [c for c in cases if c[1] in wanted]:
        def c_cmd(k, trace, prof=prof):
            return [os.path.abspath(a.isotrain), "train", "--profile", prof, "--steps", str(k), "--trace", trace,
                    "--threads", th]

        def it_cmd(k, trace, prof=prof, it_args=it_args):
            return [py, CONFORMING] + it_args + ["train", "--profile", prof, "--steps", str(k), "--trace", trace]

        def plain_cmd(k, trace, prof=prof, prefix=plain_prefix):
            return prefix + ["train", "--profile", prof, "--steps", str(k), "--trace", trace]

        c, c_trace = per_step(c_cmd, env, n, a.repeat)
        t, t_trace = per_step(it_cmd, env, n, a.repeat)
        if c is None or t is None:
            print("  %s, N = %d: too noisy (CPU(N) - CPU(0) <= 0 in every repeat): raise N" % (label, n))
            status = 1
            continue
        same = c_trace == t_trace
        if not same:
            status = 1
        print("  %s, N = %d:" % (label, n))
        print("    C reference      %9.4f s/step  %9.2f steps/s" % (c, 1 / c if c else float("inf")))
        print("    isotrain.torch   %9.4f s/step  %9.2f steps/s  %.2fx the C reference's time; traces %s"
              % (t, 1 / t if t else float("inf"), t / c if c else float("inf"),
                 "identical (%d lines)" % len(c_trace) if same else "DIFFER"))
        if not a.no_plain and plain_prefix:
            pn = a.steps_plain_addmod113 if prof == "addmod113" else n
            p, _ = per_step(plain_cmd, env, pn, a.repeat)
            if p is None:
                print("    plain PyTorch    too noisy at N = %d" % pn)
            else:
                print("    plain PyTorch    %9.4f s/step  %9.2f steps/s  %.2fx the C reference's time (not conforming;"
                      " N = %d)" % (p, 1 / p, p / c, pn))
    sys.exit(status)


if __name__ == "__main__":
    main()
