"""isotrain for Python. The subpackage isotrain.torch makes PyTorch training
bit-reproducible on every CPU and instruction set by computing every layer,
loss and optimizer step with the isotrain reference library (spec/).
"""
