#!/usr/bin/env python3
"""Profile mlp13k (spec §11) written the way a PyTorch user writes it, speaking
the IUT protocol (spec/iut-protocol.md) so the isotrain runner can test it:

    isotrain-conform run --iut '/usr/bin/python3 adapters/pytorch/iut.py' --level train

Same recipe as the spec: same corpus, same initial values (Philox4x32-10, §11.4,
copied into the parameters), same batches (§11.5), nn.Embedding -> nn.Linear ->
torch.tanh -> nn.Linear -> F.cross_entropy (mean over the 64 positions),
loss.backward(), torch.optim.SGD(lr=0.5), 200 steps. Everything else is
PyTorch's own business: its kernels, its summation orders, its exp/log/tanh.
Nothing here bends PyTorch toward the spec beyond settings any user can choose.

Verbs: hello (P2), train (P7). Any other verb (ops included): exit 64,
"unsupported verb" on stderr.

Environment: ISOTRAIN_TORCH_THREADS (torch.set_num_threads), and PyTorch's own
ATEN_CPU_CAPABILITY (default | avx2 | avx512) to choose its kernel set.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import iut_protocol as proto  # noqa: E402
import isotrain_spec as spec  # noqa: E402

ADAPTER_VERSION = "0.1.0"
SPEC_VERSION = "1.0.0"


def build_model(torch, init="spec"):
    """The model; init="spec" copies the spec's §11.4 values into it, init="torch"
    keeps PyTorch's own default initialisation (seed it with torch.manual_seed
    first): the comparison host_probes.py makes."""
    nn = torch.nn

    class MLP13k(nn.Module):
        """embed 256x16 -> Linear(16, 32) -> tanh -> Linear(32, 256)."""

        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(256, 16)
            self.fc1 = nn.Linear(16, 32)
            self.fc2 = nn.Linear(32, 256)

        def forward(self, x):
            return self.fc2(torch.tanh(self.fc1(self.embed(x))))

    model = MLP13k()
    if init == "torch":
        return model
    init = spec.mlp13k_init()
    # parameters() order = spec §11.2 checkpoint order: embed, w1, b1, w2, b2
    with torch.no_grad():
        for p, name in zip(model.parameters(), ("embed", "w1", "b1", "w2", "b2")):
            p.copy_(torch.from_numpy(init[name]))
    return model


def fpenv_probe(torch):
    """Spec §2.2, evaluated by PyTorch float32 kernels in the process that
    trains: each row (a, op, b, expected bits)."""
    rows = [(0x00800000, "mul", 0x3F000000, 0x00400000),
            (0x00000001, "mul", 0x4B800000, 0x01000000),
            (0x3F800000, "add", 0x33800000, 0x3F800000),
            (0xBF800000, "sub", 0x33800000, 0xBF800000),
            (0x3F800000, "add", 0x33C00000, 0x3F800001)]
    for a, op, b, want in rows:
        ta = torch.tensor([spec.f32_from_bits(a)], dtype=torch.float32)
        tb = torch.tensor([spec.f32_from_bits(b)], dtype=torch.float32)
        r = {"mul": torch.mul, "add": torch.add, "sub": torch.sub}[op](ta, tb)
        got = spec.bits_from_f32(r.item())
        if got != want:
            return "0x%08x %s 0x%08x gave 0x%08x, expected 0x%08x" % (a, op, b, got, want)
    return None


def train(argv):
    o = proto.parse_train_args(argv, default_steps=spec.MLP13K_STEPS)
    if o["profile"] != "mlp13k":
        proto.die_usage("train: this adapter implements profile mlp13k only, not %r" % o["profile"])
    torch = proto.setup_torch()
    import torch.nn.functional as F
    from isotrain_trace import IsotrainTrace, IsotrainFailure

    # free-form diagnostics (P1: the runner keeps stderr, never parses it)
    print("pytorch-mlp13k: %s %s" % (proto.torch_facts(torch), proto.blas_facts()), file=sys.stderr)
    why = fpenv_probe(torch)
    if why:
        proto.report_failure("fpenv-flush", 0, why)
    corpus = spec.load_corpus()
    model = build_model(torch)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)

    tr = IsotrainTrace(o["trace"], model, profile="mlp13k", steps=o["steps"],
                       checkpoint_dir=o["checkpoint_dir"], checkpoint_steps=o["checkpoint_steps"])
    try:
        for t in range(1, o["steps"] + 1):
            xs, ys = spec.mlp13k_batch(t, corpus)
            x = torch.tensor(xs, dtype=torch.long)
            y = torch.tensor(ys, dtype=torch.long)
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            if not torch.isfinite(loss):              # spec §10: no update on a non-finite loss
                raise IsotrainFailure("nonfinite-loss", t)
            loss.backward()
            opt.step()
            tr.step(loss)
    except IsotrainFailure as e:
        tr.close()
        proto.report_failure(e.name, e.step)
    tr.close()


def hello():
    torch = proto.setup_torch()
    print("protocol=1 name=pytorch-mlp13k version=%s spec=%s %s"
          % (ADAPTER_VERSION, SPEC_VERSION, proto.torch_facts(torch)))


def main(argv):
    verb = argv[1] if len(argv) > 1 else ""
    if verb == "hello":
        hello()
    elif verb == "train":
        train(argv[2:])
    else:
        proto.unsupported_verb(verb)


if __name__ == "__main__":
    main(sys.argv)
