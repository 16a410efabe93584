"""isotrain.torch: PyTorch training whose every number comes from the isotrain
reference library, so the same script gives the same checkpoint bytes on
x86_64, aarch64, s390x and ppc64le, with any kernel set, BLAS or thread count.

    import isotrain.torch as it
    model = it.convert(MyModel())                 # torch.nn modules -> conforming ones, in place
    loss_fn = it.nn.CrossEntropyLoss()
    opt = it.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1.0)
    for x, y in data:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

Modules: functional (autograd functions: linear, embedding, tanh, relu,
cross_entropy, add, attention, residual_self_attention), nn (Linear,
Embedding, Tanh, ReLU, CrossEntropyLoss, Residual, ResidualSelfAttention),
optim (SGD, AdamW), init (philox_uniform_, zeros_), random (spec §6),
leak (the dispatch trace that proves no aten arithmetic ran), convert, conform,
checkpoint (the §8 bytes and digest, the examples' command line).
Everything is float32, contiguous, CPU; anything else is an error naming the
tensor. adapters/python/README.md has the details.
"""

from . import _lib
from . import checkpoint, functional, init, leak, lr_scheduler, nn, optim, random  # noqa: F401
from .clip import clip_flat_, clip_grad_norm_  # noqa: F401
from .convert import UnsupportedModuleError, convert  # noqa: F401
from .conform import ConformError, conform  # noqa: F401

__version__ = "0.1.0"
# 1.3.0: the GPT family (spec §16) through examples/gptfamily.py, `iut.py
# train --recipe`: a recipe set (1.3.0) calls a 1.2.0 claim PARTIAL and
# never certifies it (test_recipe.py)
SPEC_VERSION = "1.3.0"


def kernels():
    """The library's kernel set in use (ISOTRAIN_KERNELS chooses; all give the same bits)."""
    return _lib.kernels()


def library_path():
    return _lib.path


def fpenv_problem():
    """spec §2.2 in this thread: None, or what is wrong (FTZ, DAZ, rounding)."""
    return _lib.fpenv_ok()
