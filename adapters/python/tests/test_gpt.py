#!/usr/bin/env python3
"""gptchar through isotrain.torch (issue 31), make test-pytorch-conforming:

- one whole step of gptchar (forward, loss, backward, clipping, AdamW, the
  schedule) under isotrain.torch.leak's dispatch trace, for the example's
  own model (gptchar.py) and for the ordinary one made conforming by
  isotrain.torch.conform (nanogpt.py): no aten arithmetic on a float tensor,
  and the parameters afterwards are spec §14.8's step-1 digest;
- negative controls of the trace: the fan-outs removed (autograd adds the
  gradients itself: aten.add), LayerNorm switched back to torch's
  (aten.native_layer_norm);
- conform's refusals, each naming the node and the user's source line: a
  softmax outside the causal pattern, float64, a data-dependent branch, a
  transpose outside the attention, the exact (erf) GELU, a module it has no
  counterpart for.
"""

import sys

from harness import failures, lib_args, report

lib_args()

import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402
from torch import nn  # noqa: E402

import gptchar  # noqa: E402
import isotrain.torch as it  # noqa: E402
import nanogpt  # noqa: E402
from isotrain.torch import leak  # noqa: E402

STEP1 = "9151d8952ad6dc14c47f7524fc6d370d7ac3c79e42dd5a70023445666455a325"  # spec §14.8


def one_step(model_name):
    gptchar.MODEL = model_name
    model, loss_fn, opt, sched = gptchar.make()
    x, y = gptchar.batch(1, gptchar.load_corpus())
    return model, (gptchar.train_step, model, loss_fn, opt, sched, x, y)


def clean(model_name):
    model, call = one_step(model_name)
    try:
        _, trace, libcalls = leak.check(*call)
    except leak.LeakError as e:
        report("gptchar (%s): no aten arithmetic in a step" % model_name, False, [str(e)])
        return
    d = it.checkpoint.digest(model)
    report("gptchar (%s): no aten arithmetic in a step, step-1 digest" % model_name, d == STEP1 and libcalls,
           ["aten ops on float tensors (data movement): %s" % ", ".join(sorted({c.op for c in trace.calls
                                                                                if c.floating})),
            "aten calls %d, library calls %d" % (len(trace.calls), sum(libcalls.values())),
            "parameters after step 1: %s (spec: %s)" % (d[:16], STEP1[:16])])


def caught(what, model_name, must_name, patch):
    saved = patch()
    try:
        _, call = one_step(model_name)
        leak.check(*call)
    except leak.LeakError as e:
        missing = [op for op in must_name if op not in str(e)]
        report("negative control %s: caught, naming %s" % (what, ", ".join(must_name)), not missing, [str(e)])
        return
    finally:
        saved()
    report("negative control %s: caught" % what, False, ["the trace found nothing"])


def digests(steps, patch=None):
    """gptchar through nanogpt.py + conform for steps steps: (the fused blocks' kinds, digest per step);
    patch(model) runs after conform, before the first step."""
    gptchar.MODEL = "nanogpt"
    model, loss_fn, opt, sched = gptchar.make()
    if patch:
        patch(model)
    tokens = gptchar.load_corpus()
    out = []
    for t in range(1, steps + 1):
        gptchar.train_step(model, loss_fn, opt, sched, *gptchar.batch(t, tokens))
        out.append(it.checkpoint.digest(model))
    return sorted(b.kind for b in model.isotrain_blocks), out


def unfused(model):
    for b in model.isotrain_blocks:  # every block node by node, as conform() found it
        b.fused = lambda: False


def other_sum_order(model):
    for b in model.isotrain_blocks:
        if b.kind == "attention":
            b.qkv_order = b.qkv_order[::-1]


def fused_blocks():
    """conform's fused residual sub-blocks (functional_block) against the same graph
    node by node: the same digest at every step, and the comparison fires when
    the fused attention adds q, k, v's input gradients in another order."""
    kinds, fused = digests(4)
    _, plain = digests(4, unfused)
    report("nanogpt's 4 residual sub-blocks fused (2 attention, 2 MLP), 4 steps: the digests of the "
           "unfused graph at every step", kinds == ["attention", "attention", "mlp", "mlp"] and fused == plain
           and fused[0] == STEP1, ["fused   %s" % " ".join(d[:12] for d in fused),
                                   "unfused %s" % " ".join(d[:12] for d in plain), "blocks %s" % kinds])
    _, other = digests(4, other_sum_order)
    report("negative control: the fused attention's input gradients added ((dv + dk) + dq): another digest",
           other != fused, ["other   %s" % " ".join(d[:12] for d in other)])


def no_fan_out():
    saved = it.functional.fan_out
    it.functional.fan_out = lambda x, k: (x,) * k
    return lambda: setattr(it.functional, "fan_out", saved)


def torch_layer_norm():
    saved = it.nn.LayerNorm.forward
    it.nn.LayerNorm.forward = nn.LayerNorm.forward
    return lambda: setattr(it.nn.LayerNorm, "forward", saved)


# ---- conform's refusals ----------------------------------------------------------------------

class SoftmaxHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return TF.softmax(self.fc(x), dim=-1)  # REFUSED-softmax


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        if x.sum() > 0:  # REFUSED-branch
            return self.fc(x)
        return x


class Transposed(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x.transpose(1, 2))  # REFUSED-transpose


class ExactGelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(x)  # REFUSED-gelu


class Conv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 1)

    def forward(self, x):
        return self.conv(x)  # REFUSED-conv


def refused(what, model, example, must):
    try:
        it.conform(model, example)
    except it.ConformError as e:
        missing = [m for m in must if m not in str(e)]
        report("conform refuses %s, naming %s" % (what, " and ".join(repr(m) for m in must)), not missing,
               str(e).splitlines()[1:])
        return
    report("conform refuses %s" % what, False, ["converted without an error"])


def main():
    clean("explicit")
    clean("nanogpt")
    fused_blocks()
    caught("fan-out removed (autograd adds)", "nanogpt", ["aten.add.Tensor"], no_fan_out)
    caught("nn.LayerNorm back to torch's", "nanogpt", ["aten.native_layer_norm"], torch_layer_norm)
    f = torch.zeros(2, 8)
    refused("a softmax outside a causal attention", SoftmaxHead(), f, ["softmax", "REFUSED-softmax"])
    refused("a data-dependent branch", Branchy(), f, ["(trace)", "REFUSED-branch"])
    refused("a transpose (non-contiguous layout)", Transposed(), torch.zeros(2, 4, 4),
            ["transpose", "non-contiguous", "REFUSED-transpose"])
    refused("the exact GELU", ExactGelu(), f, ["approximate='none'", "REFUSED-gelu"])
    refused("a module without a counterpart", Conv(), torch.zeros(1, 4, 3), ["Conv1d", "REFUSED-conv"])
    refused("float64", nanogpt.GPT().double(), torch.zeros(1, 32, dtype=torch.long), ["torch.float64", "nanogpt.py"])
    print("test_gpt: %d check(s) failed" % len(failures) if failures else "test_gpt: all checks passed")
    sys.exit(1 if failures else 0)


main()
