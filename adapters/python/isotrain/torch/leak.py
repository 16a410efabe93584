"""isotrain.torch.leak: proof that no PyTorch arithmetic touched the numbers.

A TorchDispatchMode (torch.utils._python_dispatch, PyTorch >= 1.13) sees
every aten op that reaches the dispatcher in its thread, forward, backward
(the autograd engine runs a CPU graph's backward in the calling thread) and
optimizer alike. check(fn) runs fn under it and fails if any op outside
ALLOWED had a floating-point tensor among its inputs or outputs: parameters,
activations, gradients, optimizer state and losses are all float tensors,
and index tensors are integers (ops on integer tensors only are recorded,
and allowed: they compute positions, not values).

ALLOWED is data movement only: allocation and fills (empty, zeros, ones,
fill_), copies (clone, copy_, _to_copy, cat, stack), views (view, reshape,
select, slice, t, expand, ...), reading one value out (_local_scalar_dense,
i.e. .item()), and detaching. The library's calls do not go through the
dispatcher at all: they are counted by wrapping the ctypes functions
(LibraryCalls), so a report says how many of each ran.
"""

import collections

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from . import _lib

__all__ = ["ALLOWED", "AtenTrace", "LibraryCalls", "LeakError", "check"]

ALLOWED = frozenset("""
    empty empty_like empty_strided new_empty new_empty_strided zeros zeros_like new_zeros ones ones_like
    new_ones full full_like fill_ zero_ resize_ set_
    clone copy_ _to_copy lift_fresh lift_fresh_copy cat stack contiguous
    detach alias view _unsafe_view reshape _reshape_alias t transpose permute expand expand_as select slice
    squeeze unsqueeze as_strided split split_with_sizes unbind narrow flatten unflatten
    select_backward slice_backward _local_scalar_dense is_same_size
""".split())


def _tensors(obj):
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors(o)


Call = collections.namedtuple("Call", "op floating allowed shapes")


class AtenTrace(TorchDispatchMode):
    """Records every aten op in its thread: Call(op, floating, allowed, shapes)."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        ts = list(_tensors(args)) + list(_tensors(kwargs or {})) + list(_tensors(out))
        floating = any(t.is_floating_point() for t in ts)
        name = func.overloadpacket.__name__
        self.calls.append(Call(str(func), floating, name in ALLOWED or not floating,
                               [tuple(t.shape) for t in ts[:3]]))
        return out

    def leaks(self):
        """The calls that computed on a float tensor with an op outside ALLOWED."""
        return [c for c in self.calls if not c.allowed]

    def summary(self):
        """{op: count} of every call, the leaks marked."""
        n = collections.Counter(("LEAK " if not c.allowed else "") + c.op for c in self.calls)
        return dict(sorted(n.items()))


class LibraryCalls:
    """Counts the library's calls while active (wraps the ctypes functions of
    _lib.lib; isotrain.torch looks them up at every call)."""

    def __init__(self):
        self.counts = collections.Counter()
        self._saved = {}

    def __enter__(self):
        for name in _lib._PROTOTYPES:
            fn = getattr(_lib.lib, name)
            self._saved[name] = fn

            def counted(*a, _fn=fn, _name=name):
                self.counts[_name] += 1
                return _fn(*a)
            setattr(_lib.lib, name, counted)
        return self

    def __exit__(self, *exc):
        for name, fn in self._saved.items():
            setattr(_lib.lib, name, fn)
        self._saved.clear()
        return False


class LeakError(AssertionError):
    pass


def check(fn, *args, **kwargs):
    """Runs fn(*args, **kwargs) under the trace and the library counter;
    returns (result, trace, library_counts), or raises LeakError naming every
    aten arithmetic op that touched a float tensor."""
    with LibraryCalls() as libcalls, AtenTrace() as trace:
        result = fn(*args, **kwargs)
    bad = trace.leaks()
    if bad:
        n = collections.Counter(c.op for c in bad)
        raise LeakError("%d aten op call(s) computed on float tensors outside the library: %s"
                        % (len(bad), ", ".join("%s x%d" % kv for kv in sorted(n.items()))))
    return result, trace, dict(libcalls.counts)
