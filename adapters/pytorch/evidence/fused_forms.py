"""Which formula did a host's float32 results follow: every operation rounded
separately, or a multiply and an add fused into one rounding (an FMA)?

Each function takes the inputs (numpy float32 arrays) and returns the
candidate results, computed exactly: separately rounded forms with numpy's
float32 operations (each correctly rounded, never contracted), fused forms
with fma32 (one rounding of a*b + c, exact: see below). `classify` then
names every candidate that equals a host's results bit for bit. Used by
cross_isa.py (tanh backward, SGD's add_, uniform_, the BLAS products) and
kernel_diff.py (the AVX2 kernels).
"""
from fractions import Fraction

import numpy as np

F32, F64 = np.float32, np.float64


def fma32(a, b, c):
    """round-to-nearest-even binary32 of a*b + c, exactly, elementwise (finite
    float32 inputs, no overflow). a*b is exact in binary64 (48 significant
    bits); TwoSum gives s + e = a*b + c exactly; round32(s) is the answer
    unless s is exactly halfway between two binary32 values (a binary32
    midpoint has 25 bits, so it is a binary64 value and no other double lies
    between it and the exact sum), and then the sign of e decides."""
    a, b, c = (np.asarray(v, dtype=F32) for v in (a, b, c))
    p = a.astype(F64) * b.astype(F64)
    q = c.astype(F64)
    s = p + q
    bb = s - p
    e = (p - (s - bb)) + (q - bb)
    r = s.astype(F32)
    r64 = r.astype(F64)
    # s is a midpoint when it differs from r by half a binary32 ulp of r, towards s
    toward = np.nextafter(r, np.where(s > r64, F32(np.inf), F32(-np.inf)).astype(F32))
    mid = (s != r64) & (np.abs(s - r64) == np.abs(toward.astype(F64) - r64) / 2)
    # at a midpoint, round32(s) chose r (the even one); the exact value lies on e's side of s
    away = mid & (e != 0) & ((e > 0) == (s > r64))
    return np.where(away, toward, r).astype(F32)


def round32_exact(q):
    """The binary32 value nearest to the rational q, ties to even: the slow
    definition fma32 is tested against (tests/test_adapter.py)."""
    c = F32(float(q))
    best = None
    for v in (np.nextafter(c, F32(-np.inf)), c, np.nextafter(c, F32(np.inf))):
        d = abs(Fraction(float(v)) - q)
        even = (int(np.array(v, dtype=F32).view(np.uint32)) & 1) == 0
        if best is None or d < best[0] or (d == best[0] and even):
            best = (d, v)
    return best[1]


def _f32(a):
    return np.asarray(a, dtype=F32)


def tanh_backward(g, y):
    """aten::tanh_backward(g, y) = g * (1 - y*y). Fused: g * round(1 - y*y exactly)."""
    g, y = _f32(g), _f32(y)
    return {"separate": g * (F32(1) - y * y), "1-y*y fused": g * fma32(-y, y, np.ones_like(y))}


def axpy(p, g, alpha):
    """p.add_(g, alpha=alpha) = p + alpha*g."""
    p, g = _f32(p), _f32(g)
    al = np.full_like(p, alpha)
    return {"separate": p + al * g, "fused": fma32(al, g, p)}


def uniform(x, lo, hi):
    """PyTorch's uniform_real_distribution: x * (hi - lo) + lo, for x the
    generator's value in [0, 1) (what rand() gives after the same seed)."""
    x = _f32(x)
    lo, hi = F32(lo), F32(hi)
    w = np.full_like(x, hi - lo)
    return {"separate": x * w + lo, "fused": fma32(x, w, np.full_like(x, lo))}


def matmul(a, b, bias=None):
    """y = a @ b (+ bias), every output a dot product over k in ascending order
    (what the netlib reference sgemm computes in each of its loop orders). Forms:
    separate or fused multiply-adds; with a bias, the bias as the start value
    (first) or added after the dot product (last)."""
    a, b = _f32(a), _f32(b)
    m, k = a.shape
    n = b.shape[1]
    starts = {"": np.zeros((m, n), F32)} if bias is None else {
        ", bias first": np.broadcast_to(_f32(bias), (m, n)).copy(), ", bias last": np.zeros((m, n), F32)}
    out = {}
    for tag, s0 in starts.items():
        sep, fus = s0.copy(), s0.copy()
        for l in range(k):
            ai = np.broadcast_to(a[:, l:l + 1], (m, n))
            bj = np.broadcast_to(b[l:l + 1, :], (m, n))
            sep = sep + ai * bj
            fus = fma32(ai, bj, fus)
        if tag == ", bias last":
            sep, fus = sep + _f32(bias), fus + _f32(bias)
        out["separate" + tag] = sep
        out["fused" + tag] = fus
    return out


def same_bits(x, y):
    return _f32(x).reshape(-1).view(np.uint32) == _f32(y).reshape(-1).view(np.uint32)


def classify(got, forms):
    """'= <form>[, <form>...]' for the forms got equals bit for bit, else the
    closest form and how many elements differ from it."""
    got = _f32(got)
    hits = [name for name, v in forms.items() if same_bits(got, v).all()]
    if hits:
        return "= " + " = ".join(hits)
    name, v = min(forms.items(), key=lambda kv: int(np.count_nonzero(~same_bits(got, kv[1]))))
    return "no form (nearest: %s, %d of %d differ)" % (name, int(np.count_nonzero(~same_bits(got, v))), got.size)
