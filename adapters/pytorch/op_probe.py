#!/usr/bin/env python3
"""Single-op probes of mlp13k's step 1 in PyTorch, for `make pytorch-cross-isa`.

    op_probe.py inputs FILE.npz        write every op's inputs (this host's chain)
    op_probe.py run INPUTS.npz OUT.npz run every op on those inputs, save outputs

Step 1 of iut.py, split into the ops PyTorch runs, in order: embedding,
linear1 (addmm), tanh, linear2, cross_entropy, and the backward ops
autograd calls for each (cross_entropy backward, linear backward: mm/sum,
tanh_backward, embedding backward), then SGD's add_(alpha=-lr). `inputs`
runs the chain once (the spec's initial bytes, the spec's step-1 batch) and
saves what each op receives. `run` feeds every op exactly those saved inputs
and saves each output, so two hosts running `run` on one INPUTS file
differ in an op only if that op itself computes differently there.
Environment as iut.py's: ATEN_CPU_CAPABILITY, ISOTRAIN_TORCH_THREADS.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import iut_protocol as proto  # noqa: E402
import isotrain_spec as spec  # noqa: E402

LR = 0.5

# name, inputs it takes (keys of the inputs file)
OPS = [
    ("embedding_forward", ["embed", "x"]),
    ("linear1_forward", ["e", "w1", "b1"]),
    ("tanh_forward", ["z1"]),
    ("linear2_forward", ["h", "w2", "b2"]),
    ("cross_entropy_forward", ["logits", "y"]),
    ("cross_entropy_backward", ["logits", "y"]),
    ("linear2_backward", ["dlogits", "h", "w2"]),
    ("tanh_backward", ["dh", "h"]),
    ("linear1_backward", ["dz1", "e", "w1"]),
    ("embedding_backward", ["de", "x"]),
    ("sgd_update", ["w2", "dw2"]),
]


def run_op(torch, name, a):
    """Outputs (name -> ndarray) of one op on inputs a (name -> ndarray)."""
    F = torch.nn.functional
    # the inputs file is little-endian; torch wants the host's byte order (s390x)
    t = {k: torch.from_numpy(np.ascontiguousarray(v, dtype=v.dtype.newbyteorder("="))) for k, v in a.items()}

    def leaf(k):
        return t[k].clone().requires_grad_(True)

    if name == "embedding_forward":
        return {"e": F.embedding(t["x"], t["embed"])}
    if name == "linear1_forward":
        return {"z1": F.linear(t["e"], t["w1"], t["b1"])}
    if name == "tanh_forward":
        return {"h": torch.tanh(t["z1"])}
    if name == "linear2_forward":
        return {"logits": F.linear(t["h"], t["w2"], t["b2"])}
    if name == "cross_entropy_forward":
        return {"loss": F.cross_entropy(t["logits"], t["y"])}
    if name == "cross_entropy_backward":
        lg = leaf("logits")
        (g,) = torch.autograd.grad(F.cross_entropy(lg, t["y"]), lg)
        return {"dlogits": g}
    if name == "linear2_backward":
        h, w2, b2 = leaf("h"), leaf("w2"), torch.zeros(256, requires_grad=True)
        dh, dw2, db2 = torch.autograd.grad(F.linear(h, w2, b2), (h, w2, b2), grad_outputs=t["dlogits"])
        return {"dh": dh, "dw2": dw2, "db2": db2}
    if name == "tanh_backward":
        # autograd's tanh backward: aten::tanh_backward(grad, output)
        return {"dz1": torch.ops.aten.tanh_backward(t["dh"], t["h"])}
    if name == "linear1_backward":
        e, w1, b1 = leaf("e"), leaf("w1"), torch.zeros(32, requires_grad=True)
        de, dw1, db1 = torch.autograd.grad(F.linear(e, w1, b1), (e, w1, b1), grad_outputs=t["dz1"])
        return {"de": de, "dw1": dw1, "db1": db1}
    if name == "embedding_backward":
        emb = torch.zeros(256, 16, requires_grad=True)
        (g,) = torch.autograd.grad(F.embedding(t["x"], emb), emb, grad_outputs=t["de"])
        return {"dembed": g}
    if name == "sgd_update":
        p = t["w2"].clone()
        p.add_(t["dw2"], alpha=-LR)  # what torch.optim.SGD does without momentum
        return {"w2_new": p}
    raise KeyError(name)


def make_inputs(torch, path):
    init = spec.mlp13k_init()
    corpus = spec.load_corpus()
    xs, ys = spec.mlp13k_batch(1, corpus)
    a = {k: np.asarray(v, dtype=np.float32) for k, v in init.items()}
    a["x"] = np.asarray(xs, dtype=np.int64)
    a["y"] = np.asarray(ys, dtype=np.int64)
    for name, _ in OPS:  # the chain: each op's outputs feed the next ones
        out = run_op(torch, name, {k: a[k] for k in dict(OPS)[name]})
        for k, v in out.items():
            a[k] = v.detach().numpy()
    np.savez(path, **a)


def run_all(torch, a):
    """{op.output: ndarray} of every op of OPS on the saved inputs a."""
    out = {}
    for name, keys in OPS:
        for k, v in run_op(torch, name, {k: a[k] for k in keys}).items():
            out["%s.%s" % (name, k)] = v.detach().numpy()
    return out


def main(argv):
    torch = proto.setup_torch()
    if len(argv) == 2 and argv[0] == "inputs":
        make_inputs(torch, argv[1])
    elif len(argv) == 3 and argv[0] == "run":
        with np.load(argv[1]) as f:
            a = {k: f[k] for k in f.files}
        np.savez(argv[2], **run_all(torch, a))
    else:
        sys.exit("usage: op_probe.py inputs FILE.npz | run INPUTS.npz OUT.npz")


if __name__ == "__main__":
    main(sys.argv[1:])
