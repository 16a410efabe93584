"""What a tensor must be before the library may read its storage: float32,
dense, contiguous, on the CPU. Anything else is an error that names the
function, the tensor, and what it is instead (never a silent conversion: a
float64 model converted behind the user's back would not be the model they
wrote, and a copy hidden in a hot loop is a cost they did not choose).

Index tensors (tokens, targets) are integers read through numpy: their
values are checked against the range they index, then passed to the library
as a uint32 array (a copy of indices, not of any float value).
"""

import numpy as np
import torch

from . import _lib


_F32, _STRIDED = torch.float32, torch.strided


def is_f32(t):
    """f32's conditions in one test (no error)."""
    return isinstance(t, torch.Tensor) and t.dtype is _F32 and t.is_cpu and t.layout is _STRIDED and t.is_contiguous()


def f32(t, name, fn):
    """t is a float32, contiguous, dense CPU tensor; returns it."""
    if is_f32(t):
        return t  # the common case in one test; the same conditions, one by one, name what fails
    if not isinstance(t, torch.Tensor):
        raise TypeError("%s: '%s' must be a torch.Tensor, not %s" % (fn, name, type(t).__name__))
    if t.dtype != torch.float32:
        raise TypeError("%s: tensor '%s' has dtype %s; isotrain.torch computes in torch.float32 only "
                        "(spec §2.1: binary32 everywhere); convert the model with .float() first"
                        % (fn, name, t.dtype))
    if t.device.type != "cpu":
        raise ValueError("%s: tensor '%s' is on device %s; isotrain.torch runs on the CPU only"
                         % (fn, name, t.device))
    if t.layout != torch.strided:
        raise ValueError("%s: tensor '%s' has layout %s; only dense (torch.strided) tensors are supported"
                         % (fn, name, t.layout))
    if not t.is_contiguous():
        raise ValueError("%s: tensor '%s' is not contiguous (shape %s, stride %s); call .contiguous() "
                         "on it first" % (fn, name, tuple(t.shape), t.stride()))
    return t


def grad(t):
    """An incoming gradient in a backward: autograd may hand over an expanded
    or strided view; a contiguous copy of it is data movement only."""
    if t.dtype is not _F32 or not t.is_cpu:
        raise TypeError("isotrain.torch backward: incoming gradient has dtype %s on %s (float32 CPU expected)"
                        % (t.dtype, t.device))
    return t if t.is_contiguous() else t.contiguous()


def indices(t, bound, name, fn):
    """An integer tensor whose every value is in [0, bound): returns
    (uint32 numpy array, contiguous, flat; shape of t). The array must stay
    referenced while the library reads it."""
    if not isinstance(t, torch.Tensor):
        raise TypeError("%s: '%s' must be a torch.Tensor of indices, not %s" % (fn, name, type(t).__name__))
    if t.is_floating_point() or t.is_complex() or t.dtype == torch.bool:
        raise TypeError("%s: tensor '%s' has dtype %s; indices must be an integer dtype (torch.long)"
                        % (fn, name, t.dtype))
    if t.device.type != "cpu":
        raise ValueError("%s: tensor '%s' is on device %s; isotrain.torch runs on the CPU only"
                         % (fn, name, t.device))
    if t.dtype == torch.int64 and t.is_contiguous() and bound <= 1 << 32:  # the common case, in one call
        out = np.empty(t.numel(), dtype=np.uint32)
        bad = _lib.lib.itt_indices_i64(t.data_ptr(), out.size, bound, out.ctypes.data) if out.size else 0
        if not bad:
            return out, tuple(t.shape)
    a = t.detach().numpy().reshape(-1)
    if a.size:
        lo, hi = int(a.min()), int(a.max())
        if lo < 0 or hi >= bound:
            k = int(np.argmax((a < 0) | (a >= bound)))
            raise IndexError("%s: tensor '%s' element %d is %d, outside [0, %d)" % (fn, name, k, int(a[k]), bound))
    return np.ascontiguousarray(a, dtype=np.uint32), tuple(t.shape)


def ok(rc, call):
    """The library returns -1 for an argument it refuses (isotrain.h): after
    the checks above that is a bug here, never the user's input."""
    if rc != 0:
        raise RuntimeError("isotrain.torch: the library refused %s (internal error: arguments checked "
                           "before the call)" % call)


def ptr(a):
    """Address of a numpy array's data (for the index arrays)."""
    return a.ctypes.data


lib = _lib.lib
