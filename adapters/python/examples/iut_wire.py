"""The line protocol of spec/iut-protocol.md P3/P4, IUT side: reading request
lines within the 4 MiB cap, splitting them strictly, the readable id, and
the value encodings (hex arrays, ints, u64, names) in both directions.
The same rules as the reference's reference/cli/wire.c, in Python; standard
library and numpy only (no isotrain, no torch: protocol, not numbers).
"""

import re

import numpy as np

MAX_LINE = 4 * 1024 * 1024  # P3: bytes before the newline, both directions
MAX_ID = 256                # P3 (1.1.0)


class BadRequest(Exception):
    """A malformed request: answered id=<id> error=bad-request, reason on stderr."""


# ---- lines -----------------------------------------------------------------------

def read_line(f):
    """(status, bytes): status 'ok', 'eof', 'too-long' (the prefix kept, the rest
    of the line dropped) or 'unterminated' (a last line without \\n)."""
    line = f.readline(MAX_LINE + 1)
    if not line:
        return "eof", b""
    if line.endswith(b"\n"):
        return "ok", line[:-1]
    if len(line) <= MAX_LINE:
        return "unterminated", line
    while True:  # drop the rest so the next request starts clean
        rest = f.readline(1 << 20)
        if not rest or rest.endswith(b"\n"):
            break
    return "too-long", line


_ID = re.compile(rb"id=([^ =\x00-\x1f\x7f]{1,256})(?: |$)")


def leading_id(line):
    """P3's readable id of a line (bytes), or None."""
    m = _ID.match(line)
    return m.group(1) if m else None


# ---- tokens ----------------------------------------------------------------------

_KEY = re.compile(rb"[a-z][a-z0-9_]*")
_BAD_VALUE = re.compile(rb"[=\x00-\x1f\x7f]")


def split(line):
    """[(key, value)] of a request line (bytes), in line order; BadRequest otherwise."""
    if not line:
        raise BadRequest("empty line")
    if line.startswith(b" "):
        raise BadRequest("line starts with a space")
    if line.endswith(b" "):
        raise BadRequest("line ends with a space")
    out, seen = [], set()
    for i, tok in enumerate(line.split(b" "), 1):
        if not tok:
            raise BadRequest("two spaces in a row (tokens are separated by one space)")
        key, eq, val = tok.partition(b"=")
        if not eq:
            raise BadRequest("token %d (%r): no '=' (tokens are key=value)" % (i, tok[:40]))
        if not _KEY.fullmatch(key):
            raise BadRequest("token %d: key %r is not [a-z][a-z0-9_]*" % (i, key[:40]))
        m = _BAD_VALUE.search(val)
        if m:
            if val.endswith(b"\r"):
                raise BadRequest("key %r: line ends in \\r\\n; lines end in \\n alone" % key)
            raise BadRequest("key %r: value has byte %r at %d" % (key, m.group(0), m.start()))
        if key in seen:
            raise BadRequest("key %r appears twice" % key[:40])
        seen.add(key)
        out.append((key.decode(), val))
    return out


# ---- values (P4) -----------------------------------------------------------------

_HEX32S = re.compile(rb"[0-9a-fA-F]{8}(?:,[0-9a-fA-F]{8})*")
_INT = re.compile(rb"0|[1-9][0-9]*")
_NAME = re.compile(rb"[a-z0-9_]+")
_HEX64 = re.compile(rb"[0-9a-fA-F]{16}")


def u32s(key, v):
    """A P4 hex array -> uint32 numpy array."""
    if not v:
        raise BadRequest("input '%s': empty array (arrays have at least one element)" % key)
    if not _HEX32S.fullmatch(v):
        raise BadRequest("input '%s': not a comma-separated list of 8-hex-digit words" % key)
    return np.frombuffer(bytes.fromhex(v.replace(b",", b"").decode()), dtype=">u4").astype(np.uint32)


def f32s(key, v):
    """A P4 f32 array -> float32 numpy array (the bit patterns as given)."""
    return u32s(key, v).view(np.float32)


def integer(key, v, lo, hi):
    """A P4 int in [lo, hi]."""
    if not _INT.fullmatch(v):
        raise BadRequest("input '%s': %r is not an int (decimal digits, no sign, no leading zero)" % (key, v[:24]))
    if len(v) > 24:
        raise BadRequest("input '%s': %s... is too large (at most %d)" % (key, v[:24].decode(), hi))
    x = int(v)
    if not lo <= x <= hi:
        raise BadRequest("input '%s': %d is outside %d ... %d" % (key, x, lo, hi))
    return x


def integers(key, v, hi):
    """A P4 int array, each in [0, hi] -> list of ints."""
    if not v:
        raise BadRequest("input '%s': empty array (arrays have at least one element)" % key)
    return [integer("%s[%d]" % (key, k), e, 0, hi) for k, e in enumerate(v.split(b","))]


def u64(key, v):
    if not _HEX64.fullmatch(v):
        raise BadRequest("input '%s': a u64 is exactly 16 hex digits" % key)
    return int(v, 16)


def name(key, v):
    if not _NAME.fullmatch(v):
        raise BadRequest("input '%s': %r is not a name ([a-z0-9_]+)" % (key, v[:40]))
    return v.decode()


def put_u32s(a):
    """uint32 array -> P4 lowercase hex array (bytes)."""
    a = np.ascontiguousarray(a, dtype=">u4")
    n = a.size
    digits = np.frombuffer(a.tobytes().hex().encode(), dtype="S1").reshape(n, 8)
    out = np.empty((n, 9), dtype="S1")
    out[:, :8] = digits
    out[:, 8] = b","
    return out.tobytes()[:-1]


def put_f32s(a):
    return put_u32s(np.ascontiguousarray(a, dtype=np.float32).view(np.uint32))


def put_ints(xs):
    return b",".join(b"%d" % x for x in xs)
