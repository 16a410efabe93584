#!/usr/bin/env python3
"""Negative control: isotrain.torch.functional.tanh switched back to
torch.tanh (mutant_torch_op.py says why)."""
import mutant_torch_op

if __name__ == "__main__":
    import torch
    mutant_torch_op.run("tanh", torch.tanh)
