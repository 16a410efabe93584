#!/usr/bin/env python3
"""Load an `isotrain export` file into the PyTorch mlp13k model of iut.py.

    python3 load_export.py CHECKPOINT.npz|CHECKPOINT.safetensors

The export's tensor names are the spec's (§11.2); this maps them onto the
nn.Module's state_dict keys. The values are the checkpoint's bytes exactly:
every parameter of the loaded model hashes like the checkpoint file.
"""
import hashlib
import json
import os
import struct
import sys

import numpy as np

SPEC_TO_TORCH = {"embed": "embed.weight", "w1": "fc1.weight", "b1": "fc1.bias",
                 "w2": "fc2.weight", "b2": "fc2.bias"}


def read_export(path):
    """name -> float32 ndarray, from an .npz or a .safetensors export."""
    if path.endswith(".npz"):
        with np.load(path) as f:
            return {k: f[k] for k in f.files}
    # safetensors without the package (not in Debian 12): u64 LE header
    # length, JSON header, then the data the offsets point into
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    data = raw[8 + n:]
    return {k: np.frombuffer(data[t["data_offsets"][0]:t["data_offsets"][1]], "<f4").reshape(t["shape"])
            for k, t in header.items()}


def load_into(model, path):
    import torch
    tensors = read_export(path)
    model.load_state_dict({SPEC_TO_TORCH[k]: torch.from_numpy(np.array(v)) for k, v in tensors.items()})
    return model


def main():
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from iut import build_model
    model = load_into(build_model(torch), sys.argv[1])
    raw = b"".join(p.detach().numpy().astype("<f4").tobytes() for p in model.parameters())
    print("loaded %s: %d parameters, sha256 %s" % (sys.argv[1], len(raw) // 4, hashlib.sha256(raw).hexdigest()))


if __name__ == "__main__":
    main()
