#!/usr/bin/env python3
"""A minimal isotrain implementation under test, standard library only.

It speaks spec/iut-protocol.md: `hello` (P2) and the `ops` line protocol
(P3-P6) for a few op groups -- enough to show how little a trainer in another
language needs. Every other op is answered `error=unsupported`, which the
runner reports as SKIPPED (never as passed). It is an example to copy, not a
conforming trainer: it has no `train` verb.

binary32 arithmetic: each +, -, *, / is done in binary64 and rounded once to
binary32. That is exactly the binary32 result, because binary64 carries more
than 2*24+2 significand bits (double rounding is innocuous then).
"""
import ctypes
import struct
import sys

MASK32 = 0xFFFFFFFF


def f32(x):
    """Round a binary64 value to binary32 (RNE, overflow to inf, as a C cast)."""
    return ctypes.c_float(x).value


def from_bits(u):
    return struct.unpack("<f", struct.pack("<I", u))[0]


def to_bits(f):
    return struct.unpack("<I", struct.pack("<f", f))[0]


def hex32s(value):
    return [int(h, 16) for h in value.split(",")]


def floats(value):
    return [from_bits(u) for u in hex32s(value)]


def put_floats(xs):
    return ",".join("%08x" % to_bits(x) for x in xs)


def put_u32s(us):
    return ",".join("%08x" % u for u in us)


# ---- spec §4.2, §5.2, §5.6, §7.1 --------------------------------------------

def dot(a, b):
    acc = 0.0  # +0, then each product rounded before it is added
    for x, y in zip(a, b):
        acc = f32(acc + f32(x * y))
    return acc


def op_dot(kv):
    return {"y": put_floats([dot(floats(kv["a"]), floats(kv["b"]))])}


def op_linear_forward(kv):
    n_in, n_out = int(kv["in"]), int(kv["out"])
    w, b, x = floats(kv["w"]), floats(kv["b"]), floats(kv["x"])
    y = [f32(dot(w[o * n_in:(o + 1) * n_in], x) + b[o]) for o in range(n_out)]
    return {"y": put_floats(y)}


def op_tanh_backward(kv):
    y, dy = floats(kv["y"]), floats(kv["dy"])
    return {"dx": put_floats([f32(g * f32(1.0 - f32(v * v))) for v, g in zip(y, dy)])}


def op_sgd(kv):
    p, g, lr = floats(kv["p"]), floats(kv["g"]), floats(kv["lr"])[0]
    return {"p": put_floats([f32(v - f32(lr * d)) for v, d in zip(p, g)])}


# ---- spec §6: Philox4x32-10 and the conversions --------------------------------

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85


def philox(ctr, key):
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for _ in range(10):
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0, p1 & MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & MASK32)
        k0, k1 = (k0 + W0) & MASK32, (k1 + W1) & MASK32
    return [c0, c1, c2, c3]


def rng_u32(seed, stream, index):
    block = index >> 2
    out = philox([block & MASK32, block >> 32, stream, 0], [seed & MASK32, seed >> 32])
    return out[index & 3]


def op_philox(kv):
    return {"out": put_u32s(philox(hex32s(kv["ctr"]), hex32s(kv["key"])))}


def op_rng_u32(kv):
    seed, index = int(kv["seed"], 16), int(kv["index"], 16)
    stream, count = int(kv["stream"]), int(kv["count"])
    return {"r": put_u32s([rng_u32(seed, stream, index + i) for i in range(count)])}


def op_u32_to_symmetric(kv):
    return {"y": put_floats([f32(float((r >> 8) - 0x800000) * 2.0 ** -23) for r in hex32s(kv["r"])])}


def op_u32_below(kv):
    n = int(kv["n"])
    return {"k": put_u32s([(r * n) >> 32 for r in hex32s(kv["r"])])}


OPS = {
    "dot": op_dot,
    "linear_forward": op_linear_forward,
    "tanh_backward": op_tanh_backward,
    "sgd": op_sgd,
    "philox": op_philox,
    "rng_u32": op_rng_u32,
    "u32_to_symmetric": op_u32_to_symmetric,
    "u32_below": op_u32_below,
}


def serve(stdin, stdout):
    for line in stdin:
        if not line.endswith("\n"):
            stdout.write("id=? error=bad-request\n")
            stdout.flush()
            break
        tokens = line[:-1].split(" ")
        try:
            kv = dict(t.split("=", 1) for t in tokens)
        except ValueError:
            kv = {}
        case = kv.get("id", "?")
        handler = OPS.get(kv.get("op", ""))
        if handler is None:
            reply = "id=%s error=unsupported" % case
        else:
            try:
                reply = "id=%s " % case + " ".join("%s=%s" % kv2 for kv2 in handler(kv).items())
            except (KeyError, ValueError, IndexError) as e:
                sys.stderr.write("bad request %s: %r\n" % (case, e))
                reply = "id=%s error=bad-request" % case
        stdout.write(reply + "\n")
        stdout.flush()


def main(argv):
    verb = argv[1] if len(argv) > 1 else ""
    if verb == "hello":
        print("protocol=1 name=python-minimal version=1.0.0 spec=1.0.0")
        return 0
    if verb == "ops":
        serve(sys.stdin, sys.stdout)
        return 0
    sys.stderr.write("unsupported verb '%s'\n" % verb)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
