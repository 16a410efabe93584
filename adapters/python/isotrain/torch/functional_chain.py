"""chain: a run of row layers (Embedding first or not, then Linear, Tanh,
ReLU in any order, each feeding only the next) as ONE autograd function
whose forward and backward are one library call each (_chain.c). conform()
puts it where a model's forward calls such modules one after the other
(mlp13k: embed -> fc1 -> tanh -> fc2). The numbers are those of the separate
functions (functional.linear, embedding, tanh, relu): _chain.c calls the
same batched entry points with the same arguments, in the same order. What
it saves is Python: one autograd node, one ctypes call and one allocation
per direction instead of one per layer.

The modules are read at every call (their current weights), never copied.
If one of functional.linear, embedding, tanh, relu is no longer the
library's (a user's or a negative control's switch back to torch), the
chain calls its modules one by one, so the switch takes effect.
"""

import ctypes

import torch
from torch import nn

from ._check import f32, grad as _grad, indices, ok
from ._lib import lib

__all__ = ["Chain", "chain"]

_KIND = {nn.Embedding: 0, nn.Linear: 1, nn.Tanh: 2, nn.ReLU: 3}


def _kind(m):
    for cls in type(m).__mro__:
        if cls in _KIND:
            return _KIND[cls]
    return None


class Chain:
    """The program of a chain: its modules (not registered as submodules:
    the model's parameters and state_dict stay its own) and their widths."""

    def __init__(self, modules):
        kinds = [_kind(m) for m in modules]
        if len(modules) < 2 or None in kinds or 0 in kinds[1:]:
            raise ValueError("isotrain.torch chain: %s (an optional Embedding first, then Linear/Tanh/ReLU)"
                             % [type(m).__name__ for m in modules])
        self.modules = list(modules)
        self.n = len(modules)
        lin = [m for m, k in zip(modules, kinds) if k == 1]
        if kinds[0] != 0 and not lin:
            raise ValueError("isotrain.torch chain: no Linear gives the width of %s"
                             % [type(m).__name__ for m in modules])
        dims, vocab = [0 if kinds[0] == 0 else lin[0].in_features], []
        for m, k in zip(modules, kinds):
            if k == 0:
                dims.append(m.weight.shape[1])
                vocab.append(m.weight.shape[0])
                continue
            vocab.append(0)
            if k != 1:
                dims.append(dims[-1])
                continue
            if dims[-1] != m.in_features:
                raise ValueError("isotrain.torch chain: Linear(%d, %d) after a width of %d"
                                 % (m.in_features, m.out_features, dims[-1]))
            dims.append(m.out_features)
        self.embedding = kinds[0] == 0
        self.dims = dims
        self.kinds = kinds
        self.c_kind = (ctypes.c_int * self.n)(*kinds)
        self.c_dims = (ctypes.c_size_t * (self.n + 1))(*dims)
        self.c_vocab = (ctypes.c_size_t * self.n)(*vocab)
        self.act_size = sum(dims[1:])
        self.g_size = max(dims)
        self.params = [(getattr(m, "weight", None), getattr(m, "bias", None)) for m in modules]

    def tensors(self):
        """The chain's parameters in module order (autograd's inputs)."""
        return [t for pair in self.params for t in pair if t is not None]


def _ptrs(ts):
    return (ctypes.c_void_p * len(ts))(*[None if t is None else t.data_ptr() for t in ts])


class _Chain(torch.autograd.Function):
    @staticmethod
    def forward(ctx, prog, x, tok, rows, *params):
        th = max(1, torch.get_num_threads())
        acts = torch.empty(rows * (prog.act_size - prog.dims[-1]), dtype=torch.float32)
        y = torch.empty(rows * prog.dims[-1], dtype=torch.float32)
        ptrs, off = [], acts.data_ptr()
        for d in prog.dims[1:-1]:
            ptrs.append(off)
            off += 4 * rows * d
        ptrs.append(y.data_ptr())
        c_acts = (ctypes.c_void_p * prog.n)(*ptrs)
        w = _ptrs([p[0] for p in prog.params])
        rc = lib.itt_chain_forward(rows, prog.n, prog.c_kind, prog.c_dims, prog.c_vocab, w,
                                   _ptrs([p[1] for p in prog.params]), None if tok is None else tok.ctypes.data,
                                   None if x is None else x.data_ptr(), c_acts, th)
        ok(rc, "itt_chain_forward")
        ctx.prog, ctx.x, ctx.tok, ctx.rows = prog, x, tok, rows
        ctx.keep = (acts, y, c_acts, w)
        return y

    @staticmethod
    def backward(ctx, dy):
        prog, rows = ctx.prog, ctx.rows
        dy = _grad(dy)
        acts, y, c_acts, w = ctx.keep
        need = ctx.needs_input_grad
        dx = None
        if need[1] and not prog.embedding:
            dx = torch.empty(rows * prog.dims[0], dtype=torch.float32)
        grads, dws, dbs = [], [], []
        for wt, bt in prog.params:
            gw = None if wt is None else torch.zeros(wt.shape, dtype=torch.float32)
            gb = None if bt is None else torch.zeros(bt.shape, dtype=torch.float32)
            dws.append(gw)
            dbs.append(gb)
            grads += [g for g in (gw, gb) if g is not None]
        scratch = torch.empty(2 * rows * prog.g_size, dtype=torch.float32)
        g0 = scratch.data_ptr()
        rc = lib.itt_chain_backward(rows, prog.n, prog.c_kind, prog.c_dims, prog.c_vocab, w,
                                    None if ctx.tok is None else ctx.tok.ctypes.data,
                                    None if ctx.x is None else ctx.x.data_ptr(), c_acts, dy.data_ptr(),
                                    _ptrs(dws), _ptrs(dbs), None if dx is None else dx.data_ptr(),
                                    g0, g0 + 4 * rows * prog.g_size, max(1, torch.get_num_threads()))
        ok(rc, "itt_chain_backward")
        if dx is not None:
            dx = dx.view(ctx.x.shape)
        return (None, dx, None, None) + tuple(grads)


def chain(input, prog):
    """The chain prog (a Chain) applied to input: token indices when it starts
    with an Embedding, else float32 rows (*, dims[0]). Returns (*, dims[-1])."""
    fn = "isotrain.torch.functional.chain"
    from . import functional as itF
    if (itF.linear, itF.embedding, itF.tanh, itF.relu) != itF._CHAIN_OF:
        for m in prog.modules:  # one of them switched (functional._CHAIN_OF says why)
            input = m(input)
        return input
    for t in prog.tensors():
        f32(t, "parameter", fn)
    if prog.embedding:
        vocab = prog.params[0][0].shape[0]
        tok, shape = indices(input, vocab, "input", fn)
        x, rows = None, tok.size
    else:
        f32(input, "input", fn)
        if input.dim() < 1 or input.shape[-1] != prog.dims[0]:
            raise ValueError("%s: 'input' has shape %s; its last dimension must be %d"
                             % (fn, tuple(input.shape), prog.dims[0]))
        tok, x, shape = None, input, tuple(input.shape[:-1])
        rows = input.numel() // prog.dims[0]
    y = _Chain.apply(prog, x, tok, rows, *prog.tensors())
    return y.view(tuple(shape) + (prog.dims[-1],))
