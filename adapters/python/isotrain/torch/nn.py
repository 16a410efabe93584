"""isotrain.torch.nn: modules whose forward and backward are the library's.

Linear, Embedding, Tanh, ReLU and CrossEntropyLoss are subclasses of torch's
own classes with the same constructor, parameters, state_dict keys and
repr; only forward differs (it calls isotrain.torch.functional). convert()
turns an existing torch.nn module into one of these in place.

Two blocks have no torch counterpart, because autograd must never add two
gradients itself (it would do so with aten.add, outside the library, and
for three or more parts in an order of its own):

- Residual(module): x ⊕ module(x) (spec §13.5 step 6 with module = the MLP),
  whose backward adds the two gradients of x with the library;
- ResidualSelfAttention(embed_dim, num_heads): spec §13.5 steps 2-4, the
  query of the last position attending over every position, plus the
  residual; its backward adds the four gradients of x in the spec's order.
"""

import torch
from torch import nn as _nn

from . import functional as F
from ._check import f32, grad as _grad

__all__ = ["Linear", "Embedding", "Tanh", "ReLU", "CrossEntropyLoss", "LayerNorm", "GELU", "Residual",
           "ResidualSelfAttention"]


class Linear(_nn.Linear):
    """torch.nn.Linear computed by the library (spec §5.2, §5.7)."""

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)


class Embedding(_nn.Embedding):
    """torch.nn.Embedding computed by the library (spec §5.1, §5.8);
    padding_idx, max_norm, scale_grad_by_freq and sparse are refused."""

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)


class Tanh(_nn.Tanh):
    """torch.nn.Tanh as spec §3.4's sequence (§5.3, §5.6)."""

    def forward(self, input):
        return F.tanh(input)


class ReLU(_nn.ReLU):
    """torch.nn.ReLU as spec §5.9/§5.10 (inplace=True refused)."""

    def forward(self, input):
        return F.relu(input, self.inplace)


class LayerNorm(_nn.LayerNorm):
    """torch.nn.LayerNorm over the last dimension with gain and bias, spec
    §5.14/§5.15 (eps rounded to binary32 once: 1e-5 is §14.1's 0x3727c5ac)."""

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class GELU(_nn.GELU):
    """torch.nn.GELU(approximate='tanh'), spec §5.16/§5.17."""

    def forward(self, input):
        return F.gelu(input, self.approximate)


class CrossEntropyLoss(_nn.CrossEntropyLoss):
    """torch.nn.CrossEntropyLoss for (N, C) logits and (N,) class indices:
    spec §5.4/§5.5, 'mean' = SUM ⊗ RN(1/N) (spec §11.6)."""

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, label_smoothing=self.label_smoothing,
                               reduction=self.reduction)


class _Residual(torch.autograd.Function):
    """y = x ⊕ f(x). f runs on a detached copy of x inside forward, its own
    graph kept here; backward runs that graph (the parameters of f get their
    gradients from it, as in torch.utils.checkpoint's reentrant form) and
    returns dx = dy ⊕ d(f)/dx, added by the library. f's parameters are
    inputs only so that y requires grad when they do."""

    @staticmethod
    def forward(ctx, x, module, n_params, *params):
        with torch.enable_grad():
            xd = x.detach().requires_grad_(True)
            fx = module(xd)
        f32(fx, "output of the residual branch", "isotrain.torch.nn.Residual")
        if fx.shape != x.shape:
            raise ValueError("isotrain.torch.nn.Residual: the branch maps %s to %s; a residual needs the same shape"
                             % (tuple(x.shape), tuple(fx.shape)))
        ctx.xd, ctx.fx, ctx.n_params = xd, fx, n_params
        return F._add_raw(x, fx.detach())

    @staticmethod
    def backward(ctx, dy):
        dy = _grad(dy)
        xd, fx = ctx.xd, ctx.fx
        ctx.xd = ctx.fx = None
        torch.autograd.backward(fx, dy)
        dx = dy if xd.grad is None else F._add_raw(dy, xd.grad)  # spec §13.5 step 12: dr2 ⊕ dr_mlp
        return (dx, None, None) + (None,) * ctx.n_params


class Residual(_nn.Module):
    """x ⊕ module(x), elementwise, one rounding (spec §13.5 step 6 for the
    MLP: r2 = r ⊕ mlp(r)). module is any module made of isotrain.torch
    functions (convert() converts it with the rest of the model)."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x):
        f32(x, "input", "isotrain.torch.nn.Residual")
        params = tuple(p for p in self.module.parameters() if p.requires_grad)
        if not torch.is_grad_enabled() or not (x.requires_grad or params):
            with torch.no_grad():
                fx = self.module(x)
            f32(fx, "output of the residual branch", "isotrain.torch.nn.Residual")
            return F._add_raw(x, fx)
        return _Residual.apply(x, self.module, len(params), *params)


class ResidualSelfAttention(_nn.Module):
    """The attention block of spec §13.5 (steps 2-4, backward 13-17): for x of
    shape (N, T, E), the query of the last position attends over all T
    positions (the causal mask admits every key for it), num_heads heads of
    E/num_heads, output x[:, -1] ⊕ W_O z of shape (N, E). The positions
    before the last need no query: nothing they would produce reaches a loss
    at the last position of one layer (spec §13.5).

    Parameters (PyTorch's names for separate projections, spec §13.2's
    order): q_proj_weight, k_proj_weight, v_proj_weight (E x E, out x in,
    heads in row blocks), out_proj.weight (out_proj is a bias-free Linear).
    No biases, no dropout. scale: the binary32 attention scale c (default
    RN(1/sqrt(E/num_heads)), 0x3e3504f3 for heads of 32). Initialized by
    torch.nn.init.xavier_uniform_ like torch.nn.MultiheadAttention (torch's
    own random numbers: use isotrain.torch.init for bytes that are the same
    on every host)."""

    def __init__(self, embed_dim, num_heads, scale=None, device=None, dtype=None):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError("ResidualSelfAttention: embed_dim %d is not a multiple of num_heads %d"
                             % (embed_dim, num_heads))
        kw = {"device": device, "dtype": dtype}
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.scale = F.default_attention_scale(self.head_dim) if scale is None else float(scale)
        self.q_proj_weight = _nn.Parameter(torch.empty((embed_dim, embed_dim), **kw))
        self.k_proj_weight = _nn.Parameter(torch.empty((embed_dim, embed_dim), **kw))
        self.v_proj_weight = _nn.Parameter(torch.empty((embed_dim, embed_dim), **kw))
        self.out_proj = Linear(embed_dim, embed_dim, bias=False, **kw)
        for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
            _nn.init.xavier_uniform_(w)

    def forward(self, x):
        return F.residual_self_attention(x, self.q_proj_weight, self.k_proj_weight, self.v_proj_weight,
                                         self.out_proj.weight, self.num_heads, self.scale)

    def extra_repr(self):
        return "embed_dim=%d, num_heads=%d, scale=%r" % (self.embed_dim, self.num_heads, self.scale)
