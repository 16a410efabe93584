#!/usr/bin/env python3
"""Usage: ci/check-export.py ISOTRAIN WORKDIR ['OTHER ISOTRAIN COMMAND']

`isotrain export` read back by other readers (make check-export): numpy
(np.load) for .npy and .npz, Python's zipfile for the archive's CRCs, and
for safetensors the format's own layout checked field by field (the
`safetensors` package is not in Debian 12; when it is importable it loads
the file too). Every tensor must come back with the profile's name, shape,
dtype float32 and exactly the checkpoint's bytes. Bad inputs must be refused
with their exit codes, and the comparison itself must fire on a planted
one-byte difference (so this check can fail). With a third argument (e.g.
'qemu-s390x build/cross/s390x/isotrain', a big-endian host) that command
must export the same checkpoint to the same bytes in every format."""
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import zipfile

import numpy as np

# spec §11.2: checkpoint order, row-major
TENSORS = [("embed", (256, 16)), ("w1", (32, 16)), ("b1", (32,)), ("w2", (256, 32)), ("b2", (256,))]
NPARAMS = sum(int(np.prod(s)) for _, s in TENSORS)

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def same_tensors(arrays, ckpt):
    """None when arrays (name -> ndarray) are exactly the checkpoint, else why not."""
    if list(arrays) != [n for n, _ in TENSORS] and sorted(arrays) != sorted(n for n, _ in TENSORS):
        return "names %s" % sorted(arrays)
    off = 0
    for name, shape in TENSORS:
        a = arrays[name]
        if a.dtype != np.dtype("<f4") or a.shape != shape:
            return "%s: dtype %s shape %s" % (name, a.dtype, a.shape)
        n = 4 * int(np.prod(shape))
        if a.astype("<f4").tobytes() != ckpt[off:off + n]:
            return "%s: bytes differ from the checkpoint's" % name
        off += n
    return None


def read_safetensors(path):
    """The format by hand: u64 LE header length, a JSON object, then the
    data; offsets relative to the data, contiguous from 0 to its end."""
    raw = open(path, "rb").read()
    (hlen,) = struct.unpack("<Q", raw[:8])
    header = raw[8:8 + hlen]
    data = raw[8 + hlen:]
    assert header[:1] == b"{", "header does not start with '{'"
    assert (8 + hlen) % 8 == 0, "data not 8-byte aligned"
    meta = json.loads(header.decode("utf-8"))
    md = meta.pop("__metadata__", {})
    arrays, spans = {}, []
    for name, t in meta.items():
        b, e = t["data_offsets"]
        assert t["dtype"] == "F32", name
        assert e - b == 4 * int(np.prod(t["shape"])), name
        spans.append((b, e))
        arrays[name] = np.frombuffer(data[b:e], dtype="<f4").reshape(t["shape"])
    spans.sort()
    pos = 0
    for b, e in spans:
        assert b == pos, "offsets not contiguous at %d" % b
        pos = e
    assert pos == len(data), "data is %d bytes, offsets end at %d" % (len(data), pos)
    return arrays, md


