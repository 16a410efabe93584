#!/usr/bin/env python3
"""`make test-pytorch`: quick checks of the PyTorch adapter (about a minute).

    test_adapter.py --conform build/conform/isotrain-conform [--python /usr/bin/python3]

1. isotrain_spec reproduces the spec's printed vectors (Philox KATs, addressing,
   conversions, §11.4 init values and digests, §11.5 batches).
2. iut.py hello answers one P2 line; other verbs exit 64 with "unsupported verb".
3. iut.py train: the step-0 digest is the spec's §11.4 digest, checkpoints are
   52,352 bytes and hash to the trace's digests, and the trace parses with the
   runner (`isotrain-conform compare T T` says identical).
4. IsotrainTrace on a user loop (with per-tensor keys) parses with the runner.
5. `isotrain-conform repeat` on addmod113 with a few steps.
6. divergence.py writes a CSV and a well-formed SVG.
7. load_export.py loads the reference's `isotrain export` (.npz and
   .safetensors) into the PyTorch model with every parameter byte intact.
8. The evidence tools of `make pytorch-cross-isa` (each with a negative
   control): fused_forms.fma32 equals exact rational rounding (and a
   double-rounding stand-in is caught), classify tells separate from fused
   products, the expectation check fires on one changed character, the
   compile probe passes with GCC and fails when x86-64's gcc is given -mfma,
   op_sweep's inputs are exact binary32 values, iut.py names the BLAS it
   loaded, and matrix.py refuses an "OpenBLAS" run that loaded the
   reference BLAS.
No test framework needed: each check prints ok/FAIL, the exit status counts failures.
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTER = os.path.dirname(HERE)
sys.path.insert(0, ADAPTER)

failures = []


def check(name, ok, detail=""):
    print("%-4s %s%s" % ("ok" if ok else "FAIL", name, ("" if ok or not detail else ": " + detail)))
    if not ok:
        failures.append(name)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conform", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--isotrain", default=os.path.join(ADAPTER, "..", "..", "build", "native", "isotrain"))
    a = ap.parse_args()
    py = a.python
    iut = os.path.join(ADAPTER, "iut.py")
    env = {k: v for k, v in os.environ.items() if k not in ("ATEN_CPU_CAPABILITY", "ISOTRAIN_TORCH_THREADS")}

    # 1
    import isotrain_spec
    bad = isotrain_spec.self_check(verbose=False)
    check("isotrain_spec reproduces every printed spec vector (§6.1-§6.4, §11.3-§11.5)", not bad, "; ".join(bad))

    # 2
    p = run([py, iut, "hello"], env=env)
    line = p.stdout.strip()
    toks = dict(t.split("=", 1) for t in line.split()) if p.returncode == 0 else {}
    check("hello: one line, protocol=1 name= version= spec=1.0.0",
          p.returncode == 0 and len(p.stdout.splitlines()) == 1 and line.startswith("protocol=1 name=")
          and toks.get("spec") == "1.0.0" and "version" in toks, repr(p.stdout + p.stderr))
    for verb in ("ops", "frobnicate"):
        p = run([py, iut, verb], env=env, stdin=subprocess.DEVNULL)
        check("verb %s: exit 64 and 'unsupported verb' on stderr" % verb,
              p.returncode == 64 and "unsupported verb" in p.stderr, "exit %d, %r" % (p.returncode, p.stderr))

    with tempfile.TemporaryDirectory() as tmp:
        # 3
        trace = os.path.join(tmp, "mlp13k.trace")
        ck = os.path.join(tmp, "ck")
        os.mkdir(ck)
        p = run([py, iut, "train", "--profile", "mlp13k", "--steps", "3", "--trace", trace,
                 "--checkpoint-dir", ck, "--checkpoint-steps", "all"], env=env)
        check("iut.py train --steps 3 --checkpoint-steps all exits 0", p.returncode == 0, p.stderr[-500:])
        lines = open(trace).read().splitlines() if os.path.exists(trace) else []
        check("trace: header + 4 step lines", len(lines) == 5 and lines[0] == "# isotrain-trace v1 profile=mlp13k steps=3",
              repr(lines[:1]))
        check("step-0 digest is spec §11.4's",
              len(lines) > 1 and lines[1] == "step=0 digest=05a8aa50bacb79781ff5a30c4d167dacd992201238083eb70e3ed5528ffa3fd6",
              lines[1] if len(lines) > 1 else "")
        ok = True
        for t in range(4):
            f = os.path.join(ck, "step-%06d.bin" % t)
            data = open(f, "rb").read() if os.path.exists(f) else b""
            digest = lines[t + 1].split("digest=")[1].split()[0] if len(lines) > t + 1 else ""
            ok &= len(data) == 52352 and hashlib.sha256(data).hexdigest() == digest
        check("checkpoints step-000000..3.bin: 52,352 bytes each, hashing to the trace's digests", ok)
        p = run([a.conform, "compare", trace, trace])
        check("runner: compare T T parses the trace and says identical",
              p.returncode == 0 and "identical" in p.stdout, (p.stdout + p.stderr)[-400:])
        p = run([py, iut, "train", "--profile", "mlp13k", "--steps", "2", "--trace", os.path.join(tmp, "x")], env=env)
        check("train without checkpoints exits 0", p.returncode == 0, p.stderr[-300:])
        p = run([py, iut, "train", "--profile", "other", "--steps", "2", "--trace", os.path.join(tmp, "y")], env=env)
        check("train --profile other is refused (exit 2)", p.returncode == 2, "exit %d" % p.returncode)

        # 4
        user = os.path.join(tmp, "user.trace")
        code = ("import sys; sys.path.insert(0, %r)\n"
                "import torch\nfrom isotrain_trace import IsotrainTrace\n"
                "torch.manual_seed(0)\nm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))\n"
                "opt = torch.optim.SGD(m.parameters(), lr=0.1)\nx = torch.ones(5, 4); y = torch.zeros(5, dtype=torch.long)\n"
                "tr = IsotrainTrace(%r, m, profile='user_loop', steps=4, per_tensor=True)\n"
                "for _ in range(4):\n"
                "    opt.zero_grad(); loss = torch.nn.functional.cross_entropy(m(x), y); loss.backward(); opt.step(); tr.step(loss)\n"
                "tr.close()\n") % (ADAPTER, user)
        p = run([py, "-c", code], env=env)
        check("IsotrainTrace in a user loop writes a trace", p.returncode == 0 and os.path.exists(user), p.stderr[-300:])
        if os.path.exists(user):
            l1 = open(user).read().splitlines()[1]
            check("per_tensor=True adds d_<tensor>= keys", " d_0_weight=" in l1 and " d_2_bias=" in l1, l1)
        p = run([a.conform, "compare", user, user])
        check("runner: compare parses the user-loop trace (extra keys ignored)",
              p.returncode == 0, (p.stdout + p.stderr)[-400:])

        # 5
        prog = "%s %s" % (py, os.path.join(ADAPTER, "addmod113.py"))
        p = run([a.conform, "repeat", "--runs", "2", "--iut", prog, "--profile", "addmod113", "--steps", "3"], env=env)
        check("runner: repeat --runs 2 on addmod113 (3 steps) says bit-identical",
              p.returncode == 0 and "bit-identical" in p.stdout, (p.stdout + p.stderr)[-600:])

        # 6
        for leg in ("a", "b"):
            os.makedirs(os.path.join(tmp, leg))
        legs_ok = True
        for leg, cap in (("a", "default"), ("b", "default")):
            p = run([py, os.path.join(ADAPTER, "addmod113.py"), "train", "--profile", "addmod113", "--steps", "2",
                     "--trace", os.path.join(tmp, leg, "t"), "--checkpoint-dir", os.path.join(tmp, leg),
                     "--checkpoint-steps", "all"], env=dict(env, ATEN_CPU_CAPABILITY=cap))
            legs_ok &= p.returncode == 0
        csv_path, svg_path = os.path.join(tmp, "d.csv"), os.path.join(tmp, "d.svg")
        p = run([py, os.path.join(ADAPTER, "divergence.py"), "--csv", csv_path, "--svg", svg_path,
                 "same run twice", os.path.join(tmp, "a", "t"), os.path.join(tmp, "a"),
                 os.path.join(tmp, "b", "t"), os.path.join(tmp, "b")], env=env)
        rows = open(csv_path).read().splitlines() if os.path.exists(csv_path) else []
        check("divergence.py: CSV with a header and steps 0..2, all gaps 0",
              legs_ok and p.returncode == 0 and len(rows) == 4
              and all(r.split(",")[6] == "0" for r in rows[1:]), (p.stdout + p.stderr)[-300:] + repr(rows[:2]))
        try:
            root = ET.parse(svg_path).getroot()
            check("divergence.py: SVG is well-formed XML with an <svg> root", root.tag.endswith("svg"))
        except (ET.ParseError, OSError) as e:
            check("divergence.py: SVG is well-formed XML with an <svg> root", False, str(e))

        # 7
        ref_ck = os.path.join(tmp, "ref")
        os.makedirs(ref_ck)
        p = run([a.isotrain, "train", "--profile", "mlp13k", "--steps", "5", "--trace", os.path.join(tmp, "rt"),
                 "--checkpoint-dir", ref_ck, "--checkpoint-steps", "5"])
        ck_file = os.path.join(ref_ck, "step-000005.bin")
        want = hashlib.sha256(open(ck_file, "rb").read()).hexdigest() if p.returncode == 0 else "no checkpoint"
        for fmt in ("npz", "safetensors"):
            out = os.path.join(tmp, "ck." + fmt)
            e = run([a.isotrain, "export", "--profile", "mlp13k", "--format", fmt, "--out", out, ck_file])
            q = run([py, os.path.join(ADAPTER, "load_export.py"), out], env=env)
            check("load_export.py: the reference's %s export in the PyTorch model hashes like the checkpoint" % fmt,
                  e.returncode == 0 and q.returncode == 0 and ("sha256 " + want) in q.stdout,
                  (p.stderr + e.stderr + q.stdout + q.stderr)[-400:])

    evidence_checks(py, env)

    print("test-pytorch: %s" % ("all checks passed" if not failures else "%d check(s) FAILED" % len(failures)))
    return 1 if failures else 0


def evidence_checks(py, env):
    """8: the tools behind adapters/pytorch/README.md's cross-ISA evidence."""
    from fractions import Fraction
    import numpy as np
    sys.path.insert(0, os.path.join(ADAPTER, "evidence"))
    import fused_forms as ff
    import op_sweep
    import cross_isa

    rng = np.random.Generator(np.random.PCG64(7))
    unit = lambda n, p=23: (rng.integers(-2 ** 23, 2 ** 23, n) * 2.0 ** -p).astype(np.float32)  # noqa: E731
    # random triples; triples whose exact a*b + c is a binary32 midpoint (1 + j*2^-24);
    # and triples 2^-70 off a midpoint, a tail binary64 cannot hold: c = 1 + odd*2^-23,
    # a*b = +-(2^-24 - 2^-70), so binary64 rounds onto the midpoint and then ties to even
    a, b, c = unit(3000), unit(3000), unit(3000, 20)
    m = 300
    ma = np.full(m, 2.0 ** -12, np.float32)
    mb = (rng.integers(1, 2 ** 12, m) * 2.0 ** -12).astype(np.float32)
    mc = np.ones(m, np.float32)
    ta = np.full(m, (1 + 2.0 ** -23) * 2.0 ** -12, np.float32)
    tb = np.full(m, (1 - 2.0 ** -23) * 2.0 ** -12, np.float32)
    tc = (1 + (2 * rng.integers(0, 2 ** 21, m) + 1) * 2.0 ** -23).astype(np.float32)
    a = np.concatenate([a, ma, -ma, ta, ta])
    b = np.concatenate([b, mb, mb, tb, -tb])
    c = np.concatenate([c, mc, mc, tc, tc])
    exact = np.array([ff.round32_exact(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                      for x, y, z in zip(a, b, c)], dtype=np.float32)
    check("fused_forms.fma32 equals exact rational rounding of a*b+c (%d cases, %d at or next to midpoints)"
          % (a.size, 4 * m),
          ff.same_bits(ff.fma32(a, b, c), exact).all())
    naive = (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)
    check("negative control: double rounding (binary64 then binary32) differs from the exact result somewhere",
          not ff.same_bits(naive, exact).all())
    x, w = unit(64 * 16).reshape(64, 16), unit(16 * 32).reshape(16, 32)
    forms = ff.matmul(x, w)
    check("classify: numpy's separately rounded ascending products are 'separate'",
          ff.classify(forms["separate"], forms) == "= separate", ff.classify(forms["separate"], forms))
    check("classify: the fused products are 'fused'", ff.classify(forms["fused"], forms) == "= fused",
          ff.classify(forms["fused"], forms))
    flipped = forms["fused"].copy()
    flipped.view(np.uint32)[3, 5] ^= 1
    check("classify: one flipped bit matches no form", ff.classify(flipped, forms).startswith("no form"),
          ff.classify(flipped, forms))

    now = "# header\nx86_64 vs aarch64: first differing step: 1\nmore\n"
    check("expectation check: identical text gives no diff", not cross_isa.diff_expectation(now, now, "e", "n"))
    changed = now.replace("step: 1", "step: 2")
    d = cross_isa.diff_expectation(changed, now, "e", "n")
    check("expectation check: a changed verdict gives a diff naming both lines",
          "-x86_64 vs aarch64: first differing step: 2" in d and "+x86_64 vs aarch64: first differing step: 1" in d, repr(d))
    check("expectation check: the per-run self-test fires", cross_isa.check_fires(now))

    probe = os.path.join(ADAPTER, "evidence", "compile_probe.sh")
    p = run(["sh", probe])
    check("compile_probe.sh: 1 - y*y fused on aarch64/s390x/ppc64le, not on x86-64 (GCC)", p.returncode == 0,
          p.stdout[-600:])
    gcc = shutil.which("x86_64-linux-gnu-gcc")
    if gcc:
        with tempfile.TemporaryDirectory() as tmp:
            wrapper = os.path.join(tmp, "x86_64-linux-gnu-gcc")
            with open(wrapper, "w") as f:
                f.write('#!/bin/sh\nexec %s -mfma "$@"\n' % gcc)
            os.chmod(wrapper, 0o755)
            p = run(["sh", probe], env=dict(os.environ, PATH=tmp + os.pathsep + os.environ["PATH"]))
            check("negative control: compile_probe.sh fails when x86-64's gcc emits FMA (-mfma)",
                  p.returncode == 1 and "CLAIM DOES NOT HOLD: x86_64-linux-gnu" in p.stdout, p.stdout[-600:])
    else:
        check("negative control of compile_probe.sh: x86_64-linux-gnu-gcc present", False, "not found")

    with tempfile.TemporaryDirectory() as tmp:
        f1, f2 = os.path.join(tmp, "a.npz"), os.path.join(tmp, "b.npz")
        op_sweep.make_inputs(f1)
        op_sweep.make_inputs(f2)
        A, B = np.load(f1), np.load(f2)
        same = A.files == B.files and all(np.array_equal(A[k].view(np.uint8), B[k].view(np.uint8)) for k in A.files)
        check("op_sweep inputs: the same bytes when drawn twice", same)
        k = "mm 64x16x32 unit|in0"
        v = A[k].astype(np.float64)
        check("op_sweep inputs: 'unit' values are k * 2^-23 in [-1, 1)",
              np.all(v * 2 ** 23 == np.round(v * 2 ** 23)) and v.min() >= -1 and v.max() < 1)
    with tempfile.TemporaryDirectory() as tmp:
        p = run([py, os.path.join(ADAPTER, "iut.py"), "train", "--profile", "mlp13k", "--steps", "0", "--trace",
                 os.path.join(tmp, "t")], env=env)
    so = [t for t in p.stderr.split() if t.startswith("blas_so=")]
    check("iut.py names the BLAS it loaded (blas_so= from /proc/self/maps)",
          p.returncode == 0 and so and "blas" in so[0] and so[0] != "blas_so=none", p.stderr[-300:])
    # matrix.py refuses a run whose process did not load the BLAS its row is about
    import matrix
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "traces"))
        os.makedirs(os.path.join(tmp, "logs"))
        empty = os.path.join(tmp, "no-openblas-here")
        os.makedirs(empty)
        args = argparse.Namespace(out=tmp, python=py, steps=1, qemu="qemu-x86_64", openblas=empty)
        r = matrix.Runs(args)
        try:
            r.run("reference", cap="default", threads=1)
            check("matrix.py: a reference-BLAS run passes its loaded-BLAS check", True)
        except RuntimeError as e:
            check("matrix.py: a reference-BLAS run passes its loaded-BLAS check", False, str(e))
        try:
            r.run("fake-openblas", cap="default", threads=1, openblas=True)
            check("negative control: matrix.py refuses an 'OpenBLAS' run that loaded the reference BLAS", False,
                  "LD_LIBRARY_PATH=%s (no libblas.so.3 there) was accepted" % empty)
        except RuntimeError as e:
            check("negative control: matrix.py refuses an 'OpenBLAS' run that loaded the reference BLAS",
                  "not the private OpenBLAS" in str(e), str(e))


if __name__ == "__main__":
    sys.exit(main())
