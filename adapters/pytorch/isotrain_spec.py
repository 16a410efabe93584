"""The parts of the isotrain spec that a PyTorch mlp13k run needs from outside
PyTorch: Philox4x32-10 (spec §6.1), its (seed, stream, index) addressing
(§6.2), the word-to-float and word-to-integer conversions (§6.3, §6.4), the
mlp13k corpus (§11.3), initial values (§11.4) and batches (§11.5), and the
checkpoint bytes and digest (§8).

Standard library only (plus numpy for the float32 products of §11.4), so that
the values can be checked against the spec's printed vectors without PyTorch:
`python3 adapters/pytorch/isotrain_spec.py` runs those checks.

Nothing here trains anything; iut.py builds the PyTorch model from these values.
"""

import hashlib
import os
import struct
import sys

import numpy as np

MASK32 = 0xFFFFFFFF

# §6.1 constants
PHILOX_M0 = 0xD2511F53
PHILOX_M1 = 0xCD9E8D57
PHILOX_W0 = 0x9E3779B9
PHILOX_W1 = 0xBB67AE85

# §11.1 constants
MLP13K_SEED = 0x69736F747261696E          # "isotrain", read big-endian
MLP13K_BATCH = 64
MLP13K_STEPS = 200
MLP13K_LR_BITS = 0x3F000000               # 0.5
MLP13K_CORPUS_SHA256 = "4bd2baad0e4cf08880f89dee1e1216de2ed36c570a6ee6e29efc0cd9001dbb9c"
MLP13K_SAMPLING_STREAM = 5

# §11.2: (name, rows, cols, init stream or None, init scale bits or None)
MLP13K_TENSORS = (
    ("embed", 256, 16, 0, 0x3F800000),
    ("w1", 32, 16, 1, 0x3E800000),
    ("b1", 32, 1, None, None),
    ("w2", 256, 32, 3, 0x3E3504F3),
    ("b2", 256, 1, None, None),
)
MLP13K_PARAMS = 13088


def f32_from_bits(u):
    return struct.unpack("<f", struct.pack("<I", u & MASK32))[0]


def bits_from_f32(x):
    """Bit pattern of a binary32 value given as a Python float (exact when x
    already is a binary32 value, as torch's float32 .item() results are)."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


# ---- §6.1 Philox4x32-10 -------------------------------------------------------

def philox4x32_10(ctr, key):
    """Ten rounds of Philox4x32 on counter (c0, c1, c2, c3) with key (k0, k1)."""
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for _ in range(10):
        p0 = PHILOX_M0 * c0          # exact 64-bit products (Python ints)
        p1 = PHILOX_M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0, p1 & MASK32,
                          (p0 >> 32) ^ c3 ^ k1, p0 & MASK32)
        k0 = (k0 + PHILOX_W0) & MASK32
        k1 = (k1 + PHILOX_W1) & MASK32
    return (c0, c1, c2, c3)


# ---- §6.2 addressing --------------------------------------------------------------

def rng_words(seed, stream, index, count):
    """Words index, index+1, ..., index+count-1 of (seed, stream)."""
    key = (seed & MASK32, (seed >> 32) & MASK32)
    out = []
    block_cache = None
    for i in range(index, index + count):
        block = i >> 2
        if block_cache is None or block_cache[0] != block:
            ctr = (block & MASK32, (block >> 32) & MASK32, stream & MASK32, 0)
            block_cache = (block, philox4x32_10(ctr, key))
        out.append(block_cache[1][i & 3])
    return out


# ---- §6.3, §6.4 conversions -----------------------------------------------------

def u_symmetric(words):
    """u(r) of §6.3 for an array of u32 words, as numpy float32 (exact)."""
    r = np.asarray(words, dtype=np.uint64)
    k = (r >> np.uint64(8)).astype(np.int64) - (1 << 23)
    return k.astype(np.float32) * np.float32(2.0 ** -23)


def below(r, n):
    """below(r, n) of §6.4: floor(r * n / 2^32), exactly."""
    return (r * n) >> 32


# ---- §11.3 corpus ----------------------------------------------------------------

def corpus_path():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get("ISOTRAIN_CORPUS",
                          os.path.join(here, "..", "..", "spec", "corpus", "mlp13k.txt"))


def load_corpus(path=None):
    """The corpus bytes; raises ValueError when the SHA-256 is not §11.3's."""
    with open(path or corpus_path(), "rb") as f:
        data = f.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != MLP13K_CORPUS_SHA256:
        raise ValueError("corpus %s has SHA-256 %s, spec §11.3 says %s (line endings rewritten?)"
                         % (path or corpus_path(), digest, MLP13K_CORPUS_SHA256))
    return data


