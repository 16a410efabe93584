#!/usr/bin/env python3
"""Every per-host probe of `make pytorch-cross-isa`, in one Python process
(importing torch under QEMU costs about 45 s of CPU, so each emulated host
starts Python twice: iut.py to train, this to probe).

    host_probes.py inputs DIR     (natively, once) write DIR/mlp13k-step1.npz and DIR/sweep.npz
    host_probes.py run DIR OUT    (on every host) write into OUT:
        ops.npz      op_probe.py: every op of mlp13k's step 1 on the saved inputs
        sweep.npz    op_sweep.py: single ops over shapes and value ranges
        libm.npz     the C library's tanhf and expf, called through ctypes on the
                     same inputs as torch.tanh / torch.exp, beside torch's results
        torchinit.trace, torchinit-ck/   mlp13k with PyTorch's own initialisation
                     after torch.manual_seed(0), one SGD step (steps 0 and 1)

Environment as iut.py's (ATEN_CPU_CAPABILITY, ISOTRAIN_TORCH_THREADS); the
outputs are analysed on one host by cross_isa.py (which hosts agree, and
which formula each host's results follow: evidence/fused_forms.py).
"""
import ctypes
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import iut_protocol as proto  # noqa: E402
import op_probe  # noqa: E402
import op_sweep  # noqa: E402
import isotrain_spec as spec  # noqa: E402


def make_inputs(d):
    torch = proto.setup_torch()
    os.makedirs(d, exist_ok=True)
    op_probe.make_inputs(torch, os.path.join(d, "mlp13k-step1.npz"))
    op_sweep.make_inputs(os.path.join(d, "sweep.npz"))


def libm_outputs(torch, step1, sweep):
    """torch.tanh / tanhf and torch.exp / expf on the same inputs, elementwise.
    Inputs: mlp13k's step-1 pre-activations z1 (2,048: what tanh sees in
    training), the log-softmax of its step-1 logits (16,384: what
    log-softmax's backward passes to exp), and two sweep ranges (16,384 each)."""
    libm = ctypes.CDLL("libm.so.6")
    fns = {}
    for name in ("tanhf", "expf"):
        f = getattr(libm, name)
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        fns[name] = f
    lg = torch.from_numpy(np.ascontiguousarray(step1["logits"], dtype=step1["logits"].dtype.newbyteorder("=")))
    sets = {
        "tanh z1": ("tanhf", torch.tanh, step1["z1"]),
        "tanh tanharg": ("tanhf", torch.tanh, sweep["tanh 64x256 tanharg|in0"]),
        "exp log_softmax(logits)": ("expf", torch.exp, torch.log_softmax(lg, 1).numpy()),
        "exp exparg": ("expf", torch.exp, sweep["exp 64x256 exparg|in0"]),
    }
    out = {}
    for key, (cname, tf, x) in sets.items():
        x = np.ascontiguousarray(x, dtype=np.float32)  # host byte order
        out[key + "|x"] = x
        out[key + "|torch"] = tf(torch.from_numpy(x)).numpy()
        c = fns[cname]
        out[key + "|libm"] = np.array([c(float(v)) for v in x.reshape(-1)], dtype=np.float32).reshape(x.shape)
    return out


def torch_init_trace(torch, out):
    """PyTorch's own init (manual_seed(0)), then one SGD step of mlp13k: a
    trace with checkpoints at steps 0 and 1, for the runner's compare."""
    import torch.nn.functional as F
    from isotrain_trace import IsotrainTrace
    from iut import build_model
    torch.manual_seed(0)
    model = build_model(torch, init="torch")
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    ck = os.path.join(out, "torchinit-ck")
    os.makedirs(ck, exist_ok=True)
    tr = IsotrainTrace(os.path.join(out, "torchinit.trace"), model, profile="mlp13k_torchinit", steps=1,
                       checkpoint_dir=ck, checkpoint_steps="all")
    xs, ys = spec.mlp13k_batch(1, spec.load_corpus())
    opt.zero_grad()
    loss = F.cross_entropy(model(torch.tensor(xs, dtype=torch.long)), torch.tensor(ys, dtype=torch.long))
    loss.backward()
    opt.step()
    tr.step(loss)
    tr.close()


def le(d):
    """Arrays in little-endian byte order (a big-endian host writes what every host reads)."""
    return {k: np.ascontiguousarray(v, dtype=v.dtype.newbyteorder("<")) for k, v in d.items()}


def run(d, out):
    torch = proto.setup_torch()
    os.makedirs(out, exist_ok=True)
    with np.load(os.path.join(d, "mlp13k-step1.npz")) as f:
        step1 = {k: f[k] for k in f.files}
    with np.load(os.path.join(d, "sweep.npz")) as f:
        sweep = {k: f[k] for k in f.files}
    np.savez(os.path.join(out, "ops.npz"), **le(op_probe.run_all(torch, step1)))
    np.savez(os.path.join(out, "sweep.npz"), **op_sweep.run_all(torch, sweep))
    np.savez(os.path.join(out, "libm.npz"), **le(libm_outputs(torch, step1, sweep)))
    torch_init_trace(torch, out)


def main(argv):
    if len(argv) == 2 and argv[0] == "inputs":
        make_inputs(argv[1])
    elif len(argv) == 3 and argv[0] == "run":
        run(argv[1], argv[2])
    else:
        print("usage: host_probes.py inputs DIR | run DIR OUT", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
