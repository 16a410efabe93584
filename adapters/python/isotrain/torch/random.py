"""isotrain.torch.random: the counter-based generator of spec §6, from the
library. Every random number is a pure function of (seed, stream, index):
no generator state, the same numbers on every host (torch.manual_seed's
draws differ between CPUs: adapters/pytorch/README.md).
"""

import numpy as np
import torch

from ._lib import lib

__all__ = ["words", "below_words", "philox4x32_10", "u32_to_symmetric", "below", "permutation", "bits", "from_bits"]

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1


def bits(x):
    """The binary32 bit pattern of x (a float, rounded to binary32 first)."""
    return int(np.float32(x).view(np.uint32))


def from_bits(u):
    """The binary32 value with bit pattern u, as a Python float (exact)."""
    return float(np.uint32(u).view(np.float32))


def words(seed, stream, index, count):
    """spec §6.2: words index ... index+count-1 of (seed, stream), a uint32 numpy array."""
    if not (0 <= seed <= _M64 and 0 <= stream <= _M32 and 0 <= index and count >= 0 and index + count - 1 <= _M64):
        raise ValueError("isotrain.torch.random.words: seed %r, stream %r, index %r, count %r out of range"
                         % (seed, stream, index, count))
    f = lib.it_rng_u32
    return np.fromiter((f(seed, stream, index + i) for i in range(count)), dtype=np.uint32, count=count)


def below_words(seed, stream, index, count, n):
    """below(words(seed, stream, index, count), n) in one library call (a batch's positions)."""
    if not (0 <= seed <= _M64 and 0 <= stream <= _M32 and 0 <= index and count >= 0 and index + count - 1 <= _M64
            and 1 <= n <= _M32):
        raise ValueError("isotrain.torch.random.below_words: seed %r, stream %r, index %r, count %r, n %r out of "
                         "range" % (seed, stream, index, count, n))
    out = np.empty(count, dtype=np.uint32)
    lib.itt_rng_below(seed, stream, index, count, n, out.ctypes.data)
    return out


def philox4x32_10(ctr, key):
    """spec §6.1: one block, four words (counter of 4 words, key of 2)."""
    c = np.asarray(ctr, dtype=np.uint32)
    k = np.asarray(key, dtype=np.uint32)
    if c.shape != (4,) or k.shape != (2,):
        raise ValueError("isotrain.torch.random.philox4x32_10: counter of 4 words and key of 2 expected")
    out = np.empty(4, dtype=np.uint32)
    lib.it_philox4x32_10(c.ctypes.data, k.ctypes.data, out.ctypes.data)
    return out


def u32_to_symmetric(ws):
    """spec §6.3: each word r to ((r >> 8) - 2^23) ⊗ 2^-23 in [-1, 1), a float32 numpy array."""
    f = lib.it_u32_to_symmetric
    ws = np.asarray(ws, dtype=np.uint32)
    return np.fromiter((f(int(r)) for r in ws), dtype=np.float32, count=ws.size)


def below(ws, n):
    """spec §6.4: floor(r ⊗ n / 2^32) for each word, a uint32 numpy array."""
    if not 1 <= n <= _M32:
        raise ValueError("isotrain.torch.random.below: n = %r (1 ... 2^32-1)" % n)
    f = lib.it_u32_below
    ws = np.asarray(ws, dtype=np.uint32)
    return np.fromiter((f(int(r), n) for r in ws), dtype=np.uint32, count=ws.size)


def permutation(seed, stream, n):
    """spec §6.5: Fisher-Yates from the top with draw k = below(word(seed,
    stream, k), i + 1) for i = n-1-k; a torch.long tensor of 0 ... n-1."""
    if n < 1:
        raise ValueError("isotrain.torch.random.permutation: n = %r" % n)
    perm = list(range(n))
    ws = words(seed, stream, 0, n - 1)
    f = lib.it_u32_below
    for k in range(n - 1):
        i = n - 1 - k
        j = f(int(ws[k]), i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return torch.tensor(perm, dtype=torch.long)
