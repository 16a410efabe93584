#!/usr/bin/env python3
"""Profile mlp13k (spec §11) as a PyTorch user writes it, made reproducible
with isotrain.torch. Copy this file: the model is an ordinary nn.Module built
from torch.nn layers, the loop is zero_grad / loss.backward() / step, and one
call, isotrain.torch.conform(model, example_input), turns its forward into one
whose numbers come from the isotrain library (the four layers run as one
chain: one library call forward, one backward; isotrain.torch.convert(model)
gives the same bits one layer at a time).

    python3 adapters/python/examples/mlp13k.py [--steps 200] [--seed S]

prints the loss bits and the SHA-256 of the parameter bytes (spec §8) at every
checkpoint step; spec §11.8 publishes them (step 200:
loss 0x40268431, digest 7f987a5d...).

What makes it the spec's recipe and not only "an MLP": the initial values
(Philox, §11.4: isotrain.torch.init), the batches (§11.5:
isotrain.torch.random), lr 0.5 and a mean cross-entropy over 64 positions.
"""

import hashlib
import os
import sys

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # isotrain in a checkout
import isotrain.torch as it  # noqa: E402

SEED = 0x69736F747261696E  # "isotrain" (spec §11.1)
STEPS, BATCH, LR = 200, 64, 0.5
CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "spec", "corpus", "mlp13k.txt")
CORPUS_SHA256 = "4bd2baad0e4cf08880f89dee1e1216de2ed36c570a6ee6e29efc0cd9001dbb9c"


class MLP13k(nn.Module):
    """Byte in, next byte out: embed 256x16 -> Linear(16, 32) -> tanh -> Linear(32, 256)."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(256, 16)
        self.fc1 = nn.Linear(16, 32)
        self.act = nn.Tanh()
        self.fc2 = nn.Linear(32, 256)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(self.embed(x))))


def init_(model, seed=SEED):
    """spec §11.4: one Philox stream per tensor (its checkpoint position), biases +0."""
    it.init.philox_uniform_(model.embed.weight, seed, stream=0, bound=1.0)
    it.init.philox_uniform_(model.fc1.weight, seed, stream=1, bound=0.25)
    it.init.zeros_(model.fc1.bias)
    it.init.philox_uniform_(model.fc2.weight, seed, stream=3, bound=it.random.from_bits(0x3E3504F3))  # RN(1/sqrt(32))
    it.init.zeros_(model.fc2.bias)
    return model


def load_corpus(path=CORPUS):
    with open(path, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != CORPUS_SHA256:
        raise ValueError("%s is not the corpus of spec §11.3 (line endings rewritten?)" % path)
    return data


def batch(step, corpus, seed=SEED):
    """spec §11.5: position p of step t reads word (t-1)*64 + p of stream 5."""
    offsets = it.random.below_words(seed, 5, (step - 1) * BATCH, BATCH, len(corpus) - 1).astype(np.int64)
    data = np.frombuffer(corpus, dtype=np.uint8)
    return torch.from_numpy(data[offsets].astype(np.int64)), torch.from_numpy(data[offsets + 1].astype(np.int64))


def make(seed=SEED):
    """The model, loss and optimizer of the profile."""
    model = init_(it.conform(MLP13k(), torch.zeros(BATCH, dtype=torch.long)), seed)
    loss_fn = it.convert(nn.CrossEntropyLoss())
    opt = it.optim.SGD(model.parameters(), lr=LR)
    return model, loss_fn, opt


def main():
    a = it.checkpoint.example_args(__doc__, STEPS, SEED)
    corpus = load_corpus()
    model, loss_fn, opt = make(a.seed)
    print("step 0 digest %s" % it.checkpoint.digest(model))
    for step in range(1, a.steps + 1):
        x, y = batch(step, corpus, a.seed)
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == a.steps:
            it.checkpoint.print_step(step, loss, model)


if __name__ == "__main__":
    main()
