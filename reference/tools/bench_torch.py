#!/usr/bin/env python3
"""make bench, second half: the same two models in PyTorch, as a user
writes them, on the same shapes, and the ratios to isotrain's figures of
the first half (reference/tools/bench.c's `bench-summary` line).

- mlp13k: adapters/pytorch/iut.py's model (nn.Embedding -> nn.Linear -> tanh
  -> nn.Linear -> cross_entropy), SGD lr 0.5, batch 64;
- addmod113: the spec's one-layer transformer doing the same work as the
  reference (q, the MLP and the logits at position 2 only; k and v at the
  three positions), full batch of 3,831 pairs, torch.optim.AdamW with the
  profile's constants;
- gptchar: a GPT-2-style model of gptchar's shapes (spec §14: 2 pre-LayerNorm
  blocks, d_model 64, 4 heads of 16, MLP 256 with tanh GELU, context 32,
  vocabulary 63, tied embeddings, 16 sequences a step), causal attention
  written out (scores, mask, softmax, weighted sum), torch.optim.AdamW with
  decay 0.1 and clipping to norm 1, as a user writes it.

Each model runs in a child process of its own per thread count T, with
torch.set_num_threads(T) and OPENBLAS_NUM_THREADS=T set before anything is
loaded, and reports which BLAS its process actually mapped (/proc/self/maps)
and, for OpenBLAS, the core type its kernels were chosen for. make bench
puts a private extraction of Debian's OpenBLAS first in LD_LIBRARY_PATH
(ci/openblas-private.sh: never installed system-wide) and passes its
directory as --expect-blas: a run that did not map it says so. OpenBLAS
is measured on its best kernels for this CPU: once choosing them itself
(OPENBLAS_CORETYPE unset) and once per core type of its own that this CPU's
features allow (OPENBLAS_CORETYPE=SkylakeX, Haswell, ...: 0.3.21 takes an
AVX-512 Xeon it does not know for a Prescott, its SSE3 kernels); the
fastest of them per model is the one the ratios use, and every one is
printed. Times are CPU time (all threads) and wall clock; a benchmark, not
a test.

The profiles' names are not spelled here: bench.c's `bench-profiles` line
(--profiles) gives each row of the reference's profile table
(reference/src/profiles.c) with its spec clause, and each model below is
bound to the clause that defines it (CLAUSES); a clause the table does not
have is an error, so the two cannot drift apart.

    python3 reference/tools/bench_torch.py --profiles "bench-profiles ..." --summary "bench-summary ..."
        [--expect-blas DIR]
        [--mlp-steps N] [--am-steps N] [--gc-steps N] [--runs R] [--threads 1,2]
"""
import argparse
import ctypes
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "adapters", "pytorch"))

# The models, by the spec clause of their profile (§11, §13, §14), in the
# order they are measured; names from --profiles
MLP, AM, GC = "11", "13", "14"
CLAUSES = (MLP, AM, GC)

