#!/usr/bin/env python3
"""Single PyTorch (and numpy) ops over several shapes and value ranges, on
identical inputs on every host: which ops give other bits on another ISA?

    op_sweep.py inputs FILE.npz          draw every case's inputs (once, on one host)
    op_sweep.py run INPUTS.npz OUT.npz   run every case on those inputs, save the outputs
    op_sweep.py table OUT_A.npz ...      per output: digest per host, differences from the first

`make pytorch-cross-isa` draws the inputs natively and runs `run` on x86_64
and under QEMU on aarch64, s390x and ppc64le (inside the same process as
op_probe.py: host_probes.py), with ATEN_CPU_CAPABILITY=default and one
thread; `table` is the per-op, per-ISA table of adapters/pytorch/README.md.

Inputs. Every value is built from integers drawn with numpy's PCG64 (integer
draws only, no float conversion), as k * 2^-p or as a bit pattern, so each is
an exact binary32 value; then the inputs are written once, little-endian, and
every host reads the same bytes. Value ranges:
  unit     k * 2^-23, k uniform in [-2^23, 2^23)       [-1, 1), 24-bit values
  wide     random sign, exponent in [-20, 20], random 23-bit mantissa
  pos      as wide, positive (sqrt, log, denominators)
  int8     integers in [-8, 8]: every product and sum of the matmuls below is
           exact, so any summation order or fusion gives the same bits - the
           control row that must agree everywhere
  tanharg  [-4, 4) in steps of 2^-21;  exparg [-64, 64) in steps of 2^-17;
  logits   [-8, 8) in steps of 2^-20
The `init` cases take no inputs: PyTorch's own generator after
torch.manual_seed(0) (uniform_, normal_, randn, rand, nn.Linear / nn.Embedding
default initialisation: mlp13k's three tensors with PyTorch's own init).
"""
import hashlib
import os
import sys

import numpy as np

SEED = 20261201  # PCG64 seed of the inputs; any fixed value would do
# nn.Linear(32, n)'s kaiming_uniform_ bound, 1/sqrt(32): a range whose width
# is not a power of two, so uniform_'s x*(hi-lo)+lo rounds (with 0.25 it is exact)
UNIFORM_BOUND = 32 ** -0.5

MM_SHAPES = [(64, 16, 32), (64, 32, 256), (128, 128, 128), (1, 256, 256)]  # (m, k, n): mlp13k's two linears, 128^3, a vector
LIN_SHAPES = [(64, 16, 32), (128, 128, 128)]
EW = (64, 256)     # elementwise shape (vector loops)
TAIL = (67,)       # an odd length: the scalar tail of the vector loops


def draw(rng, kind, shape):
    """An exact binary32 array of `shape` from range `kind` (see the module text)."""
    n = int(np.prod(shape))
    if kind in ("unit", "tanharg", "exparg", "logits"):
        p = {"unit": 23, "tanharg": 21, "exparg": 17, "logits": 20}[kind]
        k = rng.integers(0, 1 << 24, n, dtype=np.int64) - (1 << 23)
        v = (k.astype(np.float64) * 2.0 ** -p).astype(np.float32)
    elif kind == "int8":
        v = rng.integers(-8, 9, n, dtype=np.int64).astype(np.float32)
    elif kind in ("wide", "pos"):
        sign = rng.integers(0, 2, n, dtype=np.uint32) if kind == "wide" else np.zeros(n, dtype=np.uint32)
        exp = rng.integers(127 - 20, 127 + 21, n, dtype=np.uint32)
        man = rng.integers(0, 1 << 23, n, dtype=np.uint32)
        v = ((sign << np.uint32(31)) | (exp << np.uint32(23)) | man).view(np.float32)
    else:
        raise KeyError(kind)
    return v.reshape(shape)