def main():
    cli, work = os.path.abspath(sys.argv[1]), sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rc, out = run([cli, "train", "--profile", "mlp13k", "--steps", "3", "--trace", os.path.join(work, "t"),
                   "--checkpoint-dir", work, "--checkpoint-steps", "3"])
    check(rc == 0, "train 3 steps (exit %d) %s" % (rc, out.strip()))
    ck_path = os.path.join(work, "step-000003.bin")
    ckpt = open(ck_path, "rb").read()
    check(len(ckpt) == 4 * NPARAMS, "checkpoint is %d bytes" % len(ckpt))

    npy_dir, npz, st = (os.path.join(work, x) for x in ("npy/sub", "ck.npz", "ck.safetensors"))
    for fmt, dst in (("npy", npy_dir), ("npz", npz), ("safetensors", st)):
        rc, out = run([cli, "export", "--profile", "mlp13k", "--format", fmt, "--out", dst, ck_path])
        check(rc == 0, "export --format %s (exit %d) %s" % (fmt, rc, out.strip()))

    arrays = {n: np.load(os.path.join(npy_dir, n + ".npy")) for n, _ in TENSORS}
    why = same_tensors(arrays, ckpt)
    check(why is None, "npy: np.load gives every tensor, shape and byte%s" % (": " + why if why else ""))
    for n, _ in TENSORS:
        raw = open(os.path.join(npy_dir, n + ".npy"), "rb").read()
        (hlen,) = struct.unpack("<H", raw[8:10])
        check((10 + hlen) % 64 == 0 and raw[9 + hlen:10 + hlen] == b"\n",
              "npy %s: header ends with a newline on a 64-byte boundary" % n)

    with zipfile.ZipFile(npz) as z:
        check(z.testzip() is None, "npz: every member's CRC-32 verifies (zipfile.testzip)")
        check([i.compress_type for i in z.infolist()] == [zipfile.ZIP_STORED] * 5, "npz: members are stored")
    with np.load(npz) as f:
        why = same_tensors({k: f[k] for k in f.files}, ckpt)
    check(why is None, "npz: np.load gives every tensor, shape and byte%s" % (": " + why if why else ""))

    try:
        arrays, md = read_safetensors(st)
        why = same_tensors(arrays, ckpt)
    except Exception as e:  # a malformed file is this check's failure, not a crash
        arrays, md, why = {}, {}, "unreadable: %s" % e
    check(why is None, "safetensors: header, offsets, dtype, shapes and bytes%s" % (": " + why if why else ""))
    check(md.get("checkpoint_sha256") == hashlib.sha256(ckpt).hexdigest() and md.get("profile") == "mlp13k",
          "safetensors: metadata names the profile and the checkpoint's SHA-256")
    try:
        from safetensors.numpy import load_file
    except ImportError:
        print("note: the safetensors package is not installed; its layout was checked by hand above")
    else:
        why = same_tensors(load_file(st), ckpt)
        check(why is None, "safetensors: safetensors.numpy.load_file%s" % (": " + why if why else ""))

    # the same checkpoint exports to the same bytes (no timestamps, no host data)
    again = os.path.join(work, "again.npz")
    run([cli, "export", "--profile", "mlp13k", "--format", "npz", "--out", again, ck_path])
    check(open(again, "rb").read() == open(npz, "rb").read(), "npz: a second export is byte-identical")

    if len(sys.argv) > 3:
        other = sys.argv[3].split()
        for fmt, mine in (("npz", npz), ("safetensors", st)):
            theirs = os.path.join(work, "other." + fmt)
            rc, out = run(other + ["export", "--profile", "mlp13k", "--format", fmt, "--out", theirs, ck_path])
            same = rc == 0 and open(theirs, "rb").read() == open(mine, "rb").read()
            check(same, "%s: '%s' exports the same bytes (exit %d) %s" % (fmt, sys.argv[3], rc, out.strip()))

    # the second profile: eleven tensors, names and shapes from its table
    am_dir = os.path.join(work, "am")
    rc, out = run([cli, "train", "--profile", "addmod113", "--steps", "1", "--trace", os.path.join(work, "am.t"),
                   "--checkpoint-dir", am_dir, "--checkpoint-steps", "1"])
    am_ck = open(os.path.join(am_dir, "step-000001.bin"), "rb").read() if rc == 0 else b""
    rc, out = run([cli, "export", "--profile", "addmod113", "--format", "npz", "--out", os.path.join(work, "am.npz"),
                   os.path.join(am_dir, "step-000001.bin")])
    ok = rc == 0
    if ok:
        with np.load(os.path.join(work, "am.npz")) as f:
            names = [n[:-4] for n in zipfile.ZipFile(os.path.join(work, "am.npz")).namelist()]
            joined = b"".join(f[n].astype("<f4").tobytes() for n in names)
            shapes = [f[n].shape for n in names]
        ok = (names[:3] == ["w_e", "w_pos", "w_q"] and names[-1] == "w_u" and len(names) == 11
              and joined == am_ck and shapes[7] == (shapes[7][0],))
    check(ok, "addmod113: 11 tensors in checkpoint order (w_e ... w_u), vectors 1-D, bytes = the checkpoint's %s"
          % out.strip())

    # the comparison fires: one flipped bit in one value
    flipped = bytearray(ckpt)
    flipped[4 * 600] ^= 1
    check(same_tensors(arrays, bytes(flipped)) is not None, "negative control: a 1-bit difference is found")

    # bad input: wrong size, unknown format/profile, missing file
    short = os.path.join(work, "short.bin")
    open(short, "wb").write(ckpt[:-1])
    longer = os.path.join(work, "long.bin")
    open(longer, "wb").write(ckpt + b"\0")
    for args, want_rc, want_text in (
        (["--format", "npz", "--out", os.path.join(work, "x.npz"), short], 4, "exactly 52352"),
        (["--format", "npz", "--out", os.path.join(work, "x.npz"), longer], 4, "more than 52352"),
        (["--format", "npz", "--out", os.path.join(work, "x.npz"), os.path.join(work, "none.bin")], 4, "cannot open"),
        (["--format", "hdf5", "--out", os.path.join(work, "x"), ck_path], 2, "unknown format"),
        (["--format", "npz", ck_path], 2, "--out is required"),
    ):
        rc, out = run([cli, "export", "--profile", "mlp13k"] + args)
        check(rc == want_rc and want_text in out, "refused: %s -> exit %d, %s" % (args[-1], rc, out.strip()))
    rc, out = run([cli, "export", "--profile", "nope", "--format", "npz", "--out", "x", ck_path])
    check(rc == 2 and "unknown profile" in out, "refused: unknown profile -> exit %d" % rc)
    check(not os.path.exists(os.path.join(work, "x.npz")), "no output file is left by a refused export")

    if failures:
        print("check-export: %d check(s) failed" % len(failures))
        return 1
    print("check-export: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
