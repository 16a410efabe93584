"""Negative controls for the runner (make test-pytorch-conforming): the IUT of
examples/iut.py with one isotrain.torch function switched back to the torch
op. The package has no switch for this; the mutants live here:

  mutant_f_linear.py   isotrain.torch.functional.linear = torch.nn.functional.linear
  mutant_torch_tanh.py isotrain.torch.functional.tanh = torch.tanh

Every use of the function (the models' modules and the ops verb alike) then
runs torch's kernel, so the runner sees what a user who forgot to convert
one layer would ship.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))


def run(name, torch_op):
    import isotrain.torch.functional as itF
    setattr(itF, name, torch_op)
    import iut
    iut.main(sys.argv)
