#!/usr/bin/env python3
"""make bench, second half: mlp13k as a PyTorch user writes it
(adapters/pytorch/iut.py's model: nn.Embedding -> nn.Linear -> tanh ->
nn.Linear -> cross_entropy, SGD lr 0.5, batch 64) on one thread, steps per
second, with the BLAS the process actually loaded; then the ratio to
isotrain's best kernel set (--ours STEPS_PER_S). A benchmark, not a test.

    python3 reference/tools/bench_torch.py [--steps N] [--runs R] [--ours RATE]
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "adapters", "pytorch"))


def loaded_blas():
    """The BLAS/LAPACK libraries mapped into this process, and where
    Debian's libblas.so.3 alternative points (update-alternatives)."""
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                base = os.path.basename(path)
                if "blas" in base or "mkl" in base or "lapack" in base:
                    libs.add(os.path.realpath(path))
    except OSError:
        pass
    alt = None
    for name in ("/etc/alternatives/libblas.so.3-x86_64-linux-gnu", "/etc/alternatives/libblas.so.3-aarch64-linux-gnu"):
        if os.path.exists(name):
            alt = os.path.realpath(name)
    return sorted(libs), alt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ours", type=float, default=0.0, help="isotrain's best steps/s, for the ratio")
    a = ap.parse_args()
    # one core for BLAS too (OpenBLAS starts its own threads otherwise)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        import torch
    except ImportError:
        print("pytorch: not importable (install python3-torch, and libopenblas0-pthread for the "
              "comparison users would make): skipped")
        return 0
    import torch.nn.functional as F
    import isotrain_spec as spec
    from iut import build_model

    torch.set_num_threads(1)
    corpus = spec.load_corpus()
    batches = []
    for t in range(1, 201):  # the profile's 200 batches, cycled: sampling is not what is timed
        xs, ys = spec.mlp13k_batch(t, corpus)
        batches.append((torch.tensor(xs, dtype=torch.long), torch.tensor(ys, dtype=torch.long)))
    rates = []
    for _ in range(a.runs):
        model = build_model(torch)
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        t0 = time.thread_time()  # CPU time, as bench.c: waiting for a core is not counted
        for t in range(a.steps):
            x, y = batches[t % 200]
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        rates.append(a.steps / (time.thread_time() - t0))
    rates.sort()
    rate = rates[len(rates) // 2]
    libs, alt = loaded_blas()
    import re
    blas_info = re.findall(r"BLAS_INFO=[^,]*", torch.__config__.show())
    print("pytorch %s, one thread (torch.set_num_threads(1)), capability %s: %.0f steps/s "
          "(median of %d runs of %d steps; best %.0f)" % (torch.__version__, os.environ.get("ATEN_CPU_CAPABILITY", "default (best)"),
                                                          rate, a.runs, a.steps, rates[-1]))
    print("  BLAS loaded: %s; libblas.so.3 -> %s; %s" % (", ".join(libs) or "none mapped", alt or "?",
                                                          "torch " + blas_info[0] if blas_info else "BLAS_INFO unknown"))
    if a.ours > 0:
        print("  isotrain best kernel set / PyTorch: %.2fx (target >= 2.5x against PyTorch+OpenBLAS)" % (a.ours / rate))
    return 0


if __name__ == "__main__":
    sys.exit(main())
