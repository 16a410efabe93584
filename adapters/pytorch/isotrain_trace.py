"""Write an isotrain trace (spec §9.2) from any PyTorch training loop.

A few lines in your own loop:

    from isotrain_trace import IsotrainTrace

    tr = IsotrainTrace("run.trace", model, profile="mymodel", steps=300)
    for step in range(1, 301):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        tr.step(loss)          # after the update: loss of this step, parameters after it
    tr.close()

Each step line holds the loss as its binary32 bit pattern (plus %.9g decimal)
and the SHA-256 of the raw little-endian bytes of all parameters, in the order
model.parameters() yields them, each tensor row-major (spec §8.1). Two traces
are then compared by the suite's runner:

    isotrain-conform compare a.trace b.trace

Options:
  checkpoint_dir / checkpoint_steps  also write the raw parameter bytes of the
      given steps (an iterable of ints, or "all") as DIR/step-NNNNNN.bin
      (spec §9.3) - what `isotrain-conform repeat` hashes, and what
      divergence.py reads to measure the max-abs parameter gap per step.
  per_tensor=True  adds one key per parameter tensor after digest=, e.g.
      d_fc1_weight=<sha256 of that tensor's bytes>, so a first difference can be
      pinned to a tensor by reading the traces. Spec §9.2 says consumers ignore
      unknown keys; check that your runner does before turning it on.

Non-float32 parameters are hashed as their raw little-endian bytes in their own
dtype; a float64 loss is rounded to binary32 for the loss= field.

Standard library + torch + numpy; no other dependency.
"""

import hashlib
import math
import os
import re
import struct

import numpy as np


class IsotrainFailure(Exception):
    """A spec §10 failure: .name is nonfinite-loss or nonfinite-param, .step the step."""

    def __init__(self, name, step, detail=""):
        super().__init__("%s at step %d%s" % (name, step, (": " + detail) if detail else ""))
        self.name = name
        self.step = step


def _named_params(model):
    """[(name, tensor)] from a module, a list of tensors or a list of (name, tensor)."""
    if hasattr(model, "named_parameters"):
        return list(model.named_parameters())
    out = []
    for i, p in enumerate(model):
        if isinstance(p, tuple):
            out.append(p)
        else:
            out.append(("p%d" % i, p))
    return out


def tensor_le_bytes(t):
    """Raw little-endian bytes of a tensor, row-major (spec §8.1 for float32)."""
    a = t.detach().cpu().contiguous().numpy()
    return np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()


def params_le_bytes(model):
    return b"".join(tensor_le_bytes(p) for _, p in _named_params(model))


def loss_bits(loss):
    """binary32 bit pattern of a loss given as a tensor or a Python float."""
    if hasattr(loss, "detach"):
        loss = loss.detach().cpu().float().item()  # float32 -> Python float: exact
    return struct.unpack("<I", struct.pack("<f", loss))[0]


def _key(name):
    k = "d_" + re.sub(r"[^a-z0-9_]", "_", name.lower())
    return k


class IsotrainTrace:
    """Writes the header and the step-0 line at construction, one line per
    step() call after that (steps 1, 2, ...)."""

    def __init__(self, path, model, profile="custom", steps=0, checkpoint_dir=None,
                 checkpoint_steps=None, per_tensor=False, check_finite=True):
        if not re.fullmatch(r"[a-z0-9_]+", profile):
            raise ValueError("profile must match [a-z0-9_]+ (spec §9.2 header)")
        self.params = _named_params(model)
        self.per_tensor = per_tensor
        self.check_finite = check_finite
        self.checkpoint_dir = checkpoint_dir
        if checkpoint_steps == "all":
            self.ck_steps = None  # every step
        else:
            self.ck_steps = set(int(s) for s in (checkpoint_steps or ()))
        self.t = 0
        self.f = open(path, "w", newline="\n")
        self.f.write("# isotrain-trace v1 profile=%s steps=%d\n" % (profile, steps))
        self._write(None)

    def _wants_checkpoint(self, t):
        return self.checkpoint_dir is not None and (self.ck_steps is None or t in self.ck_steps)

    def _write(self, bits):
        chunks = [tensor_le_bytes(p) for _, p in self.params]
        if self.check_finite and self.t > 0:
            for (name, p), raw in zip(self.params, chunks):
                if p.is_floating_point():
                    a = np.frombuffer(raw, dtype=p.detach().cpu().numpy().dtype.newbyteorder("<"))
                    if not np.isfinite(a).all():
                        j = int(np.argmin(np.isfinite(a)))
                        raise IsotrainFailure("nonfinite-param", self.t, "%s[%d]" % (name, j))
        blob = b"".join(chunks)
        line = "step=%d" % self.t
        if bits is not None:
            value = struct.unpack("<f", struct.pack("<I", bits))[0]
            line += " loss=0x%08x loss_dec=%s" % (bits, "%.9g" % value)
        line += " digest=" + hashlib.sha256(blob).hexdigest()
        if self.per_tensor:
            for (name, _), raw in zip(self.params, chunks):
                line += " %s=%s" % (_key(name), hashlib.sha256(raw).hexdigest())
        self.f.write(line + "\n")
        self.f.flush()
        if self._wants_checkpoint(self.t):
            # written after the trace line, as the reference does (spec §9.3)
            with open(os.path.join(self.checkpoint_dir, "step-%06d.bin" % self.t), "wb") as ck:
                ck.write(blob)

    def step(self, loss):
        """Record one step: `loss` is the loss of this step's batch at the
        parameters before the update; call it after optimizer.step()."""
        self.t += 1
        bits = loss_bits(loss)
        if self.check_finite and not math.isfinite(struct.unpack("<f", struct.pack("<I", bits))[0]):
            raise IsotrainFailure("nonfinite-loss", self.t)
        self._write(bits)

    def close(self):
        if self.f:
            self.f.close()
            self.f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