def cases():
    """[(case name, [(input shape, range) ...], function(torch, *inputs) -> {output: array})]."""
    out = []

    def add(name, inputs, fn):
        out.append((name, inputs, fn))

    # --- matrix products: torch's BLAS (libblas.so.3) and numpy's
    for m, k, n in MM_SHAPES:
        for r in ("unit", "wide", "int8"):
            add("mm %dx%dx%d %s" % (m, k, n, r), [((m, k), r), ((k, n), r)],
                lambda t, a, b: {"y": t.mm(a, b)})
    for m, k, n in LIN_SHAPES:
        for r in ("unit", "int8"):
            add("addmm %dx%dx%d %s" % (m, k, n, r), [((n,), r), ((m, k), r), ((k, n), r)],
                lambda t, c, a, b: {"y": t.addmm(c, a, b)})
            add("linear %dx%dx%d %s" % (m, k, n, r), [((m, k), r), ((n, k), r), ((n,), r), ((m, n), r)], linear)
            add("numpy sgemm %dx%dx%d %s" % (m, k, n, r), [((m, k), r), ((k, n), r)],
                lambda t, a, b: {"y": t.from_numpy(np.dot(a.numpy(), b.numpy()))})
    # --- elementwise, with autograd's backward for an upstream gradient g
    for shape in (EW, TAIL):
        s = "x".join(map(str, shape))
        for r in ("unit", "wide"):
            add("add %s %s" % (s, r), [(shape, r), (shape, r)], lambda t, a, b: {"y": a + b})
            add("mul %s %s" % (s, r), [(shape, r), (shape, r), (shape, "unit")], lambda t, a, b, g: grads(t, t.mul, (a, b), g))
            add("div %s %s" % (s, r), [(shape, r), (shape, "pos"), (shape, "unit")], lambda t, a, b, g: grads(t, t.div, (a, b), g))
        add("sqrt %s pos" % s, [(shape, "pos"), (shape, "unit")], lambda t, a, g: grads(t, t.sqrt, (a,), g))
        add("exp %s exparg" % s, [(shape, "exparg"), (shape, "unit")], lambda t, a, g: grads(t, t.exp, (a,), g))
        add("log %s pos" % s, [(shape, "pos"), (shape, "unit")], lambda t, a, g: grads(t, t.log, (a,), g))
        add("tanh %s tanharg" % s, [(shape, "tanharg"), (shape, "unit")], lambda t, a, g: grads(t, t.tanh, (a,), g))
        add("sigmoid %s tanharg" % s, [(shape, "tanharg"), (shape, "unit")], lambda t, a, g: grads(t, t.sigmoid, (a,), g))
    # --- reductions
    for r in ("unit", "wide"):
        add("sum/mean 64x256 %s" % r, [(EW, r)],
            lambda t, a: {"sum": a.sum(), "sum0": a.sum(0), "sum1": a.sum(1), "mean": a.mean(), "mean1": a.mean(1)})
    add("sum 65536 unit", [((65536,), "unit")], lambda t, a: {"sum": a.sum()})
    # --- softmax and cross-entropy (mean), forward and backward
    for rows, cols in ((64, 256), (512, 113)):
        add("softmax/xent %dx%d logits" % (rows, cols), [((rows, cols), "logits"), ((rows,), "target%d" % cols)], xent)
    # --- optimizer updates
    add("sgd/adam updates 64x256", [(EW, "unit"), (EW, "unit"), (EW, "pos")], updates)
    # --- PyTorch's own generator (no inputs)
    add("init after manual_seed(0)", [], init)
    return out


def grads(t, f, xs, g):
    xs = [x.clone().requires_grad_(True) for x in xs]
    y = f(*xs)
    gs = t.autograd.grad(y, xs, grad_outputs=g)
    out = {"y": y}
    for i, gi in enumerate(gs):
        out["d%d" % i] = gi
    return out


def linear(t, x, w, b, g):
    x, w, b = (v.clone().requires_grad_(True) for v in (x, w, b))
    y = t.nn.functional.linear(x, w, b)
    dx, dw, db = t.autograd.grad(y, (x, w, b), grad_outputs=g)
    return {"y": y, "dx": dx, "dw": dw, "db": db}


def xent(t, z, y):
    F = t.nn.functional
    z = z.clone().requires_grad_(True)
    loss = F.cross_entropy(z, y)
    (dz,) = t.autograd.grad(loss, z)
    return {"softmax": F.softmax(z, 1), "log_softmax": F.log_softmax(z, 1), "loss": loss, "dz": dz}


def updates(t, p, g, v):
    out = {}
    for lr in (0.5, 0.1):
        q = p.clone()
        q.add_(g, alpha=-lr)  # torch.optim.SGD without momentum
        out["add_ alpha=-%g" % lr] = q
    q = p.clone()
    q.addcdiv_(g, v, value=-1e-3)  # Adam's update
    out["addcdiv_"] = q
    return out