# ---- §11.4 initialization -------------------------------------------------------

def mlp13k_init():
    """{name: float32 array of shape (rows, cols) or (rows,)} in §11.2 order."""
    out = {}
    for name, rows, cols, stream, scale in MLP13K_TENSORS:
        n = rows * cols
        if stream is None:
            v = np.zeros(n, dtype=np.float32)                       # +0
        else:
            u = u_symmetric(rng_words(MLP13K_SEED, stream, 0, n))
            v = u * np.float32(f32_from_bits(scale))                 # one binary32 product
        out[name] = v.reshape((rows, cols) if cols > 1 else (rows,))
    return out


# ---- §11.5 sampling --------------------------------------------------------------

def mlp13k_batch(step, corpus, batch=MLP13K_BATCH):
    """(x, y): the input and target bytes of the positions of step >= 1."""
    n = len(corpus)
    words = rng_words(MLP13K_SEED, MLP13K_SAMPLING_STREAM, (step - 1) * batch, batch)
    offs = [below(r, n - 1) for r in words]
    return [corpus[o] for o in offs], [corpus[o + 1] for o in offs]


# ---- §8 checkpoint bytes -----------------------------------------------------------

def checkpoint_bytes(arrays):
    """Concatenated little-endian binary32 bytes of arrays (row-major)."""
    return b"".join(np.ascontiguousarray(a, dtype="<f4").tobytes() for a in arrays)


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


# ---- self-check against the spec's printed vectors --------------------------------

def _hex_words(s):
    return [int(w, 16) for w in s.split()]


