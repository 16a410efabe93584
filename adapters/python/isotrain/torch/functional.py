"""isotrain.torch.functional: the layers of spec §5 as autograd functions,
with torch.nn.functional's signatures where torch has the function.

Every value a function returns, forward or backward, is written by the
reference library (isotrain.h's batched API, rows.c) into a tensor's storage;
torch only allocates, views and copies. The library computes each output
exactly as its spec clause says (one rounding per operation, every SUM in
ascending order from +0, spec §4.1), so the same inputs give the same bits on
every CPU and ISA, with any number of threads (torch.get_num_threads() is
the library's thread count: threads split outputs, never a sum).

Two layers of functions:

- autograd functions, drop-in for torch's: linear, embedding, tanh, relu,
  cross_entropy, add, attention, and the transformer block
  residual_self_attention (spec §13.5 steps 2-4 with their backward, fused so
  that autograd never has to add two gradients itself: see nn.Residual);
- the clauses they are made of, on plain tensors (no autograd): *_grad,
  linear_grad_params_ (a gradient SUM continued from a stored partial, spec
  §4.1), softmax_cross_entropy, attention_forward/attention_backward, exp,
  log, sqrt, dot. The IUT's `ops` verb answers through these, so the runner's
  op vectors certify the code the autograd functions run.

Every tensor must be torch.float32, contiguous, on the CPU (_check.f32).
"""

import ctypes
import math

import numpy as np
import torch

from . import _check
from ._check import f32, grad as _grad, ok, ptr
from ._lib import lib

__all__ = [
    "linear", "embedding", "tanh", "relu", "cross_entropy", "add", "attention", "residual_self_attention",
    "linear_grad_input", "linear_grad_params_", "embedding_grad_", "tanh_grad", "relu_grad",
    "softmax_cross_entropy", "softmax_cross_entropy_grad", "attention_forward", "attention_backward",
    "exp", "log", "sqrt", "dot", "sum", "mul_scalar", "default_attention_scale",
]

_F4 = 4  # bytes per binary32


def _threads():
    return max(1, torch.get_num_threads())


def _empty(shape):
    return torch.empty(tuple(shape), dtype=torch.float32)


def _zeros(shape):
    return torch.zeros(tuple(shape), dtype=torch.float32)


def _p(t):
    """The storage address the library reads or writes (None for no tensor)."""
    return None if t is None else t.data_ptr()


def _read_scalar(t):
    """The binary32 value of a one-element float32 tensor, read from its
    storage (no torch op)."""
    return ctypes.c_float.from_address(t.data_ptr()).value


def _scalar_tensor(v):
    """A 0-dim float32 tensor holding the binary32 value v (a value the
    library returned: exact, no rounding here)."""
    out = torch.empty((), dtype=torch.float32)
    ctypes.c_float.from_address(out.data_ptr()).value = v
    return out


def _no_grad_wanted(fn, *ts):
    if torch.is_grad_enabled() and any(isinstance(t, torch.Tensor) and t.requires_grad for t in ts):
        raise RuntimeError("%s: has no backward in isotrain.torch (the spec defines none for it); "
                           "call it under torch.no_grad() or on tensors that do not require grad" % fn)


# ---- scalars and sums (spec §4.1, §4.2) ------------------------------------------

_ones_cache = {}


def _ones(n):
    a = _ones_cache.get(n)
    if a is None:
        a = np.ones(n, dtype=np.float32)
        if n <= 1 << 20:
            _ones_cache[n] = a
    return a


def dot(a, b):
    """spec §4.2: SUM(a[i] ⊗ b[i]) in ascending i from +0, as a Python float
    (a binary32 value). a and b: float32 tensors of the same number of elements."""
    f32(a, "a", "isotrain.torch.dot")
    f32(b, "b", "isotrain.torch.dot")
    if a.numel() != b.numel():
        raise ValueError("isotrain.torch.dot: 'a' has %d elements, 'b' %d" % (a.numel(), b.numel()))
    return lib.it_dot(_p(a), _p(b), a.numel())


def sum(x):  # noqa: A001 - torch.sum's name, spec §4.1's SUM
    """spec §4.1: SUM(x[0], ..., x[n-1]) in ascending flat order from +0, as a
    0-dim tensor (the library's dot with 1: each term x ⊗ 1 = x exactly)."""
    f32(x, "input", "isotrain.torch.sum")
    ones = _ones(x.numel())
    return _scalar_tensor(lib.it_dot(_p(x), ptr(ones), x.numel()))


def mul_scalar(a, b):
    """a ⊗ b for two binary32 values, by the library (its one-term dot,
    +0 ⊕ (a ⊗ b): the product's bits unless the product is -0, which then
    reads +0, as every sum of spec §4.4 does)."""
    x = (ctypes.c_float * 2)(a, b)
    base = ctypes.addressof(x)
    return lib.it_dot(base, base + _F4, 1)


