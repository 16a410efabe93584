#!/usr/bin/env python3
"""Where PyTorch's step 1 of mlp13k departs from the spec, op by op, under each
kernel set: the command behind adapters/pytorch/README.md ("Where PyTorch
departs from the spec").

    spec_diff.py --isotrain build/native/isotrain [CAPABILITY ...]   (default: default avx2)

For each ATEN_CPU_CAPABILITY (one python3 process each: PyTorch reads it at
import), PyTorch runs step 1's forward chain from the spec's initial bytes and
batch (op_probe.py inputs), and the reference answers the same ops on the same
inputs through its `ops` verb (spec/iut-protocol.md P5; the reference is the
spec's definition): z1 per position (linear_forward, §5.2) from PyTorch's e,
and tanh (§3.4) of PyTorch's own z1. It also compares torch.exp / torch.log
with the spec's correctly rounded exp / log (§3.2, §3.3) on 16,384 inputs
each (op_sweep.py's exparg and pos ranges). Prints, per op, how many values
differ and by how many ULP. Informative: it names ops, the runner gives
verdicts. Exit 0 when everything ran, 2 otherwise.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTER = os.path.dirname(HERE)
sys.path.insert(0, ADAPTER)

import numpy as np  # noqa: E402

import op_sweep  # noqa: E402


# spec §11.6, "Vectors (reference), step 1, position 0": z1[0] and h[0]
SPEC_11_6 = (0xBEAF61CA, 0xBEA8D46F)


def hexs(v):
    return ",".join("%08x" % w for w in np.ascontiguousarray(v, dtype="<f4").reshape(-1).view("<u4"))


def unhex(s):
    return np.array([int(w, 16) for w in s.split(",")], dtype="<u4").view("<f4")


def reference(isotrain, requests):
    """Answers of `isotrain ops` to request lines (id=i op=...), as {id: {key: value}}."""
    p = subprocess.run([isotrain, "ops"], input="".join(r + "\n" for r in requests), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s ops exited %d: %s" % (isotrain, p.returncode, p.stderr.strip()[-300:]))
    out = {}
    for line in p.stdout.splitlines():
        kv = dict(t.split("=", 1) for t in line.split())
        if "error" in kv:
            raise RuntimeError("reference answered %s" % line[:200])
        out[kv["id"]] = kv
    return out


def torch_side(cap, tmp):
    """Step-1 inputs and PyTorch's exp/log on the sweep ranges, computed under cap."""
    code = ("import sys; sys.path.insert(0, %r)\n"
            "import numpy as np, iut_protocol as proto, op_probe\n"
            "torch = proto.setup_torch()\n"
            "op_probe.make_inputs(torch, %r)\n"
            "s = np.load(%r)\n"
            "x = s['exp 64x256 exparg|in0'].astype(np.float32); y = s['log 64x256 pos|in0'].astype(np.float32)\n"
            # spec §5.2's vector: W = [[1, 1]], x = [1, 2^24], b = [1]; bias last gives 2^24, bias first 2^24 + 2
            "W = torch.tensor([[1.0, 1.0]] * 3); xv = torch.tensor([[1.0, 2.0 ** 24]] * 4); bv = torch.ones(3)\n"
            "lin = torch.nn.functional.linear(xv, W, bv); am = torch.addmm(bv, xv, W.t().contiguous())\n"
            "np.savez(%r, exp_x=x, exp_y=torch.exp(torch.from_numpy(x)).numpy(),"
            " log_x=y, log_y=torch.log(torch.from_numpy(y)).numpy(), cap=torch.__config__.show(),"
            " lin=lin.numpy(), addmm=am.numpy())\n"
            % (ADAPTER, os.path.join(tmp, "step1.npz"), os.path.join(tmp, "sweep.npz"), os.path.join(tmp, "exp.npz")))
    env = dict(os.environ, ATEN_CPU_CAPABILITY=cap, ISOTRAIN_TORCH_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return np.load(os.path.join(tmp, "step1.npz")), np.load(os.path.join(tmp, "exp.npz"))


def describe(name, got, want):
    n, ulp = op_sweep.compare(np.asarray(got, np.float32), np.asarray(want, np.float32))
    return "  %-52s %s" % (name, "all %d equal the spec's" % np.size(got) if n == 0 else
                           "%d of %d differ from the spec's, <= %d ULP" % (n, np.size(got), ulp))


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--isotrain", required=True)
    ap.add_argument("caps", nargs="*", default=["default", "avx2"])
    a = ap.parse_args(argv)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            op_sweep.make_inputs(os.path.join(tmp, "sweep.npz"))
            for cap in a.caps:
                s, e = torch_side(cap, tmp)
                used = str(e["cap"]).split("CPU capability usage:")[-1].split("\n")[0].strip()
                print("ATEN_CPU_CAPABILITY=%s (PyTorch uses %s), step 1 of mlp13k from the spec's initial bytes:" % (cap, used))
                ex, w1, b1 = s["e"], s["w1"], s["b1"]
                reqs = ["id=z%d op=linear_forward in=16 out=32 w=%s b=%s x=%s" % (p, hexs(w1), hexs(b1), hexs(ex[p]))
                        for p in range(ex.shape[0])]
                reqs.append("id=h op=tanh x=%s" % hexs(s["z1"]))
                reqs.append("id=exp op=exp x=%s" % hexs(e["exp_x"]))
                reqs.append("id=log op=log x=%s" % hexs(e["log_x"]))
                r = reference(a.isotrain, reqs)
                z1 = np.stack([unhex(r["z%d" % p]["y"]) for p in range(ex.shape[0])])
                print(describe("z1 = F.linear(e, w1, b1) vs §5.2 linear_forward", s["z1"], z1))
                print(describe("h = torch.tanh(z1) vs §3.4 tanh of the same z1", s["h"], unhex(r["h"]["y"]).reshape(s["h"].shape)))
                got = (int(np.float32(s["z1"][0, 0]).view(np.uint32)), int(np.float32(s["h"][0, 0]).view(np.uint32)))
                print("  %-52s %s" % ("z1[0], h[0] of position 0 vs §11.6's printed vector",
                                      "0x%08x 0x%08x: %s" % (got + ("equal" if got == SPEC_11_6 else
                                                                    "differ (spec: 0x%08x 0x%08x)" % SPEC_11_6,))))
                bits = lambda v: sorted({"0x%08x" % w for w in np.asarray(v, np.float32).reshape(-1).view(np.uint32)})  # noqa: E731
                print("  %-52s F.linear(x, W, b): %s; torch.addmm(b, x, W.t().contiguous()): %s (spec: 0x4b800000;"
                      " bias first gives 0x4b800001)" % ("§5.2's vector (bias after the dot product)",
                                                          "/".join(bits(e["lin"])), "/".join(bits(e["addmm"]))))
                print(describe("torch.exp on [-64, 64) vs §3.2 exp", e["exp_y"], unhex(r["exp"]["y"])))
                print(describe("torch.log on [2^-20, 2^21) vs §3.3 log", e["log_y"], unhex(r["log"]["y"])))
    except (RuntimeError, subprocess.CalledProcessError, OSError, KeyError) as err:
        print("spec_diff: %s" % err)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
