"""isotrain.torch.convert(model): every supported torch.nn module of a model
becomes its isotrain.torch.nn counterpart, in place (the object stays, with
its parameters, buffers, hooks and state_dict keys; only its class, and so
its forward, changes: the idea of RepDL's from_torch_module).

A torch.nn module that is not supported, or a supported one with an option
the spec has no clause for, is refused by class and by path in the model,
all of them in one error, and then nothing is converted: a model is never
half conforming, and never falls back to a non-conforming kernel silently.

What convert cannot see: arithmetic written in a forward method of your own
(`x + y`, `torch.tanh(x)`, `x @ w`, `F.softmax`). Use isotrain.torch.functional
there, and check a training step with isotrain.torch.leak.check (the
dispatch trace the tests use), which names every aten arithmetic op that
touched a float tensor.
"""

import torch
from torch import nn as _nn

from . import nn as _itnn

__all__ = ["convert", "UnsupportedModuleError", "SUPPORTED"]


class UnsupportedModuleError(TypeError):
    """Some module of the model has no conforming counterpart; .problems lists (path, reason)."""

    def __init__(self, problems):
        self.problems = problems
        lines = "\n".join("  %s: %s" % (path, why) for path, why in problems)
        super().__init__("isotrain.torch.convert: %d module(s) cannot be made conforming, nothing was converted:\n%s"
                         % (len(problems), lines))


def _float32_params(m):
    for name, p in m.named_parameters(recurse=False):
        if p.dtype != torch.float32:
            return "parameter '%s' has dtype %s (torch.float32 only: call .float() first)" % (name, p.dtype)
        if p.device.type != "cpu":
            return "parameter '%s' is on %s (CPU only)" % (name, p.device)
    return None


def _linear(m):
    return _float32_params(m)


def _embedding(m):
    for name, default in (("padding_idx", None), ("max_norm", None), ("scale_grad_by_freq", False), ("sparse", False)):
        if getattr(m, name) != default:
            return "%s=%r has no spec clause (only %r)" % (name, getattr(m, name), default)
    return _float32_params(m)


def _relu(m):
    return "inplace=True is not supported (the backward needs the input)" if m.inplace else None


def _cross_entropy(m):
    if m.weight is not None:
        return "class weights have no spec clause"
    if m.label_smoothing != 0.0:
        return "label_smoothing=%r has no spec clause" % m.label_smoothing
    if m.reduction not in ("mean", "sum", "none"):
        return "reduction=%r" % m.reduction
    return None


def _layer_norm(m):
    if len(m.normalized_shape) != 1 or not m.elementwise_affine:
        return ("normalized_shape=%s, elementwise_affine=%r: only one normalized dimension with a gain and a bias "
                "has a spec clause (§5.14)" % (tuple(m.normalized_shape), m.elementwise_affine))
    return _float32_params(m)


def _gelu(m):
    if m.approximate != "tanh":
        return "approximate=%r has no spec clause; only approximate='tanh' (§5.16)" % m.approximate
    return None


# torch.nn class -> (isotrain.torch.nn class, option check)
SUPPORTED = {
    _nn.Linear: (_itnn.Linear, _linear),
    _nn.Embedding: (_itnn.Embedding, _embedding),
    _nn.Tanh: (_itnn.Tanh, lambda m: None),
    _nn.ReLU: (_itnn.ReLU, _relu),
    _nn.CrossEntropyLoss: (_itnn.CrossEntropyLoss, _cross_entropy),
    _nn.LayerNorm: (_itnn.LayerNorm, _layer_norm),
    _nn.GELU: (_itnn.GELU, _gelu),
}
# structure only: their children are converted, they compute nothing
_CONTAINERS = (_nn.Sequential, _nn.ModuleList, _nn.ModuleDict, _nn.Identity)

_WHY = {
    _nn.MultiheadAttention: "its forward computes a query at every position and leaves the residual to the "
                            "caller, whose gradient autograd would add with aten.add; use "
                            "isotrain.torch.nn.ResidualSelfAttention (spec §13.5)",
}


def _qualname(cls):
    return "%s.%s" % (cls.__module__, cls.__qualname__)


def convert(model):
    """Converts model in place and returns it (see the module's doc)."""
    if not isinstance(model, _nn.Module):
        raise TypeError("isotrain.torch.convert: expected a torch.nn.Module, not %s" % type(model).__name__)
    problems, swaps = [], []
    ours = tuple(cls for cls, _ in SUPPORTED.values()) + (_itnn.Residual, _itnn.ResidualSelfAttention)
    for name, m in model.named_modules():
        path = name or "(the model itself)"
        cls = type(m)
        if isinstance(m, ours):
            if isinstance(m, (_itnn.Linear, _itnn.Embedding, _itnn.LayerNorm)):
                why = _float32_params(m)
                if why:
                    problems.append((path, "%s: %s" % (_qualname(cls), why)))
            continue
        # the torch class this one is (or derives from), nn.Module for the user's own
        base = next(c for c in cls.__mro__ if c.__module__.split(".")[0] == "torch")
        if base is _nn.Module or base in _CONTAINERS:
            continue  # its children are visited; its own forward is user code (see the module's doc)
        if base in SUPPORTED and cls is base:
            target, check = SUPPORTED[cls]
            why = check(m)
            if why:
                problems.append((path, "%s: %s" % (_qualname(cls), why)))
            else:
                swaps.append((m, target))
        elif base in SUPPORTED:
            problems.append((path, "%s: a subclass of %s: its forward is not torch's, so convert cannot know what "
                                   "it computes" % (_qualname(cls), _qualname(base))))
        else:
            problems.append((path, "%s: %s" % (_qualname(cls), _WHY.get(
                base, "no conforming counterpart in isotrain.torch.nn (supported: %s)"
                % ", ".join(c.__name__ for c in SUPPORTED)))))
    if problems:
        raise UnsupportedModuleError(problems)
    for m, target in swaps:
        m.__class__ = target
    return model
