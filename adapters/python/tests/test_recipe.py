#!/usr/bin/env python3
"""A recipe of the GPT family (spec §16) through PyTorch (issue 32 item 5):
examples/iut.py `train --recipe FILE` trains the ordinary nanogpt.py model
built at the recipe's sizes and made conforming by isotrain.torch.conform.

  1. the runner makes a recipe set from RECIPE run for --steps steps (tiny.json's
     sizes and constants, 30 steps: long enough for fresh windows) (`isotrain-conform vectors
     --recipe`) and certifies the IUT against it with --windows: `PASS
     (recipe sha256:..., windows)`, exit 6 (ops of v1.2.0's family groups,
     fresh cases, the recipe's run, three fresh windows resumed by the IUT);
  2. negative controls, each a FAIL (exit 1) naming the first differing
     step: the attention scale (step 1) and the init bounds (step 0) rounded
     once from binary64 instead of §16.3's two roundings
     (tests/mutant_nanogpt.py scale-once, bound-once). The runner's linked
     reference replays gptchar's ops, not a recipe's, so no op is named;
  3. the usage errors of P7 1.3.0: a file that is not a recipe (the
     library's reader names the field), --profile with --recipe, --steps
     beyond the recipe's: exit 2, nothing created.

    test_recipe.py --conform RUNNER [--lib SO] [--recipe spec/recipes/tiny.json] [--steps 30] [--out DIR]
                   [--prefix 'qemu-aarch64 -L R -cpu cortex-a72'] [--python PY] [--slowdown 40]

With --prefix (and the sysroot's --python) the IUT runs emulated and only
part 1 runs, by windows: `--steps 1 --windows` (a prefix and the fresh
windows; conformance/README.md "Recipe vector sets"). Exit 1 on any failure.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from harness import check, failures

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
IUT = os.path.join(HERE, "..", "examples", "iut.py")
MUTANT = os.path.join(HERE, "mutant_nanogpt.py")

ap = argparse.ArgumentParser()
ap.add_argument("--conform", required=True)
ap.add_argument("--lib")
ap.add_argument("--recipe", default=os.path.join(ROOT, "spec", "recipes", "tiny.json"))
ap.add_argument("--out")
ap.add_argument("--prefix", default="", help="emulator words before the python (qemu-... -L ROOT -cpu ...)")
ap.add_argument("--python", default=sys.executable)
ap.add_argument("--slowdown", type=int, default=40)
ap.add_argument("--steps", type=int, default=30, help="run the recipe this long (0: as it is)")
a = ap.parse_args()
env = dict(os.environ, ISOTRAIN_TORCH_THREADS="1")
if not a.prefix:  # emulated: the sysroot's bytecode cache (PYTHONPYCACHEPREFIX) saves ~20 s a process
    env["PYTHONDONTWRITEBYTECODE"] = "1"
if a.lib:
    env["ISOTRAIN_LIB"] = os.path.abspath(a.lib)
out = os.path.abspath(a.out) if a.out else tempfile.mkdtemp(prefix="test-recipe-")
os.makedirs(out, exist_ok=True)
conform = os.path.abspath(a.conform)
iut = shlex.split(a.prefix) + [a.python]

def lengthened(path, steps):
    """The recipe at path run for `steps` steps of a schedule as long (its
    corpus copied beside it): the runner draws fresh windows, one in each
    third of the run, only when a run is long enough for three 3-step
    windows, which tiny.json's 5 steps are not."""
    with open(path) as f:
        doc = json.load(f)
    d = os.path.join(out, "recipe")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    corpus = os.path.basename(doc["corpus"]["path"])
    shutil.copyfile(os.path.join(os.path.dirname(os.path.abspath(path)), doc["corpus"]["path"]),
                    os.path.join(d, corpus))
    doc["corpus"]["path"] = corpus
    doc["name"] = doc["name"] + "_%d" % steps
    doc["steps"] = steps
    doc["schedule_length"] = max(doc["schedule_length"], steps)
    doc["checkpoint_steps"] = [steps]
    target = os.path.join(d, os.path.basename(path))
    with open(target, "w") as f:
        json.dump(doc, f, indent=2)
    return target


recipe = lengthened(a.recipe, a.steps) if a.steps else a.recipe
sets = os.path.join(out, "set")
shutil.rmtree(sets, ignore_errors=True)
p = subprocess.run([conform, "vectors", "--recipe", recipe, "--out", sets], capture_output=True, text=True)
check("the runner makes the recipe set of %s" % os.path.basename(recipe), p.returncode == 0, p.stderr[-400:])


