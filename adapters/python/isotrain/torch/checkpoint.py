"""The checkpoint of spec §8 as the examples and the IUT print and write it:
the parameters' bytes (§8.1), their SHA-256 digest (§8.2), and the command
line every example script shares (--steps, --seed) with its progress line."""

import argparse
import hashlib

import numpy as np

from . import random as _random

__all__ = ["param_bytes", "digest", "example_args", "print_step"]


def param_bytes(model):
    """spec §8.1: every parameter's little-endian binary32 bytes, in model.parameters() order."""
    return b"".join(np.ascontiguousarray(p.detach().numpy(), dtype="<f4").data for p in model.parameters())


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
