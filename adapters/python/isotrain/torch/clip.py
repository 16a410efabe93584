"""Global-norm gradient clipping, spec §7.3: a drop-in for
torch.nn.utils.clip_grad_norm_ (max_norm, norm_type 2 only).

The norm is one SUM of squares over every gradient element in the order the
parameters are given, tensor by tensor, each row-major (the checkpoint order
when the model's parameters() are passed), from +0, by the library
(it_clip_grad_norm). torch's own function forms one norm per tensor and then
the norm of the norms: other bits. The library's it_clip_grad_norm_tensors
runs over the gradients one after the other, in place (no copy into one
buffer and back), in the flat concatenation's order: the same bits as
it_clip_grad_norm of the concatenation.
"""

import ctypes

import numpy as np
import torch

from ._check import f32
from ._lib import lib

__all__ = ["clip_grad_norm_", "clip_flat_", "EPS"]

EPS = float(np.float32(1e-6))  # ε_c of spec §7.3 / §14.1: 0x358637bd, torch's 1e-6 rounded once


def clip_flat_(g, max_norm, eps=None):
    """§7.3 on one float32 tensor g (all of a step's gradient, in order), in
    place; returns the norm (a binary32 value). eps: ε_c (default EPS)."""
    f32(g, "g", "isotrain.torch.clip_flat_")
    return lib.it_clip_grad_norm(g.data_ptr(), g.numel(), float(np.float32(max_norm)),
                                 EPS if eps is None else float(np.float32(eps)))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clips the gradients in place to global norm max_norm (§7.3: k = M ⊘ (norm ⊕ ε_c),
    g ⊗ k when k < 1); returns the norm (a 0-dim float32 tensor), as torch does."""
    fn = "isotrain.torch.clip_grad_norm_"
    if float(norm_type) != 2.0:
        raise NotImplementedError("%s: norm_type=%r has no spec clause (only 2, §7.3)" % (fn, norm_type))
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    for g in grads:
        f32(g, "parameter.grad", fn)
    k = len(grads)
    norm = lib.it_clip_grad_norm_tensors(k, (ctypes.c_void_p * k)(*[g.data_ptr() for g in grads]),
                                (ctypes.c_size_t * k)(*[g.numel() for g in grads]),
                                float(np.float32(max_norm)), EPS)
    if error_if_nonfinite and not np.isfinite(norm):
        raise RuntimeError("%s: the total norm of the gradients is %r (error_if_nonfinite=True)" % (fn, norm))
    out = torch.empty((), dtype=torch.float32)
    out.fill_(norm)  # a binary32 value the library returned: exact
    return out