def _inv(n):
    """RN(1/n) for a count n: the loss scale of spec §11.6 / §13.5 (one IEEE
    binary32 division of exact operands: n < 2^24 is exact in binary32)."""
    if not 0 < n <= 1 << 24:
        raise ValueError("isotrain.torch: a mean over %d elements (1 ... 2^24 supported)" % n)
    return float(np.float32(1.0) / np.float32(n))


# ---- elementwise functions without a backward (spec §3) ---------------------------------

def _unary(fn_name, c_fn, x):
    f32(x, "input", "isotrain.torch." + fn_name)
    _no_grad_wanted("isotrain.torch." + fn_name, x)
    y = _empty(x.shape)
    c_fn(_p(x), _p(y), x.numel())
    return y


def exp(input):
    """spec §3.2: correctly rounded e^x, elementwise."""
    return _unary("exp", lib.it_expf_array, input)


def log(input):
    """spec §3.3: correctly rounded ln x, elementwise."""
    return _unary("log", lib.it_logf_array, input)


def sqrt(input):
    """spec §3.6: correctly rounded square root, elementwise."""
    return _unary("sqrt", lib.it_sqrtf_array, input)


# ---- linear (spec §5.2, §5.7, §4.5) ---------------------------------------------------

def _linear_shapes(x, w, b, fn):
    f32(x, "input", fn)
    f32(w, "weight", fn)
    if w.dim() != 2:
        raise ValueError("%s: 'weight' must be 2-D (out_features x in_features), has shape %s"
                         % (fn, tuple(w.shape)))
    out, inn = w.shape
    if x.dim() < 1 or x.shape[-1] != inn:
        raise ValueError("%s: 'input' has shape %s; its last dimension must be in_features = %d"
                         % (fn, tuple(x.shape), inn))
    if b is not None:
        f32(b, "bias", fn)
        if tuple(b.shape) != (out,):
            raise ValueError("%s: 'bias' has shape %s, expected (%d,)" % (fn, tuple(b.shape), out))
    return out, inn


def _linear_forward(x, w, b):
    out, inn = w.shape
    y = _empty(tuple(x.shape[:-1]) + (out,))
    rows = x.numel() // inn if inn else 0
    ok(lib.it_rows_linear_forward(rows, inn, out, _p(x), inn, _p(w), _p(b), _p(y), out, _threads()),
       "it_rows_linear_forward")
    return y


def linear_grad_input(grad_output, weight):
    """spec §5.7: dX[r][i] = SUM over o ascending of dY[r][o] ⊗ W[o][i]
    (a fresh sum). grad_output (*, out), weight (out, in) -> (*, in)."""
    fn = "isotrain.torch.functional.linear_grad_input"
    f32(grad_output, "grad_output", fn)
    f32(weight, "weight", fn)
    out, inn = weight.shape
    if grad_output.shape[-1] != out:
        raise ValueError("%s: 'grad_output' has shape %s, last dimension must be %d" % (fn, tuple(grad_output.shape), out))
    return _linear_grad_input(grad_output, weight)


def _linear_grad_input(grad_output, weight):
    """linear_grad_input on tensors already checked (or the library's own)."""
    out, inn = weight.shape
    dx = _empty(tuple(grad_output.shape[:-1]) + (inn,))
    rows = grad_output.numel() // out if out else 0
    ok(lib.it_rows_linear_backward_input(rows, inn, out, _p(grad_output), out, _p(weight), _p(dx), inn, _threads()),
       "it_rows_linear_backward_input")
    return dx


def linear_grad_params_(grad_weight, grad_bias, grad_output, input):
    """spec §5.7, §4.1: CONTINUES the sums stored in grad_weight (out x in)
    and grad_bias (out, or None): for each row r ascending,
    dW[o][i] = dW[o][i] ⊕ dY[r][o] ⊗ X[r][i] and db[o] = db[o] ⊕ dY[r][o].
    Zeroed buffers give the fresh gradient; a partial from earlier rows gives
    the bits of one call over all rows (a SUM resumed). In place; returns None."""
    fn = "isotrain.torch.functional.linear_grad_params_"
    f32(grad_weight, "grad_weight", fn)
    f32(grad_output, "grad_output", fn)
    f32(input, "input", fn)
    out, inn = grad_weight.shape
    if grad_bias is not None:
        f32(grad_bias, "grad_bias", fn)
        if tuple(grad_bias.shape) != (out,):
            raise ValueError("%s: 'grad_bias' has shape %s, expected (%d,)" % (fn, tuple(grad_bias.shape), out))
    rows = grad_output.numel() // out if out else 0
    if grad_output.shape[-1] != out or input.shape[-1] != inn or input.numel() // max(inn, 1) != rows:
        raise ValueError("%s: 'grad_output' %s and 'input' %s do not match the weight %s"
                         % (fn, tuple(grad_output.shape), tuple(input.shape), tuple(grad_weight.shape)))
    _linear_grad_params(grad_weight, grad_bias, grad_output, input)


