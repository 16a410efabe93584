"""isotrain.torch.init: parameter initialization as the spec does it
(§11.4, §13.4): element i of a tensor, in row-major order, is
u(word(seed, stream, i)) ⊗ bound (spec §6.2, §6.3: uniform on [-bound,
bound)), one stream per tensor, so a tensor's values do not depend on the
others' sizes and are the same bytes on every host. Biases are +0
(zeros_, torch.nn.init.zeros_ does the same: a fill).
"""

import numpy as np
import torch

from . import random as _random
from ._check import f32
from ._lib import lib

__all__ = ["philox_uniform_", "zeros_"]

_MIN_BOUND = 2.0 ** -100


def philox_uniform_(tensor, seed, stream, bound):
    """Fills tensor (float32, contiguous) in place with u(word(seed, stream,
    i)) ⊗ bound and returns it. bound is rounded to binary32 once (pass
    isotrain.torch.random.from_bits(...) to give its bits). The product is
    the library's (a one-term SUM +0 ⊕ u ⊗ bound: the product itself, which
    is never -0 for the bounds allowed here, 2^-100 <= bound)."""
    fn = "isotrain.torch.init.philox_uniform_"
    f32(tensor, "tensor", fn)
    c = np.array([bound], dtype=np.float32)
    if not _MIN_BOUND <= float(c[0]) < float("inf"):
        raise ValueError("%s: bound %r outside [2^-100, inf) (a smaller bound could underflow the products)"
                         % (fn, bound))
    n = tensor.numel()
    u = _random.u32_to_symmetric(_random.words(seed, stream, 0, n))
    with torch.no_grad():
        if lib.it_rows_linear_forward(n, 1, 1, u.ctypes.data, 1, c.ctypes.data, None, tensor.data_ptr(), 1, 1) != 0:
            raise RuntimeError("%s: the library refused the product" % fn)
    return tensor


def zeros_(tensor):
    """+0 everywhere (spec §11.4's biases)."""
    with torch.no_grad():
        return tensor.zero_()
