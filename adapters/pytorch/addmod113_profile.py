#!/usr/bin/env python3
"""Profile addmod113 (spec §13) written the way a PyTorch user writes it,
speaking the IUT protocol so the isotrain runner can certify it:

    isotrain-conform run --iut '/usr/bin/python3 adapters/pytorch/addmod113_profile.py' \
        --vectors vectors/v1.1.0 --profile addmod113 --level train

Same recipe as the spec: the same split and training order (the Philox
permutation of §13.3), the same initial values (§13.4, copied into the
parameters), the same architecture (§13.2: token and position embeddings,
4 causal heads of 32, ReLU MLP of 512 with biases, untied unembedding, no
LayerNorm), full-batch mean cross-entropy at the last position, and
torch.optim.AdamW(lr=1e-3, betas=(0.9, 0.98), eps=1e-8, weight_decay=1.0),
300 steps. Everything else is PyTorch's own business: its matmul kernels and
their summation orders, its softmax and log-softmax, its Adam arithmetic, the
attention computed at every position and masked with -inf. Nothing bends
PyTorch toward the spec beyond settings any user can choose.

Verbs: hello (P2), train (P7). Any other verb (ops included): exit 64.
Environment: ISOTRAIN_TORCH_THREADS (torch.set_num_threads) and PyTorch's
ATEN_CPU_CAPABILITY (default | avx2 | avx512).
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import iut_protocol as proto  # noqa: E402
import isotrain_spec as spec  # noqa: E402

ADAPTER_VERSION = "0.1.0"
SPEC_VERSION = "1.1.0"
P, D, H, DH, F = 113, 128, 4, 32, 512
N_PAIRS, N_TRAIN = P * P, 3831
SEED = 0x69736F747261696E
DEFAULT_STEPS = 300
C_D = np.uint32(0x3E1CC471).view(np.float32)  # §13.4 bounds, as the spec's bit patterns
C_U = np.uint32(0x3E261D5F).view(np.float32)


def permutation(seed):
    """§6.5 on stream 11 (§13.3)."""
    words = spec.rng_words(seed, 11, 0, N_PAIRS - 1)
    perm = list(range(N_PAIRS))
    for k in range(N_PAIRS - 1):
        i = N_PAIRS - 1 - k
        j = spec.below(words[k], i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return np.array(perm, dtype=np.int64)


def init_values(seed):
    """§13.4: (name, shape, float32 array) in checkpoint order."""
    shapes = [("w_e", (P + 1, D)), ("w_pos", (3, D)), ("w_q", (D, D)), ("w_k", (D, D)), ("w_v", (D, D)),
              ("w_o", (D, D)), ("w_in", (F, D)), ("b_in", (F,)), ("w_out", (D, F)), ("b_out", (D,)),
              ("w_u", (P, D))]
    out = []
    for stream, (name, shape) in enumerate(shapes):
        n = int(np.prod(shape))
        if name.startswith("b_"):
            out.append((name, np.zeros(shape, dtype=np.float32)))
            continue
        u = spec.u_symmetric(spec.rng_words(seed, stream, 0, n))
        out.append((name, (u * (C_U if name == "w_u" else C_D)).astype(np.float32).reshape(shape)))
    return out


def build_model(torch, seed):
    nn = torch.nn
    F_ = nn.functional

    class OneLayerTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(P + 1, D)
            self.pos = nn.Embedding(3, D)
            self.q = nn.Linear(D, D, bias=False)
            self.k = nn.Linear(D, D, bias=False)
            self.v = nn.Linear(D, D, bias=False)
            self.o = nn.Linear(D, D, bias=False)
            self.mlp_in = nn.Linear(D, F)
            self.mlp_out = nn.Linear(F, D)
            self.unembed = nn.Linear(D, P, bias=False)
            self.register_buffer("causal", torch.tril(torch.ones(3, 3, dtype=torch.bool)), persistent=False)

        def forward(self, seq):
            B, T = seq.shape
            x = self.tok(seq) + self.pos(torch.arange(T))
            heads = lambda t: t.view(B, T, H, DH).transpose(1, 2)
            q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
            scores = q @ k.transpose(-1, -2) / math.sqrt(DH)
            scores = scores.masked_fill(~self.causal[:T, :T], float("-inf"))
            z = (F_.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, D)
            x = x + self.o(z)
            x = x + self.mlp_out(F_.relu(self.mlp_in(x)))
            return self.unembed(x[:, -1])

    model = OneLayerTransformer()
    with torch.no_grad():
        for p, (name, val) in zip(model.parameters(), init_values(seed)):
            assert tuple(p.shape) == val.shape, name
            p.copy_(torch.from_numpy(val))
    return model


def run(steps, trace, checkpoint_dir=None, checkpoint_steps=None, seed=SEED):
    torch = proto.setup_torch()
    F_ = torch.nn.functional
    from isotrain_trace import IsotrainTrace

    perm = torch.from_numpy(permutation(seed))
    a, b = perm // P, perm % P
    seq = torch.stack([a, b, torch.full_like(a, P)], dim=1)
    labels = (a + b) % P
    x_train, y_train = seq[:N_TRAIN], labels[:N_TRAIN]
    model = build_model(torch, seed)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-8, weight_decay=1.0)
    tr = IsotrainTrace(trace, model, profile="addmod113", steps=steps, checkpoint_dir=checkpoint_dir,
                       checkpoint_steps=checkpoint_steps)
    for _ in range(steps):
        opt.zero_grad()
        loss = F_.cross_entropy(model(x_train), y_train)
        loss.backward()
        opt.step()
        tr.step(loss)
    tr.close()


def main(argv):
    verb = argv[1] if len(argv) > 1 else ""
    if verb == "hello":
        torch = proto.setup_torch()
        print("protocol=1 name=pytorch-addmod113-profile version=%s spec=%s %s"
              % (ADAPTER_VERSION, SPEC_VERSION, proto.torch_facts(torch)))
    elif verb == "train":
        o = proto.parse_train_args(argv[2:], default_steps=DEFAULT_STEPS)
        if o["profile"] != "addmod113":
            print("train: unsupported profile %r (known: addmod113)" % o["profile"], file=sys.stderr)
            sys.exit(64)
        from isotrain_trace import IsotrainFailure
        try:
            run(o["steps"], o["trace"], o["checkpoint_dir"], o["checkpoint_steps"])
        except IsotrainFailure as e:
            proto.report_failure(e.name, e.step)
    else:
        proto.unsupported_verb(verb)


if __name__ == "__main__":
    main(sys.argv)