def certify(name, cmd, extra=()):
    """One `run` on the recipe set; (exit status, output)."""
    log = os.path.join(out, name + ".txt")
    args = [conform, "run", "--vectors", sets, "--ops-vectors", os.path.join(ROOT, "vectors", "v1.2.0"),
            "--receipt", os.path.join(out, name + ".receipt.json")] + list(extra) + ["--"] + cmd
    r = subprocess.run(args, env=env, cwd=ROOT, capture_output=True, text=True)
    with open(log, "w") as f:
        f.write(r.stdout + r.stderr)
    return r.returncode, r.stdout + r.stderr


emulated = bool(a.prefix)
# --slowdown: the time limits only (a busy machine's hello can take a minute)
extra = ["--windows", "--slowdown", str(a.slowdown)] + (["--steps", "1"] if emulated else [])
if emulated:  # the receipt names the emulator and its -cpu, as conforming_cross_isa.py's do
    words = shlex.split(a.prefix)
    extra += ["--emulator", words[0]] + (["--emulator-cpu", words[words.index("-cpu") + 1]] if "-cpu" in words else [])
rc, text = certify("iut", iut + [IUT, "--gptchar-model", "nanogpt"], extra)
last = [l for l in text.splitlines() if re.match(r"\d+ passed, \d+ failed", l)]
want = "PARTIAL" if emulated else "PASS (recipe sha256:"
check("nanogpt.py at the recipe's sizes, conformed: %s with windows (exit %d)" % (want, 6 if not emulated else 3),
      bool(last) and want in last[-1] and ("windows" in last[-1] or emulated) and " 0 failed" in last[-1]
      and rc == (3 if emulated else 6), "exit %d: %s" % (rc, last[-1] if last else text[-600:]))
if emulated:  # a certification by windows: `matrix` calls it so, in a recipe's words (never the official PASS)
    m = subprocess.run([conform, "matrix", "--allow-unsigned", "--vectors", sets, os.path.join(out, "iut.receipt.json")],
                       cwd=ROOT, capture_output=True, text=True)
    with open(os.path.join(out, "matrix.txt"), "w") as f:
        f.write(m.stdout + m.stderr)
    check("matrix (exit 0): the emulated host's receipt is 'recipe sha256:... (windows)', certified by windows",
          m.returncode == 0 and re.search(r"recipe sha256:[0-9a-f]{12} \(windows\)", m.stdout) is not None
          and "ok: certified by windows against a recipe" in m.stdout and "PASS" not in m.stdout,
          "exit %d: %s" % (m.returncode, (m.stdout + m.stderr)[-600:]))
else:
    # the runner's reference replays gptchar's ops only, so for a recipe it names the step, not the op
    for kind, where in (("scale-once", "first step whose parameters differ: 1 "),
                        ("bound-once", "first step whose parameters differ: 0 ")):
        rc, text = certify("mutant-" + kind, [a.python, MUTANT, kind], ["--slowdown", str(a.slowdown)])
        line = next((l.strip() for l in text.splitlines() if where in l), "")
        check("negative control %s: FAIL (exit 1), the runner says '%s'" % (kind, where),
              rc == 1 and bool(line), "exit %d: %s" % (rc, text[-600:]))
        print("     %s: %s" % (kind, line))

    tmp = os.path.join(out, "usage")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    bad = os.path.join(tmp, "bad.json")
    with open(a.recipe) as f:
        text = f.read()
    with open(bad, "w") as f:
        f.write(re.sub(r'"heads": \d+', '"heads": 5', text).replace('"path": "', '"path": "%s/' % os.path.dirname(
            os.path.abspath(a.recipe))))
    for what, args, say in (
            ("a recipe whose heads do not divide d_model", ["--recipe", bad], "heads"),
            ("--profile with --recipe", ["--profile", "gptchar", "--recipe", a.recipe], "exclude"),
            ("--steps beyond the recipe's", ["--recipe", a.recipe, "--steps", "100000"], "beyond")):
        ck = os.path.join(tmp, "ck")
        r = subprocess.run([a.python, IUT, "train"] + args + ["--trace", os.path.join(tmp, "t.txt"),
                                                                "--checkpoint-dir", ck], env=env, capture_output=True,
                           text=True)
        check("usage: %s -> exit 2 naming '%s', nothing created" % (what, say),
              r.returncode == 2 and say in r.stderr and not os.path.exists(ck)
              and not os.path.exists(os.path.join(tmp, "t.txt")), "exit %d: %s" % (r.returncode, r.stderr[-300:]))

print("test_recipe: %s" % ("all passed" if not failures else "%d FAILED: %s" % (len(failures), "; ".join(failures))))
sys.exit(1 if failures else 0)