def self_check(verbose=True):
    """Checks every §6 and §11.4/§11.5 vector this module reproduces; returns
    a list of failure messages (empty = all good)."""
    bad = []

    def check(what, got, want):
        ok = got == want
        if verbose:
            print("%-4s %s" % ("ok" if ok else "FAIL", what))
        if not ok:
            bad.append("%s: got %r, want %r" % (what, got, want))

    kat = [  # §6.1 (Random123 kat_vectors)
        ("00000000 00000000 00000000 00000000", "00000000 00000000", "6627e8d5 e169c58d bc57ac4c 9b00dbd8"),
        ("ffffffff ffffffff ffffffff ffffffff", "ffffffff ffffffff", "408f276d 41c83b0e a20bc7c6 6d5451fd"),
        ("243f6a88 85a308d3 13198a2e 03707344", "a4093822 299f31d0", "d16cfe09 94fdcceb 5001e420 24126ea1"),
    ]
    for ctr, key, want in kat:
        check("§6.1 philox(%s; %s)" % (ctr, key),
              list(philox4x32_10(tuple(_hex_words(ctr)), tuple(_hex_words(key)))), _hex_words(want))

    s = MLP13K_SEED
    check("§6.2 stream 0 words 0..7", rng_words(s, 0, 0, 8),
          _hex_words("cdbd248c 10b333e9 f73ac66e 82fd0164 d4953bc9 d6378ede 257e9f68 0c94a720"))
    check("§6.2 stream 1 words 0..3", rng_words(s, 1, 0, 4), _hex_words("d4358c64 156e8937 55a41d63 93fb6d93"))
    check("§6.2 stream 3 words 0..3", rng_words(s, 3, 0, 4), _hex_words("b236f41c e2cb5912 abbaad01 236298d7"))
    check("§6.2 stream 5 words 0..3", rng_words(s, 5, 0, 4), _hex_words("dc9c4c89 a39f5de8 a05ce679 1e04b1be"))
    check("§6.2 stream 5 word 2^34+1", rng_words(s, 5, (1 << 34) + 1, 1), [0x5C443741])

    conv = [(0x00000000, 0xBF800000), (0x000000FF, 0xBF800000), (0x00000100, 0xBF7FFFFE),
            (0x40000000, 0xBF000000), (0x7FFFFF00, 0xB4000000), (0x80000000, 0x00000000),
            (0xC0000000, 0x3F000000), (0xFFFFFFFF, 0x3F7FFFFE)]
    got = u_symmetric([r for r, _ in conv]).view(np.uint32).tolist()
    check("§6.3 u(r) for 8 words", got, [w for _, w in conv])
    check("§6.4 below(r, 2623)", [below(r, 2623) for r in (0, 0x12345678, 0x80000000, 0xFFFFFFFF)],
          [0, 186, 1311, 2622])

    init = mlp13k_init()
    want = {
        "embed": ("3f1b7a48 bf5e999a 3f6e758c 3cbf4040", 0xBF6FFC04,
                  "640f54229b3f93c9f9ce6602b6c1a110c61c8251547de06232c01a71aec74995"),
        "w1": ("3e286b18 be5522ee bda96f8c 3d1fdb68", 0xBD07DBF8,
               "22351c2153763a4d2295d082e0e2c79efbbdfc6c9e3ea897d14c5ccc9bcfb015"),
        "b1": ("00000000 00000000 00000000 00000000", 0,
               "38723a2e5e8a17aa7950dc008209944e898f69a7bd10a23c839d341e935fd5ca"),
        "w2": ("3d8e074c 3e0bb75e 3d775ea6 be02fa2a", 0x3D8557FA,
               "59b799b361970f2aabbd793ffea8f84d5a20fb37ba63c3b373ad25acf477257b"),
        "b2": ("00000000 00000000 00000000 00000000", 0,
               "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef"),
    }
    for name, (first4, last, digest) in want.items():
        flat = init[name].reshape(-1).view(np.uint32)
        check("§11.4 %s elements 0..3, last" % name, (flat[:4].tolist(), int(flat[-1])),
              (_hex_words(first4), last))
        check("§11.4 %s sha256" % name, sha256_hex(checkpoint_bytes([init[name]])), digest)
    check("§11.4 step-0 checkpoint digest", sha256_hex(checkpoint_bytes(init.values())),
          "05a8aa50bacb79781ff5a30c4d167dacd992201238083eb70e3ed5528ffa3fd6")

    try:
        corpus = load_corpus()
    except (OSError, ValueError) as e:
        bad.append("§11.3 corpus: %s" % e)
        return bad
    check("§11.3 corpus length", len(corpus), 2624)
    x, y = mlp13k_batch(1, corpus)
    check("§11.5 step 1 positions 0..5",
          list(zip(x[:6], y[:6])),
          [(0x6E, 0x64), (0x6C, 0x69), (0x63, 0x6C), (0x65, 0x20), (0x65, 0x0A), (0x72, 0x74)])
    xy = bytes(b for pair in zip(x, y) for b in pair)
    check("§11.5 step 1 batch sha256", sha256_hex(xy),
          "5106eaa7bd5546d7c97cef2927707697e7ef75ec23793590c31457eff43b9bcf")
    x2, y2 = mlp13k_batch(2, corpus)
    check("§11.5 step 2 position 0", (x2[0], y2[0]), (0x74, 0x20))
    return bad


if __name__ == "__main__":
    failures = self_check()
    if failures:
        print("isotrain_spec: %d check(s) FAILED" % len(failures), file=sys.stderr)
        for f in failures:
            print("  " + f, file=sys.stderr)
        sys.exit(1)
    print("isotrain_spec: all spec vectors reproduced")
