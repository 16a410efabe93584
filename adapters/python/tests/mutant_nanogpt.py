#!/usr/bin/env python3
"""Negative controls for gptchar through the ordinary model (nanogpt.py made
conforming by isotrain.torch.conform): the IUT (examples/iut.py
--gptchar-model nanogpt) with ONE piece switched back to torch's own:

    mutant_nanogpt.py KIND <iut verb and arguments>

KIND: layernorm (nn.LayerNorm's forward), gelu (nn.GELU's), linear
(F.linear: every Linear and x @ W.T), attention (the masked softmax in
torch), residual (torch.add for the residual stream and the position
embedding), fanout (autograd adds a tensor's gradients), tie (wte's two
gradients added by autograd), clip (torch.nn.utils.clip_grad_norm_);
for a recipe (train --recipe, spec §16.3): scale-once (the attention scale
nanogpt.py's own 1/math.sqrt(width), one rounding from binary64), bound-once
(the init bounds likewise).
conform() then builds its graph with torch's piece in place, as a user
who left that one piece unconverted would ship; the runner must FAIL the
run and name the first differing op.
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402
from torch import nn  # noqa: E402

import isotrain.torch as it  # noqa: E402

F = it.functional


def torch_attention(q, k, v, heads, scale=None):
    b, t, c = q.shape
    split = [x.view(b, t, heads, c // heads).transpose(1, 2) for x in (q, k, v)]
    att = (split[0] @ split[1].transpose(-2, -1)) * (scale if scale is not None else 1.0 / math.sqrt(c // heads))
    att = att.masked_fill(torch.ones(t, t).tril() == 0, float("-inf"))
    return (TF.softmax(att, dim=-1) @ split[2]).transpose(1, 2).contiguous().view(b, t, c)


MUTANTS = {
    "layernorm": lambda: setattr(it.nn.LayerNorm, "forward", nn.LayerNorm.forward),
    "gelu": lambda: setattr(it.nn.GELU, "forward", nn.GELU.forward),
    "linear": lambda: setattr(F, "linear", TF.linear),
    "attention": lambda: setattr(F, "causal_attention", torch_attention),
    "residual": lambda: setattr(F, "add", torch.add),
    "fanout": lambda: setattr(F, "fan_out", lambda x, k: (x,) * k),
    "tie": lambda: (setattr(F, "tie", lambda w: (w, w, None)),
                    setattr(F, "tied_embedding", lambda idx, w, handle: TF.embedding(idx, w))),
    "clip": lambda: setattr(it, "clip_grad_norm_", torch.nn.utils.clip_grad_norm_),
    # a recipe's §16.3 constants as 1/sqrt(n) rounded once from binary64 (killed by tiny.json)
    "scale-once": lambda: _scale_once(),
    "bound-once": lambda: _bound_once(),
}


def _scale_once():
    import nanogpt
    init = nanogpt.CausalSelfAttention.__init__
    nanogpt.CausalSelfAttention.__init__ = lambda self, d, heads, ctx, scale=None: init(self, d, heads, ctx)


def _bound_once():
    import gptchar
    init = gptchar.init_
    gptchar.init_ = lambda model, seed=gptchar.SEED, bounds=None: init(model, seed)

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in MUTANTS:
        sys.stderr.write("mutant_nanogpt.py: first argument one of %s\n" % ", ".join(sorted(MUTANTS)))
        sys.exit(2)
    MUTANTS[sys.argv[1]]()
    import iut
    iut.main([sys.argv[0], "--gptchar-model", "nanogpt"] + sys.argv[2:])