def _linear_grad_params(grad_weight, grad_bias, grad_output, input):
    """linear_grad_params_ on tensors already checked (or the library's own)."""
    out, inn = grad_weight.shape
    rows = grad_output.numel() // out if out else 0
    ok(lib.it_rows_linear_backward_params(rows, inn, out, _p(grad_output), out, _p(input), inn, _p(grad_weight),
                                          _p(grad_bias), _threads()), "it_rows_linear_backward_params")



def _linear_param_grads(dy, x, w, has_bias):
    """(dW, db or None) of a linear from its checked (or the library's own)
    tensors: fresh SUMs from +0 (spec §11.6), it_rows_linear_backward_params."""
    dw = _zeros(w.shape)  # every gradient SUM starts at +0 (spec §11.6)
    db = _zeros((w.shape[0],)) if has_bias else None
    _linear_grad_params(dw, db, dy, x)
    return dw, db


class _Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        ctx.has_bias = b is not None
        return _linear_forward(x, w, b)

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        dy = _grad(dy)
        dx = _linear_grad_input(dy, w) if ctx.needs_input_grad[0] else None
        dw = db = None
        if ctx.needs_input_grad[1] or (ctx.has_bias and ctx.needs_input_grad[2]):
            dw, db = _linear_param_grads(dy, x, w, ctx.has_bias)
        return (dx, dw if ctx.needs_input_grad[1] else None,
                db if ctx.has_bias and ctx.needs_input_grad[2] else None)


def linear(input, weight, bias=None):
    """torch.nn.functional.linear: y = x Wᵀ + b, spec §5.2 per row (the bias
    after the whole dot product); backward spec §5.7 (dW, db: SUMs over the
    rows of every leading dimension, in row-major order)."""
    _linear_shapes(input, weight, bias, "isotrain.torch.functional.linear")
    return _Linear.apply(input, weight, bias)


# ---- embedding (spec §5.1, §5.8) -----------------------------------------------------------

def embedding_grad_(grad_weight, tokens, grad_output):
    """spec §5.8: CONTINUES dE: for each position r ascending,
    dE[tokens[r]] = dE[tokens[r]] ⊕ dY[r]. tokens: an integer tensor (any
    shape, rows = its elements), grad_output (*tokens.shape, dim). In place."""
    fn = "isotrain.torch.functional.embedding_grad_"
    f32(grad_weight, "grad_weight", fn)
    f32(grad_output, "grad_output", fn)
    vocab, dim = grad_weight.shape
    tok, _ = _check.indices(tokens, vocab, "tokens", fn)
    if grad_output.numel() != tok.size * dim:
        raise ValueError("%s: 'grad_output' has %d elements, expected %d tokens x %d"
                         % (fn, grad_output.numel(), tok.size, dim))
    _embedding_grad(grad_weight, tok, grad_output)


def _embedding_grad(dE, tok, dY):
    vocab, dim = dE.shape
    ok(lib.it_rows_embedding_backward(tok.size, dim, vocab, ptr(tok), _p(dY), dim, _p(dE), _threads()),
       "it_rows_embedding_backward")


class _Embedding(torch.autograd.Function):
    @staticmethod
    def forward(ctx, w, tok, shape):
        vocab, dim = w.shape
        y = _empty(tuple(shape) + (dim,))
        ok(lib.it_rows_embedding_forward(tok.size, dim, vocab, _p(w), ptr(tok), _p(y), dim, _threads()),
           "it_rows_embedding_forward")
        ctx.tok = tok
        ctx.wshape = tuple(w.shape)
        return y

    @staticmethod
    def backward(ctx, dy):
        if not ctx.needs_input_grad[0]:
            return None, None, None
        dE = _zeros(ctx.wshape)  # a row whose token does not occur stays +0 (spec §5.8)
        _embedding_grad(dE, ctx.tok, _grad(dy))
        return dE, None, None


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """torch.nn.functional.embedding: rows of weight picked by the integer
    tensor input (spec §5.1, a copy); backward the scatter-add of spec §5.8 in
    ascending (flat) position order. padding_idx, max_norm,
    scale_grad_by_freq and sparse have no spec clause: refused."""
    fn = "isotrain.torch.functional.embedding"
    for name, val, default in (("padding_idx", padding_idx, None), ("max_norm", max_norm, None),
                               ("scale_grad_by_freq", scale_grad_by_freq, False), ("sparse", sparse, False)):
        if val != default:
            raise NotImplementedError("%s: %s=%r is not supported (no spec clause; only %r)" % (fn, name, val, default))
    f32(weight, "weight", fn)
    if weight.dim() != 2:
        raise ValueError("%s: 'weight' must be 2-D (num_embeddings x embedding_dim), has shape %s"
                         % (fn, tuple(weight.shape)))
    tok, shape = _check.indices(input, weight.shape[0], "input", fn)
    return _Embedding.apply(weight, tok, shape)


