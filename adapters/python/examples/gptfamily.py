#!/usr/bin/env python3
"""A recipe of the GPT family (spec §16: gptchar's model at the sizes,
schedule, constants and corpus a JSON file names) trained through the
ordinary nanogpt.py model made conforming by isotrain.torch.conform:

    python3 adapters/python/examples/gptfamily.py spec/recipes/tiny.json [--steps N]

prints the loss bits and the parameter digest every step (tiny.json: spec
§16.5's table; step 5 digest b34581bd...). iut.py's `train --recipe FILE`
trains the same objects under the runner.

What the recipe changes against gptchar.py: the sizes of nanogpt.GPT, the
§16.3 constants that depend on them (the attention scale c given to the
model, the init bounds b_D and b_F), AdamW's constants and the schedule's W
and S, the clipping bound, the corpus, the batch's B and σ. The library's
recipe reader (isotrain.torch.recipe) checks the file and rounds c, b_D
and b_F (two roundings each, never 1/sqrt(n) from binary64).
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import isotrain.torch as it  # noqa: E402
import gptchar  # noqa: E402  (init, batches, loss: the family's, at other sizes)
import nanogpt  # noqa: E402


class Member:
    """One recipe's run: model, loss, optimizer, schedule, batches, clipping."""

    def __init__(self, r, seed=None, model="nanogpt"):
        self.r = r
        self.seed = r.seed if seed is None else seed      # §16.5: a fresh seed replaces it in every word
        if model not in ("nanogpt", "plain"):
            raise ValueError("gptfamily: model %r: nanogpt or plain" % model)
        net = nanogpt.GPT(vocab=r.vocab, ctx=r.context, d=r.d_model, heads=r.heads, hidden=r.mlp,
                          layers=r.blocks, scale=r.value("attn_scale"))
        if model == "nanogpt":
            net = it.conform(net, torch.zeros(1, r.context, dtype=torch.long))
        self.plain = model == "plain"
        bounds = {r.d_model: r.bits["init_d"], r.mlp: r.bits["init_f"]}
        self.model = gptchar.init_(net, self.seed, bounds)
        decay = [p for p in self.model.parameters() if p.dim() >= 2]
        no_decay = [p for p in self.model.parameters() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": r.value("wd")}, {"params": no_decay, "weight_decay": 0.0}]
        kw = dict(lr=r.value("lr"), betas=(r.value("beta1"), r.value("beta2")), eps=r.value("eps"))
        if self.plain:
            self.opt = torch.optim.AdamW(groups, **kw)
            w, s = r.warmup, r.schedule_length
            self.sched = torch.optim.lr_scheduler.LambdaLR(
                self.opt, lambda e: (e + 1) / w if e + 1 <= w else (s - e) / (s + 1 - w))
            ce = torch.nn.CrossEntropyLoss()
            self.loss_fn = lambda z, y: ce(z.view(-1, z.shape[-1]), y.view(-1))
        else:
            self.opt = it.optim.AdamW(groups, **kw)
            self.sched = it.lr_scheduler.WarmupLinearDecay(self.opt, r.warmup, r.schedule_length)
            self.loss_fn = gptchar.Loss()     # SUM ⊗ RN(1/R): §16.3's s

    def batch(self, t):
        r = self.r
        return gptchar.batch(t, r.tokens, self.seed, r.batch, r.context, r.sampling_stream)

    def clip_(self):
        if self.plain:
            return torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.r.value("clip"))
        return it.clip_grad_norm_(self.model.parameters(), self.r.value("clip"))


def main():
    import argparse
    from isotrain.torch import recipe
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("recipe")
    ap.add_argument("--steps", type=int)
    a = ap.parse_args()
    try:
        r = recipe.load(a.recipe)
    except recipe.RecipeError as e:
        sys.exit("gptfamily: %s" % e)
    m = Member(r)
    print("step 0 digest %s" % it.checkpoint.digest(m.model))
    for t in range(1, (a.steps or r.steps) + 1):
        x, y = m.batch(t)
        m.opt.zero_grad()
        loss = m.loss_fn(m.model(x), y)
        loss.backward()
        m.clip_()
        m.opt.step()
        m.sched.step()
        it.checkpoint.print_step(t, loss, m.model)


if __name__ == "__main__":
    main()
