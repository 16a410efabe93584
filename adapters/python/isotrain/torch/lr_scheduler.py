"""The learning-rate schedule of spec §7.4 (linear warm-up over W steps,
linear decay to step S) as a torch.optim.lr_scheduler: each param group's
'lr' is set to the library's lr(t) (it_lr_schedule), a binary32 value, so
the optimizer rounds nothing further.

torch's convention: the scheduler is built after the optimizer (which sets
lr(1) for the first step) and scheduler.step() is called after every
optimizer.step(); so at torch's last_epoch e the rate is lr(e + 1). After
step S the rate is the formula's value at S + 1, lr_max ⊗ 0 = +0.
"""

import numpy as np
from torch.optim.lr_scheduler import _LRScheduler

from ._lib import lib

__all__ = ["WarmupLinearDecay", "lr_at"]


def lr_at(t, warmup, total, lr_max):
    """spec §7.4's lr(t), 1 <= t <= total (a Python float holding a binary32 value)."""
    if not 1 <= warmup <= total < 1 << 24 or not 1 <= t <= total:
        raise ValueError("isotrain.torch.lr_scheduler: need 1 <= t (%d) <= total (%d) < 2^24 and "
                         "1 <= warmup (%d) <= total" % (t, total, warmup))
    return lib.it_lr_schedule(t, warmup, total, float(np.float32(lr_max)))


class WarmupLinearDecay(_LRScheduler):
    """Every group's rate follows §7.4 with its initial 'lr' as lr_max."""

    def __init__(self, optimizer, warmup, total, last_epoch=-1, verbose=False):
        if not 1 <= warmup <= total < 1 << 24:
            raise ValueError("isotrain.torch.lr_scheduler.WarmupLinearDecay: need 1 <= warmup (%d) <= total (%d) "
                             "< 2^24" % (warmup, total))
        self.warmup, self.total = warmup, total
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        t = self.last_epoch + 1
        if t > self.total:
            return [0.0 for _ in self.base_lrs]
        return [lr_at(t, self.warmup, self.total, base) for base in self.base_lrs]
