#!/usr/bin/env python3
"""conform's chains (isotrain.torch.functional_chain, make test-pytorch-conforming):
a run of Embedding/Linear/Tanh/ReLU modules fused into one autograd function
gives the bits of the same modules run one by one (convert()): the output,
every parameter's gradient and the input's, over several steps of SGD; what
is fused and what is not; the fallback when a function is switched back to
torch's (the switch takes effect). Exit 1 on any failure."""

import sys

from harness import check, failures, lib_args

lib_args()

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

import isotrain.torch as it  # noqa: E402
from isotrain.torch import functional as itF  # noqa: E402


def bits(t):
    return np.ascontiguousarray(t.detach().numpy()).view(np.uint32).tobytes()


class FloatIn(nn.Module):
    """float rows in: Linear -> ReLU -> Linear(no bias) -> Tanh, then a fan-out the chain must not cross."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(12, 20)
        self.r = nn.ReLU()
        self.b = nn.Linear(20, 7, bias=False)
        self.t = nn.Tanh()

    def forward(self, x):
        return self.t(self.b(self.r(self.a(x))))


def init(model, seed):
    for i, p in enumerate(model.parameters()):
        it.init.philox_uniform_(p, seed, stream=i, bound=0.5)
    return model


def train(model, xs, ys, steps, lr=0.25):
    loss_fn = it.convert(nn.CrossEntropyLoss())
    opt = it.optim.SGD(model.parameters(), lr=lr)
    out = []
    for s in range(steps):
        x = xs(s)
        if x.is_floating_point():
            x.requires_grad_(True)
        opt.zero_grad()
        z = model(x)
        loss = loss_fn(z.reshape(-1, z.shape[-1]), ys(s))
        loss.backward()
        rec = [bits(z), bits(loss)] + [bits(p.grad) for p in model.parameters()]
        if x.is_floating_point():
            rec.append(bits(x.grad))
        opt.step()
        out.append(rec + [bits(p) for p in model.parameters()])
    return out


def xs_float(s):
    w = it.random.u32_to_symmetric(it.random.words(7, 40, s * 36, 36)).reshape(3, 12)
    return torch.from_numpy(np.array(w, dtype=np.float32))


def ys_of(n, classes):
    return lambda s: torch.from_numpy(it.random.below(it.random.words(7, 41, s * n, n), classes).astype(np.int64))


# 1. mlp13k: the example's model, fused, against the same model converted layer by layer
import mlp13k  # noqa: E402

fused, _, _ = mlp13k.make()
check("mlp13k: conform fuses embed -> fc1 -> act -> fc2 into one chain",
      len(fused.isotrain_chains) == 1 and fused.isotrain_chains[0].kinds == [0, 1, 2, 1]
      and "isotrain_chain_0" in fused.isotrain_graph.code, fused.isotrain_graph.code)
plain = mlp13k.init_(it.convert(mlp13k.MLP13k()))
corpus = mlp13k.load_corpus()
xb = lambda s: mlp13k.batch(s + 1, corpus)[0]  # noqa: E731
yb = lambda s: mlp13k.batch(s + 1, corpus)[1]  # noqa: E731
mlp_a, mlp_b = train(fused, xb, yb, 5, lr=0.5), train(plain, xb, yb, 5, lr=0.5)
check("mlp13k: 5 steps fused = layer by layer (logits, loss, every gradient, every parameter)", mlp_a == mlp_b)

# 2. float input: the input's gradient too, a bias-less Linear, ReLU
f1 = init(it.conform(FloatIn(), torch.zeros(3, 12)), 3)
f2 = init(it.convert(FloatIn()), 3)
check("float rows: one chain of 4 modules", len(f1.isotrain_chains) == 1 and f1.isotrain_chains[0].kinds == [1, 3, 1, 2])
a, b = train(f1, xs_float, ys_of(3, 7), 4), train(f2, xs_float, ys_of(3, 7), 4)
check("float rows: 4 steps fused = layer by layer (with the input's gradient)", a == b)


# 3. not fused: a tensor used twice (a fan-out) ends a chain
class Twice(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.t = nn.Tanh()
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        h = self.a(x)
        return self.b(self.t(h)) + h


tw = it.conform(Twice(), torch.zeros(2, 4))
check("a fan-out is not crossed: t -> b fused, a stays alone",
      [c.kinds for c in tw.isotrain_chains] == [[2, 1]], tw.isotrain_graph.code)

# 4. negative control: torch's F.linear switched in: the chain runs module by module, so the switch shows
saved = itF.linear
itF.linear = torch.nn.functional.linear
try:
    c = train(mlp13k.make()[0], xb, yb, 1, lr=0.5)
finally:
    itF.linear = saved
check("negative control: with torch's F.linear switched in, mlp13k's step differs (the switch takes effect)",
      c != mlp_a[:1])

if failures:
    print("test_chain: %d check(s) failed" % len(failures))
    sys.exit(1)
print("test_chain: all checks passed")
