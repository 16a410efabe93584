#!/usr/bin/env python3
"""Profile gptchar (spec §14), a GPT-2-shaped byte model (2 pre-LayerNorm
blocks, 4 causal heads of 16, a GELU MLP, tied embeddings; AdamW with decay
on the matrices, global-norm clipping, warm-up/decay schedule), written with
isotrain.torch's modules and functions. Copy this file.

    python3 adapters/python/examples/gptchar.py [--steps 500] [--seed S]

prints the loss bits and the parameter digest (spec §8) every 100 steps;
spec §14.8 publishes them (step 500: loss 0x4013372b, digest c27ef55f...).

Where the forward adds or reuses a tensor it says so with
isotrain.torch.functional: fan_out (one tensor, several consumers: their
gradients are added in the spec's order, §14.6 9d/9g/9h), add (the residual
stream, §5.13; the position embedding, §14.6 step 1), tie (the token
embedding that is also the output projection, §5.20).
"""

import hashlib
import os
import sys

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # isotrain in a checkout
import isotrain.torch as it  # noqa: E402

F = it.functional
SEED = 0x69736F747261696E                 # spec §14.1 (mlp13k's)
VOCAB, D, HEADS, MLP, CTX, LAYERS, SEQS = 63, 64, 4, 256, 32, 2, 16
STEPS, WARMUP, LR_MAX, BETAS, EPS, WD, CLIP = 500, 50, 3e-3, (0.9, 0.95), 1e-8, 0.1, 1.0
CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "spec", "corpus", "gptchar.txt")
CORPUS_SHA256 = "6343711c323925b51dad498c2c437e4925b6fc8487d95fccfb1d39f53863dddc"
SAMPLE_STREAM = 64


class Block(nn.Module):
    def __init__(self, d=D, heads=HEADS, mlp=MLP):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln_2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, mlp)
        self.act = nn.GELU(approximate="tanh")
        self.proj = nn.Linear(mlp, d)

    def forward(self, x):
        x, xb = F.fan_out(x, 2)                     # the stream's gradient first (§14.6 9h)
        aq, ak, av = F.fan_out(self.ln_1(xb), 3)    # ((dq ⊕ dk) ⊕ dv) (9g)
        z = F.causal_attention(self.q(aq), self.k(ak), self.v(av), self.heads)
        x = F.add(x, self.o(z))                     # §5.13
        x, xb = F.fan_out(x, 2)                     # (9d)
        return F.add(x, self.proj(self.act(self.fc(self.ln_2(xb)))))


