#!/usr/bin/env python3
"""Negative control: isotrain.torch.functional.linear switched back to
torch.nn.functional.linear (mutant_torch_op.py says why)."""
import mutant_torch_op

if __name__ == "__main__":
    import torch
    mutant_torch_op.run("linear", torch.nn.functional.linear)