# FLOPs of the products, as bench.c counts them (spec §11.6, §13.5)
MLP13K_FLOPS = 2.0 * 3 * (16 * 32 + 32 * 256) * 64
D, F, NO, T, H, DH = 128, 512, 113, 3, 4, 32
AM_MACS = ((D * D + 2 * T * D * D + D * D + D * F + F * D + D * NO) * 3 + 2 * H * T * DH + 4 * H * T * DH) * 3831
# gptchar (bench.c's gptchar_flops)
GC_L, GC_D, GC_F, GC_V, GC_T, GC_H, GC_B = 2, 64, 256, 63, 32, 4, 16
GC_FLOPS = 2.0 * (3.0 * (GC_L * (4 * GC_D * GC_D + 2 * GC_D * GC_F) + GC_D * GC_V) * GC_B * GC_T
                  + 6.0 * GC_L * GC_B * GC_H * (GC_T * (GC_T + 1) / 2) * (GC_D // GC_H))


def loaded_blas():
    """The BLAS/LAPACK libraries mapped into this process, and Debian's
    libblas.so.3 alternative."""
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split()
                path = parts[-1] if len(parts) >= 6 else ""
                base = os.path.basename(path)
                if "blas" in base or "mkl" in base or "lapack" in base:
                    libs.add(path)
    except OSError:
        pass
    alt = None
    for name in ("/etc/alternatives/libblas.so.3-x86_64-linux-gnu", "/etc/alternatives/libblas.so.3-aarch64-linux-gnu"):
        if os.path.exists(name):
            alt = os.path.realpath(name)
    return sorted(libs), alt


def openblas_core(libs):
    """OpenBLAS's own report of the kernels it runs (openblas_get_corename)."""
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            lib.openblas_get_config.restype = ctypes.c_char_p
            return "%s (%s)" % (lib.openblas_get_corename().decode(), lib.openblas_get_config().decode().strip())
        except (OSError, AttributeError):
            continue
    return None


# OpenBLAS's x86_64 core types (DYNAMIC_ARCH), best first, with the CPU
# features (/proc/cpuinfo flags) each one's kernels need
OPENBLAS_CORES = (("Cooperlake", {"avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512_bf16"}),
                  ("SkylakeX", {"avx512f", "avx512dq", "avx512bw", "avx512vl"}),
                  ("Haswell", {"avx2", "fma"}),
                  ("Sandybridge", {"avx"}),
                  ("Nehalem", {"sse4_2"}))


def openblas_cores_for_this_cpu():
    """the core types this CPU runs, best first (x86_64 only; elsewhere OpenBLAS's own choice alone)"""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((set(l.split(":", 1)[1].split()) for l in f if l.startswith("flags")), set())
    except OSError:
        return []
    return [name for name, need in OPENBLAS_CORES if need <= flags]


def gptchar_model(torch):
    """gptchar's shapes in plain PyTorch: (make, step) for child()"""
    nn, F_ = torch.nn, torch.nn.functional
    dh = GC_D // GC_H

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(GC_D), nn.LayerNorm(GC_D)
            self.q, self.k, self.v, self.o = (nn.Linear(GC_D, GC_D) for _ in range(4))
            self.fc, self.proj = nn.Linear(GC_D, GC_F), nn.Linear(GC_F, GC_D)

        def forward(self, x, mask):
            B = x.shape[0]
            h = self.ln1(x)
            q, k, v = (m(h).view(B, GC_T, GC_H, dh).transpose(1, 2) for m in (self.q, self.k, self.v))
            s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(dh))
            w = F_.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
            x = x + self.o((w @ v).transpose(1, 2).reshape(B, GC_T, GC_D))
            return x + self.proj(F_.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(GC_V, GC_D)
            self.wpe = nn.Parameter(torch.randn(GC_T, GC_D) * 0.01)
            self.blocks = nn.ModuleList(Block() for _ in range(GC_L))
            self.lnf = nn.LayerNorm(GC_D)
            self.register_buffer("mask", torch.triu(torch.ones(GC_T, GC_T, dtype=torch.bool), 1))

        def forward(self, idx):
            x = self.wte(idx) + self.wpe
            for b in self.blocks:
                x = b(x, self.mask)
            return self.lnf(x) @ self.wte.weight.t()  # tied output

    g = torch.Generator().manual_seed(0)
    data = torch.randint(0, GC_V, (64, GC_B, GC_T + 1), generator=g)

    def make():
        torch.manual_seed(0)
        m = GPT()
        return m, torch.optim.AdamW(m.parameters(), lr=3e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)

    def step(m, opt, t):
        batch = data[t % 64]
        opt.zero_grad()
        logits = m(batch[:, :-1])
        loss = F_.cross_entropy(logits.reshape(-1, GC_V), batch[:, 1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()

    return make, step


def child(clause, threads, steps, runs):
    import torch
    torch.set_num_threads(threads)
    if clause == MLP:
        import torch.nn.functional as F_
        import isotrain_spec as spec
        from iut import build_model
        corpus = spec.load_corpus()
        batches = []
        for t in range(1, 201):  # the profile's 200 batches, cycled: sampling is not what is timed
            xs, ys = spec.mlp13k_batch(t, corpus)
            batches.append((torch.tensor(xs, dtype=torch.long), torch.tensor(ys, dtype=torch.long)))

        def make():
            model = build_model(torch)
            return model, torch.optim.SGD(model.parameters(), lr=0.5)

        def step(m, opt, t):
            x, y = batches[t % 200]
            opt.zero_grad()
            loss = F_.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
    elif clause == GC:
        make, step = gptchar_model(torch)
    else:
        nn, F_ = torch.nn, torch.nn.functional

        class SameWork(nn.Module):
            """spec §13.5's computation: only the query, MLP and logits of position 2"""

            def __init__(self):
                super().__init__()
                self.tok = nn.Embedding(NO + 1, D)
                self.pos = nn.Parameter(torch.randn(T, D) * 0.1)
                self.q = nn.Linear(D, D, bias=False)
                self.k = nn.Linear(D, D, bias=False)
                self.v = nn.Linear(D, D, bias=False)
                self.o = nn.Linear(D, D, bias=False)
                self.mlp_in = nn.Linear(D, F)
                self.mlp_out = nn.Linear(F, D)
                self.unembed = nn.Linear(D, NO, bias=False)

            def forward(self, seq):
                B = seq.shape[0]
                x = self.tok(seq) + self.pos
                q = self.q(x[:, 2]).view(B, H, 1, DH)
                k = self.k(x).view(B, T, H, DH).transpose(1, 2)
                v = self.v(x).view(B, T, H, DH).transpose(1, 2)
                w = F_.softmax((q @ k.transpose(-1, -2)) / math.sqrt(DH), dim=-1)
                z = (w @ v).reshape(B, D)
                r = x[:, 2] + self.o(z)
                r2 = r + self.mlp_out(F_.relu(self.mlp_in(r)))
                return self.unembed(r2)

        g = torch.Generator().manual_seed(0)
        perm = torch.randperm(NO * NO, generator=g)[:3831]
        a, b = perm // NO, perm % NO
        seq = torch.stack([a, b, torch.full_like(a, NO)], dim=1)
        labels = (a + b) % NO

        def make():
            torch.manual_seed(0)
            model = SameWork()
            return model, torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-8,
                                            weight_decay=1.0)

        def step(m, opt, t):
            opt.zero_grad()
            loss = F_.cross_entropy(m(seq), labels)
            loss.backward()
            opt.step()

    cpu, wall = [], []
    for _ in range(runs):
        m, opt = make()
        step(m, opt, 0)  # warm-up: allocations, BLAS threads
        c0, w0 = time.process_time(), time.perf_counter()
        for t in range(1, steps + 1):
            step(m, opt, t)
        cpu.append((time.process_time() - c0) / steps)
        wall.append((time.perf_counter() - w0) / steps)
    cpu.sort()
    wall.sort()
    libs, alt = loaded_blas()
    print(json.dumps({"cpu": cpu[len(cpu) // 2], "wall": wall[len(wall) // 2], "libs": libs, "alt": alt,
                      "core": openblas_core(libs), "torch": torch.__version__,
                      "threads": torch.get_num_threads(),
                      "capability": os.environ.get("ATEN_CPU_CAPABILITY", "default (best)")}))


def profile_names(line):
    """clause -> name from bench.c's `bench-profiles name:clause ...` line"""
    words = line.split()
    if not words or words[0] != "bench-profiles":
        raise SystemExit("bench_torch: --profiles: expected bench.c's 'bench-profiles NAME:CLAUSE ...' line, got %r"
                         % line)
    names = {}
    for w in words[1:]:
        name, _, clause = w.partition(":")
        if not name or not clause:
            raise SystemExit("bench_torch: --profiles: %r is not NAME:CLAUSE" % w)
        names[clause] = name
    missing = [c for c in CLAUSES if c not in names]
    if missing:
        raise SystemExit("bench_torch: --profiles: no profile of spec clause %s in the reference's table (%s)"
                         % (", ".join(missing), line))
    return names


def run_child(model, threads, steps, runs, core=None):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               PYTHONDONTWRITEBYTECODE="1")
    env.pop("OPENBLAS_CORETYPE", None)  # None: OpenBLAS chooses itself
    if core:
        env["OPENBLAS_CORETYPE"] = core
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", model, "--threads", str(threads),
                        "--steps", str(steps), "--runs", str(runs)], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s on %d threads: %s" % (model, threads, p.stderr.strip()[-500:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profiles", default="", help="bench.c's bench-profiles line")
    ap.add_argument("--summary", default="", help="bench.c's bench-summary line")
    ap.add_argument("--expect-blas", default="", help="the directory the private OpenBLAS was extracted to")
    ap.add_argument("--mlp-steps", type=int, default=2000)
    ap.add_argument("--am-steps", type=int, default=3)
    ap.add_argument("--gc-steps", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--child", default="")
    ap.add_argument("--steps", type=int, default=0)
    a = ap.parse_args()
    if a.child:
        child(a.child, int(a.threads), a.steps, a.runs)
        return 0
    name = profile_names(a.profiles)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("pytorch: not importable (make pytorch-deps installs python3-torch): no comparison")
        return 0
    ours = dict(kv.split("=") for kv in a.summary.split()[1:]) if a.summary.startswith("bench-summary") else {}
    ours = {k: float(v) for k, v in ours.items()}
    peak = ours.get("peak", 0.0)
    threads = [int(t) for t in a.threads.split(",")]
    print("PyTorch on the same shapes (child process per thread count; OPENBLAS_NUM_THREADS = torch threads):")
    if a.expect_blas:
        print("  private OpenBLAS extracted to %s (put first in LD_LIBRARY_PATH for these processes only)" % a.expect_blas)
    else:
        print("  NO private OpenBLAS (ci/openblas-private.sh failed): PyTorch runs with the system's libblas.so.3")
    # OpenBLAS's own choice, then every core type this CPU's features allow
    cores = [None] + (openblas_cores_for_this_cpu() if a.expect_blas else [])
    res, best_core = {}, {}
    for clause, steps in ((MLP, a.mlp_steps), (AM, a.am_steps), (GC, a.gc_steps)):
        model = name[clause]
        runs = a.runs if clause == MLP else max(1, min(a.runs, 3))
        for th in (threads if clause != MLP else [1]):
            # one thread: every core type, the fastest kept; more threads: that one
            for core in (cores if th == 1 else [best_core.get(model)]):
                try:
                    r = run_child(clause, th, steps, runs, core)
                except RuntimeError as e:
                    print("  %s, %d threads, OPENBLAS_CORETYPE %s: FAILED: %s" % (model, th, core or "unset", e))
                    continue
                if th == 1 and ((model, th) not in res or r["cpu"] < res[(model, th)]["cpu"]):
                    res[(model, th)], best_core[model] = r, core
                elif th > 1:
                    res[(model, th)] = r
                blas_ok = bool(a.expect_blas) and any(
                    os.path.realpath(l).startswith(os.path.realpath(a.expect_blas)) for l in r["libs"])
                if clause == MLP:
                    what = "%7.0f steps/s (wall %.0f; %.1f %% of peak)" % (
                        1 / r["cpu"], 1 / r["wall"], 100 * MLP13K_FLOPS / r["cpu"] / (peak * 1e9) if peak else 0)
                else:
                    flops = 2 * AM_MACS if clause == AM else GC_FLOPS
                    what = "%.4f s/step (wall %.4f; %.1f %% of peak by isotrain's FLOP count)" % (
                        r["cpu"], r["wall"], 100 * flops / r["cpu"] / (peak * 1e9) if peak else 0)
                print("  %-9s torch %s, %d thread%s, OPENBLAS_CORETYPE=%s (capability %s): %s" % (
                    model, r["torch"], r["threads"], "s" if th > 1 else " ", core or "(unset)", r["capability"], what))
                print("            BLAS mapped: %s%s; OpenBLAS core: %s; libblas.so.3 alternative -> %s" % (
                    ", ".join(r["libs"]) or "none",
                    "" if not a.expect_blas else (" (the private OpenBLAS)" if blas_ok else " (NOT the private OpenBLAS)"),
                    r["core"] or "-", r["alt"] or "?"))
    for model, core in best_core.items():
        if a.expect_blas:
            print("  fastest OpenBLAS core type for %s: %s" % (model, core or "OpenBLAS's own choice (unset)"))
    print("ratios (isotrain's best set against PyTorch on its fastest OpenBLAS core in this run; CPU time):")
    mn, an, gn = name[MLP], name[AM], name[GC]
    m = res.get((mn, 1))
    if m and ours:
        print("  %s, CLI with trace + digest every step / PyTorch (which hashes nothing): x%.2f (target >= 2)"
              % (mn, ours[mn + "_cli"] * m["cpu"]))
        print("  %s, library / PyTorch: x%.2f" % (mn, ours[mn + "_lib"] * m["cpu"]))
    for th in threads:
        r = res.get((an, th))
        if r and ours and th == 1:
            print("  %s, 1 thread, PyTorch / isotrain library: x%.2f, / isotrain CLI with digests: x%.2f "
                  "(target >= 3.5)" % (an, r["cpu"] / ours[an + "_lib"], r["cpu"] / ours[an + "_cli"]))
    r1, r2 = res.get((an, 1)), res.get((an, 2))
    if r1 and r2:
        print("  PyTorch %s, 2 threads / 1 thread: wall x%.2f, CPU spent x%.2f" % (an, r1["wall"] / r2["wall"],
                                                                                r2["cpu"] / r1["cpu"]))
    g1, g2 = res.get((gn, 1)), res.get((gn, 2))
    if g1 and ours.get(gn + "_lib"):
        print("  %s, 1 thread, PyTorch / isotrain library: x%.2f, / isotrain CLI with digests: x%.2f "
              "(target >= 1.5)" % (gn, g1["cpu"] / ours[gn + "_lib"], g1["cpu"] / ours[gn + "_cli"]))
    if g2 and ours.get(gn + "_lib2_wall"):
        print("  %s, 2 threads (wall), PyTorch / isotrain library: x%.2f" % (gn, g2["wall"] / ours[gn + "_lib2_wall"]))
    if g1 and g2:
        print("  PyTorch %s, 2 threads / 1 thread: wall x%.2f" % (gn, g1["wall"] / g2["wall"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
