"""Residual sub-blocks of a GPT-style model as ONE autograd function each
(conform's fusion, issue 31): where the converted graph has

    MLP:        x -> fan_out(2) -> LayerNorm -> Linear -> GELU -> Linear -> add(stream, branch)
    attention:  x -> fan_out(2) -> LayerNorm -> fan_out(3) -> Linear q, k, v
                  -> causal_attention -> Linear o -> add(stream, branch)

with every intermediate used once, conform() puts one call here instead of
the 6 (MLP) or 9 (attention) autograd nodes, module calls and checks.
The numbers are those of the separate functions: the same library calls
with the same arguments (functional.linear's it_rows_linear_*, layer_norm's
and gelu's _rows.c loops, causal_attention's, add's it_rows_add, fan_out's
it_residual_add in the fan-out's output order, each gradient SUM from +0),
so the same bits; tests/test_gpt.py compares the fused and the unfused
graph's step bit for bit. What it saves is Python and autograd per node.

The modules are read at every call (their current weights), never copied.
If a module's class or one of functional.linear, layer_norm, gelu is no
longer the library's (a user's or a negative control's switch back to
torch), the block runs node by node as conform() found it, so the switch
takes effect. The fan-outs, the add and the attention are matched at
conform() time by identity with the library's own functions, so a switch of
those made before conform() leaves the graph unfused.
"""

import numpy as np
import torch

from . import functional as F
from . import functional_gpt as G
from . import nn as _itnn
from ._check import f32, grad as _grad, ok
from ._lib import lib

__all__ = ["Block", "residual_block", "FAN_OUT", "ADD", "CAUSAL_ATTENTION"]

# the library's own functions, as conform() puts them into a graph (captured
# at import, before any switch): the fusion matches these objects only
FAN_OUT, ADD, CAUSAL_ATTENTION = G.fan_out, F.add, G.causal_attention
_SWITCHABLE = ((F, "linear", F.linear), (F, "layer_norm", F.layer_norm), (F, "gelu", F.gelu))
_FORWARDS = {_itnn.Linear: _itnn.Linear.forward, _itnn.LayerNorm: _itnn.LayerNorm.forward,
             _itnn.GELU: _itnn.GELU.forward}


def _own(m):
    """m runs the library's forward (its class's, not switched)."""
    f = _FORWARDS.get(type(m))
    return f is not None and type(m).forward is f and "forward" not in m.__dict__


