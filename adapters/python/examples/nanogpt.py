#!/usr/bin/env python3
"""A GPT written the ordinary PyTorch way (nanoGPT's shape: torch.nn layers,
`x = x + self.attn(self.ln_1(x))`, the masked softmax, logits through the
token embedding), with no isotrain in it. isotrain.torch.conform(model,
example) makes it conforming without touching its forward; gptchar.py's
recipe (init, batches, AdamW groups, clipping, schedule) then trains it to
spec §14.8's digests:

    python3 adapters/python/examples/nanogpt.py [--steps 500]

The profile's sizes are the defaults (spec §14.1); GPT(...) takes others
(tests/test_own_model.py trains one that is no profile). Separate q, k, v
projections, not nanoGPT's fused c_attn: the spec's checkpoint lists them as
separate tensors (§14.2), and a split of one output is a non-contiguous view.
PyTorch 1.13 (Debian bookworm's) has no F.scaled_dot_product_attention, so
the attention is the explicit masked softmax.
"""

import math
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, ctx, scale=None):
        super().__init__()
        self.n_head, self.head_dim = heads, d // heads
        # the scores' scale; a recipe of the GPT family gives its own (spec §16.3)
        self.scale = 1.0 / math.sqrt(self.head_dim) if scale is None else scale
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(ctx, ctx)).view(1, 1, ctx, ctx), persistent=False)

    def forward(self, x):
        B, T, C = x.size()
        q = self.q(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)   # (B, nh, T, hs)
        k = self.k(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = self.v(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * self.scale
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.o(y)


class MLP(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.fc = nn.Linear(d, hidden)
        self.gelu = nn.GELU(approximate="tanh")
        self.proj = nn.Linear(hidden, d)

    def forward(self, x):
        return self.proj(self.gelu(self.fc(x)))


class Block(nn.Module):
    def __init__(self, d, heads, hidden, ctx, scale=None):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, ctx, scale)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = MLP(d, hidden)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, vocab=63, ctx=32, d=64, heads=4, hidden=256, layers=2, scale=None):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.h = nn.ModuleList([Block(d, heads, hidden, ctx, scale) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        x = self.ln_f(x)
        return x @ self.wte.weight.T


def main():
    import argparse
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gptchar
    import isotrain.torch as it
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=gptchar.STEPS)
    a = ap.parse_args()
    tokens = gptchar.load_corpus()
    model, loss_fn, opt, sched = gptchar.make(model=it.conform(GPT(), torch.zeros(1, gptchar.CTX, dtype=torch.long)))
    print("step 0 digest %s" % it.checkpoint.digest(model))
    for step in range(1, a.steps + 1):
        x, y = gptchar.batch(step, tokens)
        loss = gptchar.train_step(model, loss_fn, opt, sched, x, y)
        if step % 100 == 0 or step == a.steps or step <= 3:
            print("step %d loss 0x%08x digest %s" % (step, it.random.bits(loss.item()), it.checkpoint.digest(model)),
                  flush=True)


if __name__ == "__main__":
    main()
