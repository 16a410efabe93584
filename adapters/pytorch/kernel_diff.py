#!/usr/bin/env python3
"""Which PyTorch CPU ops give other float32 bits under another kernel set?

    kernel_diff.py [CAPABILITY ...]        (default: avx2, plus avx512 if the CPU has it)

Runs a fixed list of ops on identical inputs (drawn by numpy, so they do not
depend on PyTorch's kernels) once per ATEN_CPU_CAPABILITY, each in its own
python3 process (PyTorch reads the variable at import), and prints, per op, how
many result elements differ from the `default` kernels and by how many ULPs.

Informative: it explains *why* traces differ; whether two training runs differ
is the runner's verdict (`isotrain-conform compare`).
"""

import os
import subprocess
import sys
import tempfile

import numpy as np


def compute(out_path):
    import torch
    import torch.nn.functional as F
    rs = np.random.RandomState(0)
    R = lambda *s: torch.from_numpy(rs.standard_normal(s).astype(np.float32))  # noqa: E731
    z, a, w, b = R(64, 256), R(64, 32), R(256, 32), R(256)
    y = torch.from_numpy(rs.randint(0, 256, 64))
    h = torch.from_numpy(np.tanh(a.numpy().astype(np.float64)).astype(np.float32))
    g = R(64, 32)
    res = {}
    res["tanh"] = torch.tanh(a)
    res["tanh_backward (1-y*y)*g"] = torch.ops.aten.tanh_backward(g, h)
    res["exp"] = torch.exp(z)
    res["log"] = torch.log(z.abs() + 0.1)
    res["log_softmax"] = F.log_softmax(z, 1)
    zz = z.clone().requires_grad_()
    loss = F.cross_entropy(zz, y)
    loss.backward()
    res["cross_entropy (mean) value"] = loss.detach()
    res["cross_entropy backward"] = zz.grad
    res["softmax"] = F.softmax(z, 1)
    res["relu"] = F.relu(z)
    res["linear (BLAS sgemm)"] = F.linear(a, w, b)
    res["sum (all)"] = z.sum()
    res["sum (dim 0)"] = z.sum(0)
    p = a.clone()
    p.add_(g, alpha=-0.5)
    res["add_(alpha=-0.5): SGD lr 0.5"] = p
    p = a.clone()
    p.add_(g, alpha=-0.1)
    res["add_(alpha=-0.1): SGD lr 0.1"] = p
    res["sqrt"] = torch.sqrt(z.abs())
    res["div"] = a / (h.abs() + 1)
    p = a.clone()
    p.addcdiv_(g, h.abs() + 1e-3, value=-1e-3)
    res["addcdiv_ (Adam update)"] = p
    torch.manual_seed(0)
    res["torch.randn(1000) after manual_seed"] = torch.randn(1000)
    torch.manual_seed(0)
    res["nn.Embedding(114, 64) init"] = torch.nn.Embedding(114, 64).weight.detach()
    torch.manual_seed(0)
    res["nn.Linear(64, 256) init"] = torch.nn.Linear(64, 256).weight.detach()
    saved = {"%03d %s" % (i, k): v.detach().numpy() for i, (k, v) in enumerate(res.items())}
    saved.update({"in:a": a.numpy(), "in:g": g.numpy(), "in:h": h.numpy()})  # for the formula check
    np.savez(out_path, **saved)


def ulps(x, y):
    xi = x.view(np.int32).astype(np.int64)
    yi = y.view(np.int32).astype(np.int64)
    xi = np.where(xi < 0, -(xi & 0x7FFFFFFF), xi)
    yi = np.where(yi < 0, -(yi & 0x7FFFFFFF), yi)
    return np.abs(xi - yi)


def cpu_has(flag):
    try:
        with open("/proc/cpuinfo") as f:
            return any(flag in line.split() for line in f if line.startswith("flags"))
    except OSError:
        return False


def main(argv):
    if len(argv) > 2 and argv[1] == "--compute":
        compute(argv[2])
        return 0
    caps = argv[1:] or (["avx2"] + (["avx512"] if cpu_has("avx512f") else []))
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for cap in ["default"] + caps:
            path = os.path.join(tmp, cap + ".npz")
            env = dict(os.environ, ATEN_CPU_CAPABILITY=cap)
            subprocess.run([sys.executable, os.path.abspath(__file__), "--compute", path], env=env, check=True)
            results[cap] = np.load(path)
        base = results["default"]
        print("float32 results that differ from ATEN_CPU_CAPABILITY=default, identical inputs"
              " (PyTorch %s):" % __import__("torch").__version__)
        head = "  %-40s" % "op" + "".join("  %-30s" % ("vs " + c) for c in caps)
        print(head)
        for k in [k for k in base.files if not k.startswith("in:")]:
            x = base[k].reshape(-1)
            cells = []
            for c in caps:
                yv = results[c][k].reshape(-1)
                d = int(np.count_nonzero(x.view(np.uint32) != yv.view(np.uint32)))
                cells.append("identical" if d == 0 else
                             "%d/%d differ, <=%d ULP" % (d, x.size, int(ulps(x, yv).max())))
            print("  %-40s" % k[4:] + "".join("  %-30s" % c for c in cells))
        # which formula each kernel set's results equal (evidence/fused_forms.py)
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "evidence"))
        import fused_forms as ff
        a, g, h = base["in:a"], base["in:g"], base["in:h"]
        checks = (("tanh_backward (1-y*y)*g", ff.tanh_backward(g, h)),
                  ("add_(alpha=-0.1): SGD lr 0.1", ff.axpy(a, g, -0.1)))
        print("which formula each kernel set's results equal bit for bit (evidence/fused_forms.py):")
        for name, forms in checks:
            key = next(k for k in base.files if k[4:] == name)
            print("  %-40s" % name + "".join("  %s: %s" % (c, ff.classify(results[c][key], forms))
                                              for c in ["default"] + caps))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
