"""isotrain.torch.recipe: a recipe of the GPT family (spec §16.1-§16.3),
read and checked by the library's own reader (`it_gpt_recipe_load`,
isotrain_gpt.h), so a PyTorch trainer refuses exactly the documents the
reference refuses, with the same message naming the file and the field,
and takes the size-dependent constants of §16.3 (the attention scale c, the
init bounds b_D and b_F, two roundings each) as the library rounds them:
none of them is recomputed here in binary64, where 1/sqrt(n) rounded once
differs by one ulp for 608 of the n up to 2048 (§16.3).

    r = isotrain.torch.recipe.load("spec/recipes/tiny.json")
    r.d_model, r.heads, r.attn_scale, r.tokens, r.lr_max, ...
"""

import ctypes

import numpy as np

from ._lib import check_layout, lib, U32, U64, Z
from .random import from_bits

__all__ = ["Recipe", "RecipeError", "load"]

ERR_CAP = 512


class RecipeError(ValueError):
    """The document is not a recipe of spec §16.1-§16.2 (the reader's message)."""


class _Shape(ctypes.Structure):
    """it_gpt_shape"""
    _fields_ = [(n, U32) for n in ("blocks", "d_model", "heads", "mlp", "context", "batch", "vocab")]


class _Derived(ctypes.Structure):
    """it_gpt_derived (§16.3)"""
    _fields_ = [(n, U32) for n in ("head_width", "rows", "attn_scale_bits", "loss_scale_bits", "init_wte_bits",
                                   "init_wpe_bits", "init_d_bits", "init_f_bits")] + \
               [("boff", Z * 16)] + [(n, Z) for n in ("ntensors", "block_len", "off_h0", "off_lnf_w", "nparams")]


class _Recipe(ctypes.Structure):
    """it_gpt_recipe (§16.1)"""
    _fields_ = [("name", ctypes.c_char * 33), ("shape", _Shape), ("d", _Derived)] + \
               [(n, U32) for n in ("steps", "warmup", "schedule_length", "lr_bits", "beta1_bits", "beta2_bits",
                                   "eps_bits", "wd_bits", "clip_bits")] + \
               [("seed", U64), ("sampling_stream", U32), ("checkpoint_steps", ctypes.POINTER(U32)),
                ("n_checkpoint_steps", Z), ("corpus", ctypes.POINTER(ctypes.c_ubyte)), ("corpus_len", Z),
                ("corpus_sha256", ctypes.c_ubyte * 32), ("vocab_bytes", ctypes.c_ubyte * 256),
                ("token_of", ctypes.c_int * 256), ("sha256", ctypes.c_ubyte * 32)]


check_layout({"it_gpt_shape": _Shape, "it_gpt_derived": _Derived, "it_gpt_recipe": _Recipe})

lib.it_gpt_recipe_load.restype = ctypes.c_int
lib.it_gpt_recipe_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(_Recipe), ctypes.c_char_p, Z]
lib.it_gpt_recipe_free.restype = None
lib.it_gpt_recipe_free.argtypes = [ctypes.POINTER(_Recipe)]


class Recipe:
    """A checked recipe: its sizes, schedule and constants (binary32 values
    as exact Python floats, their bits kept beside them), the corpus as
    tokens (§16.2: token v is the v-th distinct byte, ascending)."""

    def __init__(self, path, c):
        self.path, self.name = path, c.name.decode()
        for k, _ in _Shape._fields_:
            setattr(self, k, int(getattr(c.shape, k)))
        self.head_width, self.rows, self.nparams = int(c.d.head_width), int(c.d.rows), int(c.d.nparams)
        self.bits = {k: int(getattr(c.d, k + "_bits")) for k in ("attn_scale", "loss_scale", "init_wte", "init_wpe",
                                                                   "init_d", "init_f")}
        self.bits.update({k: int(getattr(c, k + "_bits")) for k in ("lr", "beta1", "beta2", "eps", "wd", "clip")})
        self.steps, self.warmup, self.schedule_length = int(c.steps), int(c.warmup), int(c.schedule_length)
        self.seed, self.sampling_stream = int(c.seed), int(c.sampling_stream)
        self.checkpoint_steps = [int(c.checkpoint_steps[i]) for i in range(c.n_checkpoint_steps)]
        corpus = np.ctypeslib.as_array(c.corpus, shape=(c.corpus_len,)).copy()
        token_of = np.array(c.token_of[:], dtype=np.int64)
        self.tokens = token_of[corpus]

    def value(self, key):
        """A binary32 constant of the recipe or of §16.3 as a Python float (exact)."""
        return from_bits(self.bits[key])


def load(path):
    """The recipe at path, or RecipeError with the reader's "PATH: FIELD: what was expected"."""
    c = _Recipe()
    err = ctypes.create_string_buffer(ERR_CAP)
    if lib.it_gpt_recipe_load(path.encode(), ctypes.byref(c), err, ERR_CAP) != 0:
        raise RecipeError(err.value.decode(errors="replace"))
    try:
        return Recipe(path, c)
    finally:
        lib.it_gpt_recipe_free(ctypes.byref(c))
