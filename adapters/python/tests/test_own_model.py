#!/usr/bin/env python3
"""Your own architecture (issue 31 item 4): a GPT that is none of the spec's
profiles (3 blocks, d_model 96, 6 heads of 16, MLP 384, context 48; a text
this test writes), written the ordinary way (examples/nanogpt.py's classes,
other sizes), made conforming by isotrain.torch.conform, trained 20 steps
with gptchar's recipe (AdamW, decay on matrices, clipping, warm-up/decay).
The same digest must come out at every step however the run is set up:

    test_own_model.py [--lib SO]                 the check (make test-own-model)
    test_own_model.py --trace FILE [--plain]     one run: 'step digest' lines

The check runs the training in separate processes with settings that change
every plain-PyTorch number (the library's portable kernels on one thread;
its best kernels and PyTorch's AVX2 on two) and compares them step by step.
Negative control: the same model unconverted (plain PyTorch, --plain) starts
from the same bits (step 0) and must differ from step 1 on. Under QEMU the
same script's --trace runs in Debian's aarch64 python3-torch
(make own-model-cross-isa) and is compared with the native one.

How a user checks their own model the same way: build it, conform it with
one example input, init with isotrain.torch.init, train, hash the
parameters' little-endian bytes per step on two machines (or two settings)
and compare.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

SEED, STEPS, WARMUP, SEQS = 0x6F776E6D6F64656C, 20, 5, 8
SIZES = dict(ctx=48, d=96, heads=6, hidden=384, layers=3)


def text():
    """The training text, written here: numbered sentences about arithmetic."""
    words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    lines = []
    for i in range(60):
        a, b = words[i % 10], words[(i * 7 + 3) % 10]
        lines.append("Line %d: %s plus %s is a sum, and %s times %s is a product." % (i, a, b, b, a))
    return "\n".join(lines).encode() + b"\n"


def run(trace_path, plain):
    import numpy as np
    import torch
    import gptchar
    import isotrain.torch as it
    import nanogpt
    data = text()
    vocab = sorted(set(data))
    token = np.zeros(256, dtype=np.int64)
    token[vocab] = np.arange(len(vocab))
    tokens = token[np.frombuffer(data, dtype=np.uint8)]
    model = nanogpt.GPT(vocab=len(vocab), **SIZES)
    if not plain:
        model = it.conform(model, torch.zeros(1, SIZES["ctx"], dtype=torch.long))
    gptchar.init_(model, SEED)
    gptchar.MODEL = "plain" if plain else "nanogpt"
    groups = [{"params": [p for p in model.parameters() if p.dim() >= 2], "weight_decay": gptchar.WD},
              {"params": [p for p in model.parameters() if p.dim() < 2], "weight_decay": 0.0}]
    if plain:
        opt = torch.optim.AdamW(groups, lr=gptchar.LR_MAX, betas=gptchar.BETAS, eps=gptchar.EPS)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min((e + 1) / WARMUP, (STEPS - e) / (STEPS + 1 - WARMUP)))
        ce = torch.nn.CrossEntropyLoss()
    else:
        opt = it.optim.AdamW(groups, lr=gptchar.LR_MAX, betas=gptchar.BETAS, eps=gptchar.EPS)
        sched = it.lr_scheduler.WarmupLinearDecay(opt, WARMUP, STEPS)
        ce = it.nn.CrossEntropyLoss()
    loss_fn = lambda z, y: ce(z.view(-1, z.shape[-1]), y.view(-1))  # noqa: E731
    ctx = SIZES["ctx"]
    with open(trace_path, "w") as out:
        out.write("0 %s\n" % it.checkpoint.digest(model))
        for step in range(1, STEPS + 1):
            words = it.random.words(SEED, 64, (step - 1) * SEQS, SEQS)
            starts = it.random.below(words, len(tokens) - ctx).astype(np.int64)
            win = torch.from_numpy(tokens[starts[:, None] + np.arange(ctx + 1)[None, :]])
            gptchar.train_step(model, loss_fn, opt, sched, win[:, :-1].contiguous(), win[:, 1:].contiguous())
            out.write("%d %s\n" % (step, it.checkpoint.digest(model)))


def child(name, env_extra, tmp, plain=False, prefix=None):
    path = os.path.join(tmp, "own-%s.trace" % name)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **env_extra)
    cmd = (prefix or [sys.executable]) + [os.path.abspath(__file__), "--trace", path] + (["--plain"] if plain else [])
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("test_own_model: the %s run failed (exit %d):\n%s" % (name, r.returncode, r.stderr[-3000:]))
    with open(path) as f:
        return [line.split() for line in f]


def check_qemu(tmp, a):
    """The native portable run against the same script under QEMU in a
    sysroot's python3-torch, with that ISA's libisotrain.so."""
    native = child("portable-t1", {"ISOTRAIN_KERNELS": "portable", "ISOTRAIN_TORCH_THREADS": "1"}, tmp)
    root = os.path.abspath(a.sysroot)
    env = {"ISOTRAIN_LIB": os.path.abspath(a.qemu_lib), "ISOTRAIN_TORCH_THREADS": "1",
           "PYTHONPYCACHEPREFIX": os.path.abspath(a.pycache)} if a.pycache else \
        {"ISOTRAIN_LIB": os.path.abspath(a.qemu_lib), "ISOTRAIN_TORCH_THREADS": "1"}
    emu = child("qemu", env, tmp, prefix=[a.qemu, "-L", root, "-cpu", a.cpu, os.path.join(root, "usr/bin/python3")])
    same = [n[0] for n, e in zip(native, emu) if n == e]
    ok = len(native) == len(emu) == STEPS + 1 and len(same) == STEPS + 1
    print("%-4s own model under %s (-cpu %s, the sysroot's python3-torch): the native digest at every step "
          "(%d of %d steps equal; step %d: %s)" % ("ok" if ok else "FAIL", a.qemu, a.cpu, len(same), STEPS + 1,
                                                  STEPS, emu[-1][1] if emu else "-"))
    return ok


def check(tmp):
    runs = {"portable-t1": {"ISOTRAIN_KERNELS": "portable", "ISOTRAIN_TORCH_THREADS": "1",
                            "ATEN_CPU_CAPABILITY": "default"},
            "best-t2": {"ISOTRAIN_TORCH_THREADS": "2", "ATEN_CPU_CAPABILITY": "avx2"}}
    got = {name: child(name, env, tmp) for name, env in runs.items()}
    a, b = got["portable-t1"], got["best-t2"]
    ok = len(a) == len(b) == STEPS + 1 and a == b
    print("%-4s own model (3 blocks, d 96, 6 heads, ctx 48), %d steps: the same digest at every step, portable "
          "kernels 1 thread vs best kernels 2 threads" % ("ok" if ok else "FAIL", STEPS))
    print("     step %d digest %s" % (STEPS, a[-1][1] if a else "-"))
    plain = child("plain", {}, tmp, plain=True)
    control = plain[0] == a[0] and all(p[1] != c[1] for p, c in zip(plain[1:], a[1:]))
    print("%-4s negative control: the model in plain PyTorch starts from the same bits and differs from step 1 on "
          "(step 1: %s vs %s)" % ("ok" if control else "FAIL", plain[1][1][:16], a[1][1][:16]))
    return ok and control


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib")
    ap.add_argument("--trace")
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("--qemu", help="also run under this qemu-user binary (with --sysroot, --qemu-lib, --cpu)")
    ap.add_argument("--sysroot", help="a sysroot with python3-torch (ci/pytorch-sysroot.sh DIR/root)")
    ap.add_argument("--qemu-lib", help="libisotrain.so built for the emulated ISA")
    ap.add_argument("--cpu", default="max")
    ap.add_argument("--pycache", help="PYTHONPYCACHEPREFIX for the emulated python")
    a = ap.parse_args()
    if a.lib:
        os.environ["ISOTRAIN_LIB"] = os.path.abspath(a.lib)
    if a.trace:
        n = os.environ.get("ISOTRAIN_TORCH_THREADS")
        if n:
            import torch
            torch.set_num_threads(int(n))
        run(a.trace, a.plain)
        return
    tmp = os.environ.get("TMPDIR", "/tmp")
    if a.qemu:
        sys.exit(0 if check_qemu(tmp, a) else 1)
    sys.exit(0 if check(tmp) else 1)


if __name__ == "__main__":
    main()