class GPTChar(nn.Module):
    """Parameters in spec §14.2's checkpoint order: wte, wpe, the blocks, ln_f."""

    def __init__(self, vocab=VOCAB, ctx=CTX, d=D, heads=HEADS, mlp=MLP, layers=LAYERS):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.h = nn.ModuleList(Block(d, heads, mlp) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.register_buffer("positions", torch.arange(ctx), persistent=False)

    def forward(self, idx):                                      # idx: (N, T) tokens
        embed, head, tie = F.tie(self.wte.weight)
        x = F.add(F.tied_embedding(idx, embed, tie), self.wpe(self.positions[:idx.shape[1]].contiguous()))
        for block in self.h:
            x = block(x)
        return F.linear(self.ln_f(x), head)                      # logits through wte (§14.6 step 4)


def init_(model, seed=SEED, bounds=None):
    """spec §14.4: the tensor's number is its stream; wte, wpe by their
    bounds, every other matrix RN(1/sqrt(in_features)) (2^-3 for the 64-wide
    inputs, 2^-4 for proj's 256); gains 1, biases +0. bounds: in_features ->
    the bound's bits, a recipe's b_D and b_F (spec §16.3, two roundings)."""
    bound = {"wte": 0x3D000000, "wpe": 0x3C800000}
    for stream, (name, p) in enumerate(model.named_parameters()):
        if name.endswith("bias"):
            it.init.zeros_(p)
        elif p.dim() == 1:
            with torch.no_grad():
                p.fill_(1.0)
        else:
            key = name.split(".")[-2]
            if key in bound:
                c = it.random.from_bits(bound[key])
            elif bounds is not None:
                c = it.random.from_bits(bounds[p.shape[1]])
            else:
                c = float(np.float32(1.0 / np.sqrt(p.shape[1])))
            it.init.philox_uniform_(p, seed, stream, c)
    return model


def load_corpus():
    with open(CORPUS, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != CORPUS_SHA256:
        raise SystemExit("gptchar: %s is not the corpus of spec §14.3 (SHA-256 differs)" % CORPUS)
    vocab = sorted(set(data))
    token = np.zeros(256, dtype=np.int64)
    token[vocab] = np.arange(len(vocab))
    return token[np.frombuffer(data, dtype=np.uint8)]


def batch(step, tokens, seed=SEED, seqs=SEQS, ctx=CTX, stream=SAMPLE_STREAM):
    """spec §14.5: 16 windows of 33 bytes at below(word(seed, 64, (t-1)*16 + b), N - 32)
    (§16.5: a recipe's B windows of T + 1 at below(word(seed, σ, (t-1)*B + b), N - T))."""
    words = it.random.words(seed, stream, (step - 1) * seqs, seqs)
    starts = it.random.below(words, len(tokens) - ctx).astype(np.int64)
    rows = starts[:, None] + np.arange(ctx + 1)[None, :]
    win = torch.from_numpy(tokens[rows])
    return win[:, :-1].contiguous(), win[:, 1:].contiguous()


def optimizer(model):
    """AdamW with decay on the matrices only (§14.7), the §7.4 schedule."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = it.optim.AdamW([{"params": decay, "weight_decay": WD}, {"params": no_decay, "weight_decay": 0.0}],
                         lr=LR_MAX, betas=BETAS, eps=EPS)
    return opt, it.lr_scheduler.WarmupLinearDecay(opt, WARMUP, STEPS)


class Loss(nn.Module):
    """Mean cross-entropy over every position: SUM ⊗ RN(1/(N*T)) (§14.6 step 5)."""

    def __init__(self):
        super().__init__()
        self.ce = it.nn.CrossEntropyLoss()

    def forward(self, logits, y):
        return self.ce(logits.view(-1, logits.shape[-1]), y.view(-1))


MODEL = "explicit"  # which model make() builds: MODELS' key (iut.py --gptchar-model)


def _nanogpt():
    import nanogpt  # the ordinary model, made conforming by one call
    return it.conform(nanogpt.GPT(), torch.zeros(1, CTX, dtype=torch.long))


MODELS = {"explicit": GPTChar, "nanogpt": _nanogpt, "plain": None}


def make(seed=SEED, model=None):
    if model is None and MODEL == "plain":
        return make_plain(seed)
    model = init_(it.convert(model if model is not None else MODELS[MODEL]()), seed)
    opt, sched = optimizer(model)
    return model, Loss(), opt, sched


def make_plain(seed=SEED):
    """The problem beside the cure: nanogpt.py's model and the same recipe in
    plain PyTorch (torch.optim.AdamW with the same groups, LambdaLR with the
    schedule's formula in floats, torch's clip_grad_norm_ and loss), started
    from the same initial bits (isotrain.torch.init: step 0 matches)."""
    import nanogpt
    model = init_(nanogpt.GPT(), seed)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": WD}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=LR_MAX, betas=BETAS, eps=EPS)
    rate = lambda e: (e + 1) / WARMUP if e + 1 <= WARMUP else (STEPS - e) / (STEPS + 1 - WARMUP)  # noqa: E731
    ce = nn.CrossEntropyLoss()
    return model, (lambda z, y: ce(z.view(-1, z.shape[-1]), y.view(-1))), opt, \
        torch.optim.lr_scheduler.LambdaLR(opt, rate)


def clip_(model):
    """§14.7 step 2 with the model's own library: torch's for the plain model."""
    if MODEL == "plain":
        return torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
    return it.clip_grad_norm_(model.parameters(), CLIP)


def train_step(model, loss_fn, opt, sched, x, y):
    """One step of §14.7: loss, gradient, clipping, AdamW at lr(t), next rate."""
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    clip_(model)
    opt.step()
    sched.step()
    return loss


def main():
    a = it.checkpoint.example_args(__doc__, STEPS, SEED)
    tokens = load_corpus()
    model, loss_fn, opt, sched = make(a.seed)
    print("step 0 digest %s" % it.checkpoint.digest(model))
    for step in range(1, a.steps + 1):
        x, y = batch(step, tokens, a.seed)
        loss = train_step(model, loss_fn, opt, sched, x, y)
        if step % 100 == 0 or step == a.steps or step <= 3:
            it.checkpoint.print_step(step, loss, model)


if __name__ == "__main__":
    main()