# ---- elementwise layers (spec §5.3, §5.6, §5.9, §5.10) --------------------------------------

def _rc(t):
    """(rows, cols) of a contiguous tensor seen as rows of its last dimension."""
    if t.dim() == 0:
        return 1, 1
    cols = t.shape[-1]
    return (t.numel() // cols if cols else 0), cols


def tanh_grad(output, grad_output):
    """spec §5.6: dx = dy ⊗ (1 ⊖ y ⊗ y), y the forward OUTPUT."""
    fn = "isotrain.torch.functional.tanh_grad"
    f32(output, "output", fn)
    f32(grad_output, "grad_output", fn)
    if output.shape != grad_output.shape:
        raise ValueError("%s: shapes %s and %s differ" % (fn, tuple(output.shape), tuple(grad_output.shape)))
    dx = _empty(output.shape)
    r, c = _rc(output)
    ok(lib.it_rows_tanh_backward(r, c, _p(output), c, _p(grad_output), c, _p(dx), c, _threads()),
       "it_rows_tanh_backward")
    return dx


def relu_grad(input, grad_output):
    """spec §5.10: dx = dy where x > +0, else +0 (relu'(0) = 0); x the forward INPUT."""
    fn = "isotrain.torch.functional.relu_grad"
    f32(input, "input", fn)
    f32(grad_output, "grad_output", fn)
    if input.shape != grad_output.shape:
        raise ValueError("%s: shapes %s and %s differ" % (fn, tuple(input.shape), tuple(grad_output.shape)))
    dx = _empty(input.shape)
    r, c = _rc(input)
    ok(lib.it_rows_relu_backward(r, c, _p(input), c, _p(grad_output), c, _p(dx), c, _threads()),
       "it_rows_relu_backward")
    return dx


class _Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = _empty(x.shape)
        r, c = _rc(x)
        ok(lib.it_rows_tanh_forward(r, c, _p(x), c, _p(y), c, _threads()), "it_rows_tanh_forward")
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        return tanh_grad(y, _grad(dy))


def tanh(input):
    """torch.tanh: spec §3.4's fixed sequence, elementwise (§5.3); backward §5.6."""
    f32(input, "input", "isotrain.torch.functional.tanh")
    return _Tanh.apply(input)


class _Relu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = _empty(x.shape)
        r, c = _rc(x)
        ok(lib.it_rows_relu_forward(r, c, _p(x), c, _p(y), c, _threads()), "it_rows_relu_forward")
        ctx.save_for_backward(x)
        return y

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        return relu_grad(x, _grad(dy))


def relu(input, inplace=False):
    """torch.nn.functional.relu: spec §5.9 (+0 for x <= 0, NaN passes); backward §5.10."""
    if inplace:
        raise NotImplementedError("isotrain.torch.functional.relu: inplace=True is not supported "
                                  "(the backward needs the forward input, spec §5.10)")
    f32(input, "input", "isotrain.torch.functional.relu")
    return _Relu.apply(input)


# ---- elementwise sum with broadcasting (spec §1.3, §4.1) ---------------------------------------

def _add_raw(a, b):
    """a ⊕ b elementwise (same shape), a new tensor."""
    y = _empty(a.shape)
    r, c = _rc(a)
    ok(lib.it_rows_add(r, c, _p(a), c, _p(b), c, _p(y), c, _threads()), "it_rows_add")
    return y


class _Add(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        y = _empty(a.shape)
        ctx.broadcast = tuple(b.shape) != tuple(a.shape)
        if ctx.broadcast:  # b is a trailing part of a's shape: ld 0 adds it to every row of k elements
            k = b.numel()
            rows = a.numel() // k if k else 0
            ok(lib.it_rows_add(rows, k, _p(a), k, _p(b), 0, _p(y), k, _threads()), "it_rows_add")
            ctx.rows, ctx.bshape = rows, tuple(b.shape)
        else:
            r, c = _rc(a)
            ok(lib.it_rows_add(r, c, _p(a), c, _p(b), c, _p(y), c, _threads()), "it_rows_add")
        return y

    @staticmethod
    def backward(ctx, dy):
        dy = _grad(dy)
        da = dy if ctx.needs_input_grad[0] else None
        db = None
        if ctx.needs_input_grad[1]:
            if not ctx.broadcast:
                db = dy.clone() if da is not None else dy  # two inputs never share one gradient's storage
            else:
                # b was added to every row: its gradient is the SUM of the rows'
                # gradients in ascending row order from +0 (spec §4.1, §5.8):
                # the scatter-add of every row into row 0
                db = _zeros(ctx.bshape)
                k = db.numel()
                tok = np.zeros(ctx.rows, dtype=np.uint32)
                ok(lib.it_rows_embedding_backward(ctx.rows, k, 1, ptr(tok), _p(dy), k, _p(db), _threads()),
                   "it_rows_embedding_backward")
        return da, db


def add(input, other, alpha=1):
    """torch.add(input, other): input ⊕ other elementwise, one rounding each
    (spec §1.3). other has input's shape, or a trailing part of it (e.g. a
    position embedding (T, D) added to (N, T, D)); its gradient is then the
    SUM over the rows it was added to, in ascending order (spec §4.1)."""
    fn = "isotrain.torch.functional.add"
    if alpha != 1:
        raise NotImplementedError("%s: alpha=%r is not supported (only 1)" % (fn, alpha))
    f32(input, "input", fn)
    f32(other, "other", fn)
    if other.dim() > input.dim() or tuple(input.shape[input.dim() - other.dim():]) != tuple(other.shape):
        raise ValueError("%s: 'other' of shape %s must have the shape of 'input' %s or of its trailing dimensions"
                         % (fn, tuple(other.shape), tuple(input.shape)))
    return _Add.apply(input, other)


# ---- softmax and cross-entropy (spec §5.4, §5.5, §11.6, §13.5) -----------------------------------

def softmax_cross_entropy(logits, target):
    """spec §5.4 per row: (probs (N, C), losses (N,)), target an integer tensor
    of N class indices."""
    fn = "isotrain.torch.functional.softmax_cross_entropy"
    f32(logits, "logits", fn)
    if logits.dim() != 2:
        raise ValueError("%s: 'logits' must be 2-D (N x C), has shape %s" % (fn, tuple(logits.shape)))
    n, c = logits.shape
    tgt, _ = _check.indices(target, c, "target", fn)
    if tgt.size != n:
        raise ValueError("%s: 'target' has %d elements for %d rows" % (fn, tgt.size, n))
    probs, losses = _empty((n, c)), _empty((n,))
    if c == 0:
        raise ValueError("%s: 'logits' has no class" % fn)
    ok(lib.it_rows_softmax_xent_forward(n, c, _p(logits), c, ptr(tgt), _p(losses), _p(probs), c, _threads()),
       "it_rows_softmax_xent_forward")
    return probs, losses


def softmax_cross_entropy_grad(probs, target, scale):
    """spec §5.5 per row: dz = (p ⊖ 1) ⊗ s at the target, p ⊗ s elsewhere;
    scale is one binary32 value (a float) for every row."""
    fn = "isotrain.torch.functional.softmax_cross_entropy_grad"
    f32(probs, "probs", fn)
    n, c = probs.shape
    tgt, _ = _check.indices(target, c, "target", fn)
    dz = _empty((n, c))
    ok(lib.it_rows_softmax_xent_backward(n, c, _p(probs), c, ptr(tgt), scale, _p(dz), c, _threads()),
       "it_rows_softmax_xent_backward")
    return dz


class _CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z, tgt, reduction):
        n, c = z.shape
        probs, losses = _empty((n, c)), _empty((n,))
        ok(lib.it_rows_softmax_xent_forward(n, c, _p(z), c, ptr(tgt), _p(losses), _p(probs), c, _threads()),
           "it_rows_softmax_xent_forward")
        ctx.probs, ctx.tgt, ctx.reduction = probs, tgt, reduction
        if reduction == "none":
            return losses
        total = lib.it_dot(_p(losses), ptr(_ones(n)), n)  # SUM(loss_0, ..., loss_{n-1}) from +0
        if reduction == "sum":
            return _scalar_tensor(total)
        ctx.s = _inv(n)
        return _scalar_tensor(mul_scalar(total, ctx.s))  # SUM ⊗ RN(1/n) (spec §11.6, §13.5)

    @staticmethod
    def backward(ctx, g):
        if not ctx.needs_input_grad[0]:
            return None, None, None
        g = _grad(g)
        probs, tgt = ctx.probs, ctx.tgt
        n, c = probs.shape
        dz = _empty((n, c))
        if ctx.reduction == "none":  # one scale per row: one call per row
            for r in range(n):
                ok(lib.it_rows_softmax_xent_backward(1, c, _p(probs) + r * c * _F4, c, ptr(tgt) + 4 * r,
                                                     ctypes.c_float.from_address(g.data_ptr() + _F4 * r).value,
                                                     _p(dz) + r * c * _F4, c, 1), "it_rows_softmax_xent_backward")
            return dz, None, None
        gv = _read_scalar(g)
        # loss.backward() seeds 1.0, whose product with s is s itself: the
        # spec's backward scale; any other seed multiplies it once
        scale = gv if ctx.reduction == "sum" else (ctx.s if gv == 1.0 else mul_scalar(gv, ctx.s))
        ok(lib.it_rows_softmax_xent_backward(n, c, _p(probs), c, ptr(tgt), scale, _p(dz), c, _threads()),
           "it_rows_softmax_xent_backward")
        return dz, None, None


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """torch.nn.functional.cross_entropy for logits (N, C) and class indices
    (N,): spec §5.4 per row; 'mean' is SUM(loss_r) ⊗ RN(1/N) (spec §11.6), 'sum'
    the SUM, 'none' the per-row losses; backward spec §5.5 with the scale
    RN(1/N) (times the incoming gradient when it is not 1). Class weights,
    label smoothing, the deprecated size_average/reduce and probability
    targets have no spec clause: refused. Targets must lie in [0, C) (an
    ignore_index inside the batch is refused, not skipped)."""
    fn = "isotrain.torch.functional.cross_entropy"
    for name, val, default in (("weight", weight, None), ("size_average", size_average, None),
                               ("reduce", reduce, None), ("label_smoothing", label_smoothing, 0.0)):
        if val is not default and val != default:
            raise NotImplementedError("%s: %s=%r is not supported (no spec clause; only %r)" % (fn, name, val, default))
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("%s: reduction=%r (mean, sum or none)" % (fn, reduction))
    f32(input, "input", fn)
    if input.dim() != 2:
        raise ValueError("%s: 'input' must be 2-D logits (N x C), has shape %s" % (fn, tuple(input.shape)))
    n, c = input.shape
    if c == 0 or n == 0:
        raise ValueError("%s: 'input' has shape %s (at least one row and one class)" % (fn, tuple(input.shape)))
    tgt, shape = _check.indices(target, c, "target", fn)
    if shape != (n,):
        raise ValueError("%s: 'target' must be (N,) = (%d,) class indices, has shape %s" % (fn, n, shape))
    return _CrossEntropy.apply(input, tgt, reduction)


# ---- attention (spec §5.11, §5.12) and the transformer block (§13.5) -------------------------------

def default_attention_scale(head_dim):
    """RN(1/sqrt(head_dim)) as a binary32 constant (spec §13.1: 0x3e3504f3 for
    32). Computed once from binary64 (1/sqrt in binary64 is within 1 ulp of
    the real value, far inside half a binary32 ulp unless the value sits on a
    binary32 tie, which no head width of a power of two or below 2^20 does);
    pass scale= to give the bits yourself."""
    return float(np.float32(1.0 / math.sqrt(head_dim)))


def _heads(e, num_heads, fn):
    if num_heads < 1 or e % num_heads:
        raise ValueError("%s: embed_dim %d is not a multiple of num_heads %d" % (fn, e, num_heads))
    return e // num_heads


def attention_forward(q, k, v, num_heads, scale):
    """spec §5.11 for each row r: the query q[r] (E = H*dh) over T keys and
    values k[r, t], v[r, t] (position-major), H heads: returns (weights
    (N, H, T), z (N, E), heads concatenated)."""
    fn = "isotrain.torch.functional.attention_forward"
    for name, t in (("q", q), ("k", k), ("v", v)):
        f32(t, name, fn)
    n, e = q.shape
    if k.dim() != 3 or tuple(k.shape[::2]) != (n, e) or v.shape != k.shape:
        raise ValueError("%s: q %s, k %s, v %s: expected q (N, E), k and v (N, T, E)"
                         % (fn, tuple(q.shape), tuple(k.shape), tuple(v.shape)))
    t = k.shape[1]
    if not 1 <= t <= 16:
        raise ValueError("%s: %d keys; the library attends over 1 to 16 (spec §5.11)" % (fn, t))
    dh = _heads(e, num_heads, fn)
    w, z = _empty((n, num_heads, t)), _empty((n, e))
    ok(lib.it_rows_attention_forward(n, t, num_heads, dh, scale, _p(q), e, _p(k), _p(v), e, _p(w), _p(z), e,
                                     _threads()), "it_rows_attention_forward")
    return w, z


def attention_backward(q, k, v, weights, grad_z, num_heads, scale):
    """spec §5.12: (dq (N, E), dk (N, T, E), dv (N, T, E)), written."""
    fn = "isotrain.torch.functional.attention_backward"
    for name, t in (("q", q), ("k", k), ("v", v), ("weights", weights), ("grad_z", grad_z)):
        f32(t, name, fn)
    n, e = q.shape
    t = k.shape[1]
    dh = _heads(e, num_heads, fn)
    if tuple(weights.shape) != (n, num_heads, t) or tuple(grad_z.shape) != (n, e):
        raise ValueError("%s: weights %s, grad_z %s do not match q %s, k %s"
                         % (fn, tuple(weights.shape), tuple(grad_z.shape), tuple(q.shape), tuple(k.shape)))
    dq, dk, dv = _empty((n, e)), _empty((n, t, e)), _empty((n, t, e))
    ok(lib.it_rows_attention_backward(n, t, num_heads, dh, scale, _p(q), e, _p(k), _p(v), e, _p(weights),
                                      _p(grad_z), e, _p(dq), e, _p(dk), _p(dv), e, _threads()),
       "it_rows_attention_backward")
    return dq, dk, dv


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, num_heads, scale):
        w, z = attention_forward(q, k, v, num_heads, scale)
        ctx.save_for_backward(q, k, v)
        ctx.w, ctx.num_heads, ctx.scale = w, num_heads, scale
        return z

    @staticmethod
    def backward(ctx, dz):
        q, k, v = ctx.saved_tensors
        dq, dk, dv = attention_backward(q, k, v, ctx.w, _grad(dz), ctx.num_heads, ctx.scale)
        return dq, dk, dv, None, None


