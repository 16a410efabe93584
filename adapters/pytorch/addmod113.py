#!/usr/bin/env python3
"""A one-layer transformer learning (a + b) mod 113, written as an ordinary
PyTorch user writes it (torch.manual_seed, default nn initialisation, AdamW,
full-batch training), traced with isotrain_trace.IsotrainTrace so the isotrain
runner can compare runs of it step by step.

It is not an isotrain profile (the spec fixes no bits of it): it is the
"anyone's PyTorch model" case. It speaks the train verb of
spec/iut-protocol.md, so the runner can drive it:

    isotrain-conform repeat --runs 2 --iut '/usr/bin/python3 adapters/pytorch/addmod113.py' \
        --profile addmod113 --steps 300

Task: all 113^2 = 12,769 pairs (a, b) as the sequence [a, b, =]; a fixed
permutation (torch.randperm under the seed) puts the first 3,831 (30 %) in the
training set, the other 8,938 are the test set. The label is (a + b) mod 113,
predicted from the last position.

Model (after Nanda et al.'s grokking setup, no LayerNorm, at half width):
token and position embeddings (d_model 64), one attention layer (4 heads of
16, causal), a ReLU MLP (256), an unembedding to 113 logits: 64,192 float32
parameters. Optimiser: AdamW(lr 1e-3, betas (0.9, 0.98), weight_decay 1.0).
Each step draws 512 training pairs (torch.randint with its own generator,
seeded seed + 1). Why not full batch at width 128: PyTorch from Debian calls
the generic (netlib reference) BLAS, ~1.3 GFLOP/s here, 8.6 s per full-batch
step; this setting takes ~0.25 s per step.

Environment:
  ADDMOD113_SEED          the seed (default 0)
  ADDMOD113_INIT          torch (default): PyTorch's own initialisation under
                          torch.manual_seed; portable: the same distributions
                          drawn with numpy's RandomState, so the initial
                          parameters are the same bytes on every CPU and any
                          difference comes from training kernels alone
  ISOTRAIN_TORCH_THREADS  torch.set_num_threads
  ATEN_CPU_CAPABILITY     PyTorch's kernel set (default | avx2 | avx512)

Run directly (no verb) it trains 300 steps and prints train/test accuracy.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import iut_protocol as proto  # noqa: E402

P = 113
N_TRAIN = 3831
D_MODEL, N_HEADS, D_MLP = 64, 4, 256
BATCH = 512
DEFAULT_STEPS = 300


def make_model(torch):
    nn = torch.nn
    F = nn.functional

    class OneLayerTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(P + 1, D_MODEL)       # 0..112 and '=' (113)
            self.pos = nn.Embedding(3, D_MODEL)
            self.qkv = nn.Linear(D_MODEL, 3 * D_MODEL, bias=False)
            self.attn_out = nn.Linear(D_MODEL, D_MODEL, bias=False)
            self.mlp_in = nn.Linear(D_MODEL, D_MLP)
            self.mlp_out = nn.Linear(D_MLP, D_MODEL)
            self.unembed = nn.Linear(D_MODEL, P, bias=False)
            self.register_buffer("causal", torch.tril(torch.ones(3, 3, dtype=torch.bool)))

        def forward(self, seq):
            B, T = seq.shape
            x = self.tok(seq) + self.pos(torch.arange(T))
            q, k, v = self.qkv(x).split(D_MODEL, dim=-1)
            heads = lambda t: t.view(B, T, N_HEADS, D_MODEL // N_HEADS).transpose(1, 2)
            q, k, v = heads(q), heads(k), heads(v)
            scores = q @ k.transpose(-1, -2) / math.sqrt(D_MODEL // N_HEADS)
            scores = scores.masked_fill(~self.causal[:T, :T], float("-inf"))
            a = F.softmax(scores, dim=-1) @ v
            x = x + self.attn_out(a.transpose(1, 2).reshape(B, T, D_MODEL))
            x = x + self.mlp_out(F.relu(self.mlp_in(x)))
            return self.unembed(x[:, -1])

    return OneLayerTransformer()


def portable_init(torch, model, seed):
    """Same distributions as PyTorch's defaults (normal for embeddings,
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for linear layers), drawn by numpy in
    float64 and rounded once to float32: identical bytes on every x86 CPU."""
    import numpy as np
    rs = np.random.RandomState(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.startswith(("tok.", "pos.")):
                v = rs.standard_normal(p.shape)
            else:
                fan_in = p.shape[1] if p.dim() == 2 else model.get_submodule(name.rsplit(".", 1)[0]).in_features
                bound = 1.0 / math.sqrt(fan_in)
                v = rs.uniform(-bound, bound, p.shape)
            p.copy_(torch.from_numpy(v.astype(np.float32)))


def dataset(torch, seed):
    a = torch.arange(P).repeat_interleave(P)
    b = torch.arange(P).repeat(P)
    seq = torch.stack([a, b, torch.full_like(a, P)], dim=1)
    labels = (a + b) % P
    perm = torch.randperm(P * P, generator=torch.Generator().manual_seed(seed))
    tr, te = perm[:N_TRAIN], perm[N_TRAIN:]
    return seq[tr], labels[tr], seq[te], labels[te]


def run(steps, trace=None, checkpoint_dir=None, checkpoint_steps=None, report=True):
    torch = proto.setup_torch()
    F = torch.nn.functional
    from isotrain_trace import IsotrainTrace

    seed = int(os.environ.get("ADDMOD113_SEED", "0"))
    init = os.environ.get("ADDMOD113_INIT", "torch")
    if init not in ("torch", "portable"):
        proto.die_usage("ADDMOD113_INIT must be torch or portable, not %r" % init)
    torch.manual_seed(seed)
    x_train, y_train, x_test, y_test = dataset(torch, seed)
    model = make_model(torch)
    if init == "portable":
        portable_init(torch, model, seed)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98), weight_decay=1.0)

    batches = torch.Generator().manual_seed(seed + 1)
    tr = None
    if trace:
        tr = IsotrainTrace(trace, model, profile="addmod113", steps=steps,
                           checkpoint_dir=checkpoint_dir, checkpoint_steps=checkpoint_steps)
    for t in range(1, steps + 1):
        idx = torch.randint(0, N_TRAIN, (BATCH,), generator=batches)
        opt.zero_grad()
        loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
        loss.backward()
        opt.step()
        if tr:
            tr.step(loss)
        elif report and (t % 50 == 0 or t == steps):
            print("step %4d  train loss %.6f" % (t, loss.item()))
    if tr:
        tr.close()
    if report:
        with torch.no_grad():
            acc = lambda x, y: (model(x).argmax(-1) == y).float().mean().item()
            print("after %d steps: train accuracy %.4f, test accuracy %.4f"
                  % (steps, acc(x_train, y_train), acc(x_test, y_test)), file=sys.stderr)


def main(argv):
    verb = argv[1] if len(argv) > 1 else ""
    if verb == "":
        run(DEFAULT_STEPS)
    elif verb == "hello":
        torch = proto.setup_torch()
        print("protocol=1 name=pytorch-addmod113 version=0.1.0 spec=1.0.0 init=%s %s"
              % (os.environ.get("ADDMOD113_INIT", "torch"), proto.torch_facts(torch)))
    elif verb == "train":
        o = proto.parse_train_args(argv[2:], default_steps=DEFAULT_STEPS)
        if o["profile"] != "addmod113":
            proto.die_usage("train: this program trains profile addmod113 only, not %r" % o["profile"])
        from isotrain_trace import IsotrainFailure
        try:
            run(o["steps"], o["trace"], o["checkpoint_dir"], o["checkpoint_steps"])
        except IsotrainFailure as e:
            proto.report_failure(e.name, e.step)
    else:
        proto.unsupported_verb(verb)


if __name__ == "__main__":
    main(sys.argv)
