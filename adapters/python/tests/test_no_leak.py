#!/usr/bin/env python3
"""No PyTorch arithmetic in a training step (make test-pytorch-conforming).

One step of each example profile (zero_grad, forward, loss, loss.backward(),
opt.step()) runs under isotrain.torch.leak's dispatch trace: every aten op
that reaches the dispatcher in forward, backward and the optimizer is
recorded, and the step fails if one outside the allowed set (allocation,
fills, copies, views) had a float tensor among its inputs or outputs. The
library's calls, which do not pass the dispatcher, are counted beside it.
The step is also checked to be the real one: its parameters afterwards hash
to the spec's step-1 digest.

Negative controls (each must be caught, by the op it leaks):
  linear    isotrain.torch.functional.linear switched back to torch's F.linear
            (the runner's mutant, tests/mutant_f_linear.py): aten.addmm in the
            forward, aten.mm in the backward (so the trace sees backward ops)
  optimizer torch.optim.SGD in place of isotrain.torch.optim.SGD
  residual  addmod113's MLP residual written `r + mlp(r)` with torch's `+`
            (aten.add in the forward, and autograd's own accumulation of the
            two gradients of r in the backward)
"""

import sys

from harness import failures, lib_args, report

lib_args()

import torch  # noqa: E402

import addmod113  # noqa: E402
import isotrain.torch as it  # noqa: E402
import mlp13k  # noqa: E402
from isotrain.torch import leak  # noqa: E402

STEP1 = {"mlp13k": "8edc3938536be6aa15491440735ffb38abd87d3a3af735302686773415f828c1",
         "addmod113": "bc6f442269de5a4a78c8f385b1fb8bbdc7a6488c0a9ebe2734ea35d5f3f930e5"}


def setup(profile, optimizer=None):
    if profile == "mlp13k":
        model, loss_fn, opt = mlp13k.make()
        x, y = mlp13k.batch(1, mlp13k.load_corpus())
    else:
        model, loss_fn, opt = addmod113.make()
        x, y, _, _ = addmod113.data()
    if optimizer is not None:
        opt = optimizer(model)
    return model, loss_fn, opt, x, y


def step(model, loss_fn, opt, x, y):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss


def clean(profile):
    model, loss_fn, opt, x, y = setup(profile)
    try:
        _, trace, libcalls = leak.check(step, model, loss_fn, opt, x, y)
    except leak.LeakError as e:
        report("%s: no aten arithmetic in a training step" % profile, False, [str(e)])
        return
    digest = it.checkpoint.digest(model)
    floats = sorted({c.op for c in trace.calls if c.floating})
    ints = sorted({c.op for c in trace.calls if not c.floating})
    report("%s: no aten arithmetic in a training step" % profile, digest == STEP1[profile] and libcalls,
           ["aten ops on float tensors (all data movement): %s" % ", ".join(floats),
            "aten ops on integer tensors only (indices): %s" % (", ".join(ints) or "none"),
            "aten calls: %d; library calls: %d (%s)" % (len(trace.calls), sum(libcalls.values()),
                                                     ", ".join("%s x%d" % kv for kv in sorted(libcalls.items()))),
            "parameters after the step: %s (spec step 1: %s)" % (digest[:16], STEP1[profile][:16])])


def caught(what, profile, must_name, **kw):
    model, loss_fn, opt, x, y = setup(profile, **kw)
    try:
        leak.check(step, model, loss_fn, opt, x, y)
    except leak.LeakError as e:
        missing = [op for op in must_name if op not in str(e)]
        report("negative control %s: caught, naming %s" % (what, ", ".join(must_name)), not missing, [str(e)])
        return
    report("negative control %s: caught" % what, False, ["the trace found nothing"])


clean("mlp13k")
clean("addmod113")

# 1. one function switched back to the torch op
saved = it.functional.linear
it.functional.linear = torch.nn.functional.linear
try:
    caught("linear (F.linear)", "mlp13k", ["aten.addmm.default", "aten.mm.default"])
finally:
    it.functional.linear = saved

# 2. torch's own optimizer
caught("optimizer (torch.optim.SGD)", "mlp13k", ["aten."],
       optimizer=lambda m: torch.optim.SGD(m.parameters(), lr=0.5))


# 3. a residual with torch's +
class TorchPlusResidual(torch.nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.module = inner

    def forward(self, x):
        return x + self.module(x)


def torch_plus(model):
    model.mlp.__class__ = TorchPlusResidual
    return it.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-8, weight_decay=1.0)


caught("residual (torch +)", "addmod113", ["aten.add.Tensor"], optimizer=torch_plus)

print("test_no_leak: %d check(s) failed" % len(failures) if failures else "test_no_leak: all checks passed")
sys.exit(1 if failures else 0)