def attention(query, key, value, num_heads, scale=None):
    """spec §5.11 with autograd (§5.12): one query per row over T keys (a
    causal query at the last position attends to all of them; a masked key
    is left out by not passing it). query (N, E), key and value (N, T, E);
    returns (N, E)."""
    if scale is None:
        scale = default_attention_scale(query.shape[-1] // max(num_heads, 1))
    return _Attention.apply(query, key, value, num_heads, scale)


class _ResidualSelfAttention(torch.autograd.Function):
    """spec §13.5 steps 2-4 (forward) and 13-17 (backward) over rows: the
    input x (N, T, E) enters four times (query at the last position, keys,
    values, residual), so its gradient is a sum of four parts, and the spec
    fixes their order: dx_last = ((dr ⊕ dxq) ⊕ dxk) ⊕ dxv. Autograd would add
    them itself in an order of its own choosing, with aten.add: one function
    owns the whole block instead."""

    @staticmethod
    def forward(ctx, x, wq, wk, wv, wo, num_heads, scale):
        n, t, e = x.shape
        h, th = num_heads, _threads()
        dh = e // h
        xl = _p(x) + (t - 1) * e * _F4  # x at the last position: rows of ld t*e
        q, k, v = _empty((n, e)), _empty((n, t, e)), _empty((n, t, e))
        ok(lib.it_rows_linear_forward(n, e, e, xl, t * e, _p(wq), None, _p(q), e, th), "q")
        ok(lib.it_rows_linear_forward(n * t, e, e, _p(x), e, _p(wk), None, _p(k), e, th), "k")
        ok(lib.it_rows_linear_forward(n * t, e, e, _p(x), e, _p(wv), None, _p(v), e, th), "v")
        w, z = _empty((n, h, t)), _empty((n, e))
        ok(lib.it_rows_attention_forward(n, t, h, dh, scale, _p(q), e, _p(k), _p(v), e, _p(w), _p(z), e, th),
           "it_rows_attention_forward")
        r = _empty((n, e))
        ok(lib.it_rows_linear_forward(n, e, e, _p(z), e, _p(wo), None, _p(r), e, th), "o")
        ok(lib.it_rows_add(n, e, xl, t * e, _p(r), e, _p(r), e, th), "residual")  # r = x_last ⊕ W_O z
        ctx.save_for_backward(x, wq, wk, wv, wo)
        ctx.act = (q, k, v, w, z)
        ctx.num_heads, ctx.scale = num_heads, scale
        return r

    @staticmethod
    def backward(ctx, dr):
        x, wq, wk, wv, wo = ctx.saved_tensors
        q, k, v, w, z = ctx.act
        dr = _grad(dr)
        n, t, e = x.shape
        h, th, scale = ctx.num_heads, _threads(), ctx.scale
        dh = e // h
        xl = _p(x) + (t - 1) * e * _F4
        need = ctx.needs_input_grad
        # step 13: output projection
        dwo = _zeros((e, e))
        ok(lib.it_rows_linear_backward_params(n, e, e, _p(dr), e, _p(z), e, _p(dwo), None, th), "dW_O")
        dz = _empty((n, e))
        ok(lib.it_rows_linear_backward_input(n, e, e, _p(dr), e, _p(wo), _p(dz), e, th), "dz")
        # step 14: attention
        dq, dk, dv = _empty((n, e)), _empty((n, t, e)), _empty((n, t, e))
        ok(lib.it_rows_attention_backward(n, t, h, dh, scale, _p(q), e, _p(k), _p(v), e, _p(w), _p(dz), e,
                                          _p(dq), e, _p(dk), _p(dv), e, th), "it_rows_attention_backward")
        # step 15: projection weights, rows (pair, position) ascending
        dwq, dwk, dwv = _zeros((e, e)), _zeros((e, e)), _zeros((e, e))
        ok(lib.it_rows_linear_backward_params(n, e, e, _p(dq), e, xl, t * e, _p(dwq), None, th), "dW_Q")
        ok(lib.it_rows_linear_backward_params(n * t, e, e, _p(dk), e, _p(x), e, _p(dwk), None, th), "dW_K")
        ok(lib.it_rows_linear_backward_params(n * t, e, e, _p(dv), e, _p(x), e, _p(dwv), None, th), "dW_V")
        dx = None
        if need[0]:
            # step 16: the inputs' gradients; step 17: their sum in the spec's order
            dxq, dx, dxv = _empty((n, e)), _empty((n, t, e)), _empty((n, t, e))
            ok(lib.it_rows_linear_backward_input(n, e, e, _p(dq), e, _p(wq), _p(dxq), e, th), "dxq")
            ok(lib.it_rows_linear_backward_input(n * t, e, e, _p(dk), e, _p(wk), _p(dx), e, th), "dxk")
            ok(lib.it_rows_linear_backward_input(n * t, e, e, _p(dv), e, _p(wv), _p(dxv), e, th), "dxv")
            dxl = _p(dx) + (t - 1) * e * _F4
            ok(lib.it_rows_add(n, e, _p(dr), e, _p(dxq), e, _p(dxq), e, th), "dr + dxq")
            ok(lib.it_rows_add(n, e, _p(dxq), e, dxl, t * e, dxl, t * e, th), "(dr + dxq) + dxk")
            ok(lib.it_rows_add(n * t, e, _p(dx), e, _p(dxv), e, _p(dx), e, th), "+ dxv")
        return (dx, dwq if need[1] else None, dwk if need[2] else None, dwv if need[3] else None,
                dwo if need[4] else None, None, None)


def residual_self_attention(x, q_proj_weight, k_proj_weight, v_proj_weight, out_proj_weight, num_heads,
                            scale=None):
    """The attention block of spec §13.5: for x (N, T, E), the query of the
    LAST position attends over all T positions (causal: it sees every key;
    the other positions' queries are never computed, spec §13.5), heads of
    E/num_heads, and the output is x[:, -1] ⊕ W_O z, shape (N, E).
    Weights are (E, E), out x in, no biases."""
    fn = "isotrain.torch.functional.residual_self_attention"
    f32(x, "x", fn)
    if x.dim() != 3:
        raise ValueError("%s: 'x' must be (N, T, E), has shape %s" % (fn, tuple(x.shape)))
    n, t, e = x.shape
    if not 1 <= t <= 16:
        raise ValueError("%s: %d positions; the library attends over 1 to 16 (spec §5.11)" % (fn, t))
    dh = _heads(e, num_heads, fn)
    for name, wt in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                     ("v_proj_weight", v_proj_weight), ("out_proj_weight", out_proj_weight)):
        f32(wt, name, fn)
        if tuple(wt.shape) != (e, e):
            raise ValueError("%s: '%s' has shape %s, expected (%d, %d)" % (fn, name, tuple(wt.shape), e, e))
    if scale is None:
        scale = default_attention_scale(dh)
    return _ResidualSelfAttention.apply(x, q_proj_weight, k_proj_weight, v_proj_weight, out_proj_weight,
                                        num_heads, scale)


# spec 1.2.0's layers (gptchar): their own file, the same namespace
from .functional_gpt import (  # noqa: E402,F401
    causal_attention, causal_attention_backward, causal_attention_forward, fan_out, gelu, gelu_backward,
    gelu_forward, layer_norm, layer_norm_backward_, layer_norm_forward, residual_add_forward, tie,
    tied_embedding, tied_embedding_grad)

# what functional_chain fuses: a chain runs fused only while these are still
# the library's (a function switched back to torch's, as the negative
# controls do, is then called module by module: the switch takes effect)
_CHAIN_OF = (linear, embedding, tanh, relu)
from .functional_chain import chain  # noqa: E402,F401

__all__ += ["chain", "layer_norm", "gelu", "causal_attention", "fan_out", "tie", "tied_embedding", "residual_add_forward",
            "layer_norm_forward", "layer_norm_backward_", "gelu_forward", "gelu_backward",
            "causal_attention_forward", "causal_attention_backward", "tied_embedding_grad"]
