#!/usr/bin/env python3
"""examples/iut.py's states and resuming (P7 --state-steps, --resume SDIR
--from-step K; spec §8.3, §8.4, §9.4): a run resumed from its own state of
step 2 writes the uninterrupted run's lines and checkpoint of steps 3-4 byte
for byte (mlp13k: SGD, parameters only; addmod113: AdamW, m, v and the
running products); the negative controls: a state whose m is lost, and
another step's parameters, give other bits; a missing or short state file is
exit 4 naming it; the usage errors are exit 2. Exit 1 on any failure."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from harness import check, failures

HERE = os.path.dirname(os.path.abspath(__file__))
IUT = os.path.join(HERE, "..", "examples", "iut.py")

ap = argparse.ArgumentParser()
ap.add_argument("--lib")
args = ap.parse_args()
env = dict(os.environ, ISOTRAIN_TORCH_EVAL="0", PYTHONDONTWRITEBYTECODE="1")
if args.lib:
    env["ISOTRAIN_LIB"] = os.path.abspath(args.lib)


def train(*a):
    r = subprocess.run([sys.executable, IUT, "train"] + list(a), env=env, capture_output=True, text=True)
    return r.returncode, r.stderr


def read(p, mode="r"):
    with open(p, mode) as f:
        return f.read()


tmp = tempfile.mkdtemp(prefix="test-resume-")
for prof in ("mlp13k", "addmod113"):
    d = os.path.join(tmp, prof)
    full, res = os.path.join(d, "full.txt"), os.path.join(d, "res.txt")
    rc, err = train("--profile", prof, "--steps", "4", "--trace", full, "--checkpoint-dir", d + "/a",
                    "--checkpoint-steps", "4", "--state-steps", "2")
    names = sorted(os.listdir(d + "/a"))
    want = ["step-000002.bin", "step-000004.bin"] + (["adam-m-000002.bin", "adam-v-000002.bin"]
                                                     if prof == "addmod113" else [])
    check("%s: --state-steps 2 writes the state files" % prof, rc == 0 and names == sorted(want), "%d %s %s"
          % (rc, names, err[-300:]))
    rc, err = train("--profile", prof, "--steps", "4", "--trace", res, "--checkpoint-dir", d + "/b",
                    "--checkpoint-steps", "1,4", "--resume", d + "/a", "--from-step", "2")
    lines, rlines = read(full).splitlines(), read(res).splitlines() if os.path.exists(res) else []
    step2 = lines[3].split(" loss=")[0] + " digest=" + lines[3].split(" digest=")[1]
    check("%s: resumed at 2: header, step=2 digest line, steps 3-4 = the uninterrupted run's" % prof,
          rc == 0 and rlines == [lines[0], step2] + lines[4:6], "%d %s %s" % (rc, rlines, err[-300:]))
    check("%s: resumed checkpoint 4 = the uninterrupted one; step 1 (below K) not written" % prof,
          read(d + "/a/step-000004.bin", "rb") == read(d + "/b/step-000004.bin", "rb")
          and not os.path.exists(d + "/b/step-000001.bin"))
    # negative controls: the state spoiled
    spoil = d + "/spoiled"
    os.makedirs(spoil)
    for n in want[:-1] if prof == "mlp13k" else want:
        if n.endswith("000004.bin"):
            continue
        data = read(os.path.join(d, "a", n), "rb")
        if n.startswith("adam-m"):
            data = bytes(len(data))  # the first moments lost
        if n.startswith("step-") and prof == "mlp13k":
            data = read(d + "/a/step-000004.bin", "rb")  # another step's parameters
        with open(os.path.join(spoil, n), "wb") as f:
            f.write(data)
    rc, _ = train("--profile", prof, "--steps", "4", "--trace", res, "--resume", spoil, "--from-step", "2")
    check("%s: negative control (%s): the resumed run differs" % (prof, "m lost" if prof == "addmod113" else
                                                                   "step 4's parameters as step 2's"),
          rc == 0 and read(res).splitlines()[2:] != lines[4:6])
    short = os.path.join(spoil, want[-1] if prof == "addmod113" else "step-000002.bin")
    with open(short, "wb") as f:
        f.write(b"\0" * 8)
    rc, err = train("--profile", prof, "--steps", "4", "--trace", res, "--resume", spoil, "--from-step", "2")
    check("%s: a short state file is exit 4 naming it" % prof, rc == 4 and short in err, "%d %s" % (rc, err[-300:]))
    os.unlink(short)
    rc, err = train("--profile", prof, "--steps", "4", "--trace", res, "--resume", spoil, "--from-step", "2")
    check("%s: a missing state file is exit 4 naming it" % prof, rc == 4 and short in err, "%d %s" % (rc, err[-300:]))

t = os.path.join(tmp, "u.txt")
for what, extra in (("--resume without --from-step", ["--resume", tmp]),
                    ("--from-step without --resume", ["--from-step", "1"]),
                    ("--from-step beyond --steps", ["--resume", tmp, "--from-step", "5"]),
                    ("--state-steps all", ["--checkpoint-dir", tmp, "--state-steps", "all"]),
                    ("--state-steps without --checkpoint-dir", ["--state-steps", "1"]),
                    ("a state step beyond --steps", ["--checkpoint-dir", tmp, "--state-steps", "5"])):
    rc, err = train("--profile", "mlp13k", "--steps", "4", "--trace", t, *extra)
    check("usage: %s is exit 2" % what, rc == 2, "%d %s" % (rc, err[-200:]))

shutil.rmtree(tmp)
if failures:
    print("test_resume: %d check(s) failed" % len(failures))
    sys.exit(1)
print("test_resume: all checks passed")
