"""The checkpoint of spec §8 as the examples and the IUT print and write it:
the parameters' bytes (§8.1), their SHA-256 digest (§8.2), and the command
line every example script shares (--steps, --seed) with its progress line."""

import argparse
import ctypes
import hashlib

import numpy as np

from . import random as _random
from ._check import is_f32
from ._lib import lib

__all__ = ["param_bytes", "digest", "example_args", "print_step"]


def param_bytes(model):
    """spec §8.1: every parameter's little-endian binary32 bytes, in model.parameters() order
    (float32 dense tensors: the library's it_store_f32le in one call; others through numpy)."""
    ps = list(model.parameters())
    if not all(is_f32(p) for p in ps):
        return b"".join(np.ascontiguousarray(p.detach().numpy(), dtype="<f4").tobytes() for p in ps)
    k, ns = len(ps), [p.numel() for p in ps]
    out = np.empty(4 * sum(ns), dtype=np.uint8)
    lib.itt_store_f32le_tensors(k, (ctypes.c_void_p * k)(*[p.data_ptr() for p in ps]), (ctypes.c_size_t * k)(*ns),
                                out.ctypes.data)
    return out.tobytes()


def digest(model):
    """spec §8.2: SHA-256 of param_bytes(model), 64 lowercase hex digits."""
    return hashlib.sha256(param_bytes(model)).hexdigest()


def example_args(doc, steps, seed):
    """An example's command line: --steps (the profile's count) and --seed (the profile's seed)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--steps", type=int, default=steps)
    ap.add_argument("--seed", type=int, default=seed)
    return ap.parse_args()


def print_step(step, loss, model):
    """The progress line of the examples: step, the loss bits and value, the digest."""
    v = loss.item()
    print("step %d loss 0x%08x (%.9g) digest %s" % (step, _random.bits(v), v, digest(model)), flush=True)
