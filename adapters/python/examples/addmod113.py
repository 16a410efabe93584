#!/usr/bin/env python3
"""Profile addmod113 (spec §13), the one-layer transformer of seed 002 (Nanda
et al.'s grokking setup: (a + b) mod 113 from [a, b, =], full batch, AdamW),
as a PyTorch user writes it, made reproducible with isotrain.torch. Copy
this file.

    python3 adapters/python/examples/addmod113.py [--steps 300] [--seed S]

prints the loss bits and the parameter digest (spec §8) every 100 steps;
spec §13.8 publishes them (step 300: loss 0x3bcbef31, digest 8258afc8...).

The model is an nn.Module of torch.nn layers converted by
isotrain.torch.convert, and two blocks of isotrain.torch.nn where a
transformer adds residuals: autograd must never add two gradients itself
(it would use aten.add, outside the library, and for the four parts of the
attention input's gradient in an order of its own; spec §13.5 step 17 fixes
it), so

- ResidualSelfAttention is spec §13.5 steps 2-4: x[:, -1] + W_O attention,
  the query of the last position over all three (the causal mask admits
  every key for it; the other positions' queries reach no loss);
- Residual(mlp) is r + mlp(r) (step 6);
- functional.add adds the position embedding (3, 128) to every pair's
  (N, 3, 128) token embeddings (step 1).
"""

import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # isotrain in a checkout
import isotrain.torch as it  # noqa: E402

SEED = 0x69736F747261696E                 # spec §13.1 (mlp13k's)
P, VOCAB, CONTEXT, D, HEADS, MLP = 113, 114, 3, 128, 4, 512
N_TRAIN, STEPS = 3831, 300
C_D = it.random.from_bits(0x3E1CC471)     # RN(sqrt(3/128)) (spec §13.4)
C_U = it.random.from_bits(0x3E261D5F)     # RN(sqrt(3/114))


class OneLayerTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(CONTEXT, D)
        self.attn = it.nn.ResidualSelfAttention(D, HEADS)
        self.mlp = it.nn.Residual(nn.Sequential(nn.Linear(D, MLP), nn.ReLU(), nn.Linear(MLP, D)))
        self.unembed = nn.Linear(D, P, bias=False)
        self.register_buffer("positions", torch.arange(CONTEXT), persistent=False)

    def forward(self, seq):                                               # seq: (N, 3) tokens
        x = it.functional.add(self.tok(seq), self.pos(self.positions))   # (N, 3, D)
        return self.unembed(self.mlp(self.attn(x)))                      # logits of the last position


def init_(model, seed=SEED):
    """spec §13.4: weight number s (checkpoint order) from Philox stream s, biases +0."""
    for stream, (name, p) in enumerate(model.named_parameters()):
        if p.dim() == 1:
            it.init.zeros_(p)
        else:
            it.init.philox_uniform_(p, seed, stream, C_U if name == "unembed.weight" else C_D)
    return model


def data(seed=SEED):
    """spec §13.3: the pairs in the order of a Philox permutation (stream 11);
    the first 3,831 are the training set. Returns (x_train, y_train, x_test, y_test)."""
    perm = it.random.permutation(seed, 11, P * P)
    a, b = perm // P, perm % P
    seq = torch.stack([a, b, torch.full_like(a, P)], dim=1)
    labels = (a + b) % P
    return seq[:N_TRAIN], labels[:N_TRAIN], seq[N_TRAIN:], labels[N_TRAIN:]


def make(seed=SEED):
    model = init_(it.convert(OneLayerTransformer()), seed)
    loss_fn = it.nn.CrossEntropyLoss()
    opt = it.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-8, weight_decay=1.0)
    return model, loss_fn, opt


def main():
    a = it.checkpoint.example_args(__doc__, STEPS, SEED)
    x, y, _, _ = data(a.seed)
    model, loss_fn, opt = make(a.seed)
    print("step 0 digest %s" % it.checkpoint.digest(model))
    for step in range(1, a.steps + 1):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == a.steps:
            it.checkpoint.print_step(step, loss, model)


if __name__ == "__main__":
    main()