def init(t):
    nn = t.nn
    out = {}
    for name, f in (("uniform_(-0.25,0.25)", lambda: t.empty(4096).uniform_(-0.25, 0.25)),
                    ("uniform_(+-1/sqrt(32))", lambda: t.empty(4096).uniform_(-UNIFORM_BOUND, UNIFORM_BOUND)),
                    ("normal_", lambda: t.empty(4096).normal_()),
                    ("randn", lambda: t.randn(4096)),
                    ("rand", lambda: t.rand(4096)),
                    ("nn.Linear(16,32)", lambda: t.cat([p.detach().reshape(-1) for p in nn.Linear(16, 32).parameters()])),
                    ("nn.Linear(32,256)", lambda: t.cat([p.detach().reshape(-1) for p in nn.Linear(32, 256).parameters()])),
                    ("nn.Embedding(256,16)", lambda: nn.Embedding(256, 16).weight.detach()),
                    ("randperm(1000)", lambda: t.randperm(1000)),
                    ("randint(256)", lambda: t.randint(0, 256, (4096,)))):
        t.manual_seed(0)
        out[name] = f()
    return out


def make_inputs(path):
    rng = np.random.Generator(np.random.PCG64(SEED))
    a = {}
    for name, inputs, _ in cases():
        for i, (shape, kind) in enumerate(inputs):
            if kind.startswith("target"):
                v = rng.integers(0, int(kind[6:]), shape, dtype=np.int64)
            else:
                v = draw(rng, kind, shape)
            a["%s|in%d" % (name, i)] = np.ascontiguousarray(v, dtype=v.dtype.newbyteorder("<"))
    np.savez(path, **a)


def run_all(torch, inputs):
    """{case|output: little-endian ndarray} for every case, on inputs {case|inI: ndarray}."""
    out = {}
    for name, ins, fn in cases():
        args = []
        for i in range(len(ins)):
            v = inputs["%s|in%d" % (name, i)]
            # the inputs file is little-endian; torch wants the host's byte order (s390x)
            args.append(torch.from_numpy(np.ascontiguousarray(v, dtype=v.dtype.newbyteorder("="))))
        for k, v in fn(torch, *args).items():
            v = v.detach().numpy()
            out["%s|%s" % (name, k)] = np.ascontiguousarray(v, dtype=v.dtype.newbyteorder("<"))
    return out


# ---- the table (runs on one host, reads every host's outputs) --------------------

def ulp_key(bits):
    """binary32 bit patterns (as int64) -> integers ordered like the values."""
    return np.where(bits & 0x80000000, 0x80000000 - (bits & 0x7FFFFFFF), bits + 0x80000000)


def digest(v):
    return hashlib.sha256(np.ascontiguousarray(v, dtype=v.dtype.newbyteorder("<")).tobytes()).hexdigest()


def compare(u, v):
    """(elements that differ, max ULP distance or None for non-float) of two same-shape arrays."""
    if u.dtype.kind == "f":
        a = u.astype("<f4").view("<u4").astype(np.int64).reshape(-1)
        b = v.astype("<f4").view("<u4").astype(np.int64).reshape(-1)
        d = a != b
        return int(np.count_nonzero(d)), int(np.max(np.abs(ulp_key(a[d]) - ulp_key(b[d])))) if d.any() else 0
    d = u.reshape(-1) != v.reshape(-1)
    return int(np.count_nonzero(d)), None


def table(names, outs):
    """Rows (output key, [cell per host]) of the per-op, per-ISA table. The first
    host is the baseline; a cell says `=` (same bits as the baseline) or how many
    elements differ and by how many ULP, and the first 12 hex digits of its digest."""
    base = outs[0]
    rows = []
    for key in base.files:
        cells = []
        for o in outs:
            if key not in o.files:
                cells.append("missing")
                continue
            u, v = base[key], o[key]
            dg = digest(v)[:12]
            if u.shape != v.shape:
                cells.append("shape %s %s" % (v.shape, dg))
                continue
            n, ulp = compare(u, v)
            if n == 0:
                cells.append("= %s" % dg)
            else:
                cells.append("%d/%d%s %s" % (n, u.size, (" <=%d ULP" % ulp) if ulp is not None else "", dg))
        rows.append((key, cells))
    return rows


def main(argv):
    if len(argv) == 2 and argv[0] == "inputs":
        make_inputs(argv[1])
        return 0
    if len(argv) == 3 and argv[0] == "run":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import iut_protocol as proto
        torch = proto.setup_torch()
        with np.load(argv[1]) as f:
            inputs = {k: f[k] for k in f.files}
        np.savez(argv[2], **run_all(torch, inputs))
        return 0
    if len(argv) >= 2 and argv[0] == "table":
        outs = [np.load(p) for p in argv[1:]]
        for key, cells in table(argv[1:], outs):
            print("%-48s %s" % (key, " | ".join(cells)))
        return 0
    print("usage: op_sweep.py inputs FILE.npz | run INPUTS.npz OUT.npz | table OUT.npz ...", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
