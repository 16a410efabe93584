"""The analysis behind `make pytorch-cross-isa`'s evidence: each function reads
the outputs host_probes.py wrote on every host (OUT/probes/<host>/) and
returns lines of text for the expectation table (expected/cross-isa.txt).
Runs on one host only; nothing here depends on which.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import fused_forms as ff  # noqa: E402
import op_sweep  # noqa: E402
from op_probe import OPS  # noqa: E402


def load(probes, host, name):
    return np.load(os.path.join(probes, host, name))


def first_op(probes, x, y):
    """(first differing op of step 1 or None, per-op lines) between hosts x and y."""
    f, g = load(probes, x, "ops.npz"), load(probes, y, "ops.npz")
    rows, first = [], None
    for name, _ in OPS:
        for k in sorted(k for k in f.files if k.startswith(name + ".")):
            n, ulp = op_sweep.compare(f[k], g[k])
            rows.append("  %-34s %5d of %5d differ%s" % (k, n, f[k].size, ", max %d ULP" % ulp if n else ""))
            if n and first is None:
                first = "%s (%d of %d, <= %d ULP)" % (k, n, f[k].size, ulp)
    return first, rows


def sweep_table(probes, hosts):
    """Markdown rows: output | one cell per host (x86_64 first, the baseline)."""
    outs = [load(probes, h, "sweep.npz") for h in hosts]
    lines = ["| case / output | " + " | ".join(hosts) + " |", "|---" * (len(hosts) + 1) + "|"]
    for key, cells in op_sweep.table(hosts, outs):
        lines.append("| %s | %s |" % (key.replace("|", ": "), " | ".join(cells)))
    return lines


def forms(probes, inputs, hosts):
    """Which formula each host's results equal bit for bit (fused_forms)."""
    s1 = np.load(os.path.join(inputs, "mlp13k-step1.npz"))
    sw = np.load(os.path.join(inputs, "sweep.npz"))
    cases = [  # (label, npz, output key, candidate forms)
        ("step 1: linear1 forward z1 = F.linear(e, w1, b1)", "ops.npz", "linear1_forward.z1",
         ff.matmul(s1["e"], s1["w1"].T, s1["b1"])),
        ("step 1: linear2 forward logits", "ops.npz", "linear2_forward.logits", ff.matmul(s1["h"], s1["w2"].T, s1["b2"])),
        ("step 1: linear2 backward dh = dlogits @ w2", "ops.npz", "linear2_backward.dh", ff.matmul(s1["dlogits"], s1["w2"])),
        ("step 1: linear2 backward dw2 = dlogits^T @ h", "ops.npz", "linear2_backward.dw2", ff.matmul(s1["dlogits"].T, s1["h"])),
        ("step 1: linear1 backward dw1 = dz1^T @ e", "ops.npz", "linear1_backward.dw1", ff.matmul(s1["dz1"].T, s1["e"])),
        ("step 1: tanh backward dz1 = dh * (1 - h*h)", "ops.npz", "tanh_backward.dz1", ff.tanh_backward(s1["dh"], s1["h"])),
        ("step 1: SGD w2 - 0.5*dw2", "ops.npz", "sgd_update.w2_new", ff.axpy(s1["w2"], s1["dw2"], -0.5)),
    ]
    for m, k, n in op_sweep.MM_SHAPES:
        for r in ("unit", "wide"):
            c = "mm %dx%dx%d %s" % (m, k, n, r)
            cases.append((c, "sweep.npz", c + "|y", ff.matmul(sw[c + "|in0"], sw[c + "|in1"])))
    for m, k, n in op_sweep.LIN_SHAPES:
        c = "addmm %dx%dx%d unit" % (m, k, n)
        cases.append((c + " (a k-by-n contiguous matrix)", "sweep.npz", c + "|y",
                      ff.matmul(sw[c + "|in1"], sw[c + "|in2"], sw[c + "|in0"])))
        c = "linear %dx%dx%d unit" % (m, k, n)
        x, w, b, g = (sw["%s|in%d" % (c, i)] for i in range(4))
        cases += [(c + " y", "sweep.npz", c + "|y", ff.matmul(x, w.T, b)),
                  (c + " dx = g @ w", "sweep.npz", c + "|dx", ff.matmul(g, w)),
                  (c + " dw = g^T @ x", "sweep.npz", c + "|dw", ff.matmul(g.T, x))]
        c = "numpy sgemm %dx%dx%d unit" % (m, k, n)
        cases.append((c, "sweep.npz", c + "|y", ff.matmul(sw[c + "|in0"], sw[c + "|in1"])))
    c = "sgd/adam updates 64x256"
    cases.append((c + ": add_(alpha=-0.1)", "sweep.npz", c + "|add_ alpha=-0.1",
                  ff.axpy(sw[c + "|in0"], sw[c + "|in1"], -0.1)))
    for shape in ("64x256", "67"):
        c = "tanh %s tanharg" % shape
        # autograd's tanh backward uses the host's own forward output y
        cases.append((c + ": backward g*(1-y*y)", "sweep.npz", c + "|d0",
                      lambda h, c=c: ff.tanh_backward(sw[c + "|in1"], load(probes, h, "sweep.npz")[c + "|y"])))
    lines = []
    for label, npz, key, cand in cases:
        cells = ["%s %s" % (h, ff.classify(load(probes, h, npz)[key], cand(h) if callable(cand) else cand))
                 for h in hosts]
        lines.append("%s: %s" % (label, "; ".join(cells)))
    # uniform_: x is what rand() gives after the same seed (the same generator draws)
    x = load(probes, hosts[0], "sweep.npz")["init after manual_seed(0)|rand"]
    b = np.float32(op_sweep.UNIFORM_BOUND)
    cand = ff.uniform(x, -b, b)
    cells = ["%s %s" % (h, ff.classify(load(probes, h, "sweep.npz")["init after manual_seed(0)|uniform_(+-1/sqrt(32))"],
                                      cand)) for h in hosts]
    lines.append("uniform_(+-1/sqrt(32)) after manual_seed(0), x = rand() after the same seed: %s" % "; ".join(cells))
    return lines


def libm(probes, hosts):
    """torch.tanh vs the C library's tanhf and torch.exp vs expf, per host, same inputs."""
    lines = []
    for h in hosts:
        f = load(probes, h, "libm.npz")
        for s in sorted({k.split("|")[0] for k in f.files}):
            n, ulp = op_sweep.compare(f[s + "|torch"], f[s + "|libm"])
            fn = s.split()[0]
            lines.append("%-8s torch.%s vs libm %sf on %-26s %s" % (
                h, fn, fn, s[len(fn) + 1:] + " (%d)" % f[s + "|x"].size,
                "identical" if n == 0 else "%d differ, <= %d ULP" % (n, ulp)))
    return lines