class Block:
    """The program of one fused residual sub-block, as conform() matched it.

    kind "mlp": modules (ln, fc, act, proj); kind "attention": modules (ln,
    q, k, v, o), heads, scale, qkv_order (the fan-out output each of q, k, v
    took: their input gradients are added in that order). branch: the 2-way
    fan-out output the LayerNorm took (the other is the stream);
    stream_first: the add's operand order (stream ⊕ branch or branch ⊕ stream).
    """

    def __init__(self, kind, modules, branch, stream_first, heads=None, scale=None, qkv_order=None):
        self.kind, self.modules, self.branch, self.stream_first = kind, list(modules), branch, stream_first
        self.heads, self.scale, self.qkv_order = heads, scale, qkv_order
        self.ln = self.modules[0]
        self.linears = [m for m in self.modules[1:] if isinstance(m, torch.nn.Linear)]

    def tensors(self):
        """autograd's inputs after x: LayerNorm gain and bias, then each Linear's weight and bias."""
        ts = [self.ln.weight, self.ln.bias]
        for m in self.linears:
            ts += [m.weight, m.bias]
        return ts

    def scale32(self, e):
        """causal_attention's scale: the given one or RN(1/sqrt(width)), a binary32 value."""
        s = self.scale if self.scale is not None else F.default_attention_scale(e // self.heads)
        return float(np.float32(s))

    def fused(self):
        return all(getattr(mod, name) is f for mod, name, f in _SWITCHABLE) and all(_own(m) for m in self.modules)

    def unfused(self, x):
        """The graph conform() found, node by node (module calls: a switch takes effect)."""
        outs = FAN_OUT(x, 2)
        b, s = outs[self.branch], outs[1 - self.branch]
        h = self.ln(b)
        if self.kind == "mlp":
            _, fc, act, proj = self.modules
            y = proj(act(fc(h)))
        else:
            _, mq, mk, mv, mo = self.modules
            f = FAN_OUT(h, 3)
            jq, jk, jv = self.qkv_order
            y = mo(CAUSAL_ATTENTION(mq(f[jq]), mk(f[jk]), mv(f[jv]), self.heads, self.scale))
        return ADD(s, y) if self.stream_first else ADD(y, s)


def _check(x, prog, fn):
    """conform's checks of the separate functions, once: float32 dense CPU
    tensors, the widths the sub-block's functions need."""
    f32(x, "input", fn)
    d = prog.ln.weight.numel()
    if x.dim() < 1 or x.shape[-1] != d:
        raise ValueError("%s: 'input' has shape %s; its last dimension must be %d" % (fn, tuple(x.shape), d))
    for name, t in (("ln.weight", prog.ln.weight), ("ln.bias", prog.ln.bias)):
        f32(t, name, fn)
        if tuple(t.shape) != (d,):
            raise ValueError("%s: '%s' has shape %s, expected (%d,)" % (fn, name, tuple(t.shape), d))
    if prog.kind == "mlp":
        hidden = prog.linears[0].weight.shape[0] if prog.linears[0].weight.dim() == 2 else -1
        want = [(hidden, d), (d, hidden)]
    else:
        want = [(d, d)] * 4
        if d % prog.heads:
            raise ValueError("%s: %d heads do not divide the row of %d elements" % (fn, prog.heads, d))
    for i, (m, shape) in enumerate(zip(prog.linears, want)):
        f32(m.weight, "linear %d weight" % i, fn)
        if tuple(m.weight.shape) != shape:
            raise ValueError("%s: linear %d's weight has shape %s, expected %s" % (fn, i, tuple(m.weight.shape), shape))
        if m.bias is not None:
            f32(m.bias, "linear %d bias" % i, fn)
            if tuple(m.bias.shape) != (shape[0],):
                raise ValueError("%s: linear %d's bias has shape %s, expected (%d,)"
                                 % (fn, i, tuple(m.bias.shape), shape[0]))


def _linear_back(dy, x, w, has_bias):
    """functional._Linear.backward's calls: dx, (dW, db), each gradient SUM from +0."""
    return F._linear_grad_input(dy, w), F._linear_param_grads(dy, x, w, has_bias)


def _sum(grads):
    """fan_out's backward: ((g0 ⊕ g1) ⊕ g2) ..., in the outputs' order."""
    acc = torch.empty(grads[0].shape, dtype=torch.float32)
    lib.it_residual_add(grads[0].data_ptr(), grads[1].data_ptr(), acc.numel(), acc.data_ptr())
    for g in grads[2:]:
        lib.it_residual_add(acc.data_ptr(), g.data_ptr(), acc.numel(), acc.data_ptr())
    return acc


def _add(a, b):
    """add's forward for two tensors of one shape: it_rows_add, a new tensor."""
    y = torch.empty(a.shape, dtype=torch.float32)
    c = a.shape[-1]
    r = a.numel() // c if c else 0
    ok(lib.it_rows_add(r, c, a.data_ptr(), c, b.data_ptr(), c, y.data_ptr(), c, max(1, torch.get_num_threads())),
       "it_rows_add")
    return y


class _Block(torch.autograd.Function):
    @staticmethod
    def forward(ctx, prog, x, lnw, lnb, *lin):
        eps = float(np.float32(prog.ln.eps))
        h, xhat, _, rstd = G.layer_norm_forward(x, lnw, lnb, eps, want_mean=False)
        ws, bs = lin[0::2], lin[1::2]
        if prog.kind == "mlp":
            a = F._linear_forward(h, ws[0], bs[0])
            g, t = torch.empty(a.shape, dtype=torch.float32), torch.empty(a.shape, dtype=torch.float32)
            lib.itt_gelu_forward_keep(a.data_ptr(), a.numel(), g.data_ptr(), t.data_ptr())
            y = F._linear_forward(g, ws[1], bs[1])
            ctx.save_for_backward(x, xhat, rstd, lnw, h, a, t, g, *ws)
        else:
            q, k, v = (F._linear_forward(h, w, b) for w, b in zip(ws[:3], bs[:3]))
            att, z = G.causal_attention_forward(q, k, v, prog.heads, prog.scale32(q.shape[-1]))
            y = F._linear_forward(z, ws[3], bs[3])
            ctx.save_for_backward(x, xhat, rstd, lnw, h, q, k, v, att, z, *ws)
        ctx.prog = prog
        ctx.biases = [b is not None for b in bs]
        return _add(x, y) if prog.stream_first else _add(y, x)

    @staticmethod
    def backward(ctx, dy):
        prog = ctx.prog
        dy = _grad(dy)
        saved = ctx.saved_tensors
        x, xhat, rstd, lnw, h = saved[:5]
        n_lin = len(prog.linears)
        ws = saved[len(saved) - n_lin:]
        bs = ctx.biases
        grads = [None] * n_lin
        if prog.kind == "mlp":
            a, t, g = saved[5:8]
            dg, grads[1] = _linear_back(dy, g, ws[1], bs[1])
            da = torch.empty(a.shape, dtype=torch.float32)
            lib.itt_gelu_backward_kept(a.data_ptr(), t.data_ptr(), dg.data_ptr(), a.numel(), da.data_ptr())
            dh, grads[0] = _linear_back(da, h, ws[0], bs[0])
        else:
            q, k, v, att, z = saved[5:10]
            dz, grads[3] = _linear_back(dy, z, ws[3], bs[3])
            dq, dk, dv = G.causal_attention_backward(q, k, v, att, dz, prog.heads, prog.scale32(q.shape[-1]))
            dhs = [None] * 3
            for i, d in enumerate((dq, dk, dv)):
                dhs[i], grads[i] = _linear_back(d, h, ws[i], bs[i])
            by_output = [None] * 3
            for i, j in enumerate(prog.qkv_order):  # q, k, v's input gradients in the fan-out's output order
                by_output[j] = dhs[i]
            dh = _sum(by_output)
        dlnw, dlnb = torch.zeros(lnw.shape, dtype=torch.float32), torch.zeros(lnw.shape, dtype=torch.float32)
        dxb = G.layer_norm_backward_(xhat, rstd, lnw, dh, dlnw, dlnb)
        dx = _sum([dxb, dy] if prog.branch == 0 else [dy, dxb])
        need = ctx.needs_input_grad
        out = [None, dx if need[1] else None, dlnw if need[2] else None, dlnb if need[3] else None]
        for i, (dw, db) in enumerate(grads):
            out += [dw if need[4 + 2 * i] else None, db if need[5 + 2 * i] else None]
        return tuple(out)


def residual_block(input, prog):
    """The fused sub-block prog (a Block) on input (*, d): stream ⊕ branch(input)."""
    if not prog.fused():
        return prog.unfused(input)
    _check(input, prog, "isotrain.torch.functional.residual_block")
    return _Block.apply(prog, input, *prog.tensors())
