#!/usr/bin/env python3
"""make test-pytorch-conforming: the problem and the cure in one table.

For each row of settings a PyTorch user can vary on this machine (PyTorch's
kernel set ATEN_CPU_CAPABILITY, the thread count, the BLAS: Debian's
reference libblas or OpenBLAS from a private extraction), the runner
certifies the isotrain.torch IUT (examples/iut.py: the three profiles, gptchar
through the ordinary nanogpt.py model made conforming by conform(); every op
vector, every training step, the fresh cases; expected PASS, a full
certification) and, beside it, plain PyTorch (adapters/pytorch: the same
recipes written with torch's own layers, gptchar as nanogpt.py unconverted;
expected FAIL, localized). Then the
negative controls: the isotrain.torch IUT with one function switched back to
the torch op (tests/mutant_*.py) must FAIL with the runner naming where.

    conforming_matrix.py --conform RUNNER --iut 'PROGRAM ARG...' --lib SO --python PY --out DIR [--rows all|a,b] [--slots 2]

Writes DIR/matrix.md (the table), DIR/<row>/{runner.txt,receipt.json}; exit
0 when every row and control is as expected, 1 otherwise. Rows whose
hardware this CPU lacks (AVX-512) are listed as n/a, never run as something
else: PyTorch never goes above what the CPU has, so ATEN_CPU_CAPABILITY=avx512
would quietly run its AVX2 kernels.
"""

import argparse
import os
import subprocess
import sys
import time

import runlib

HERE = os.path.dirname(os.path.abspath(__file__))
PY_DIR = os.path.normpath(os.path.join(HERE, ".."))
PLAIN_MLP = os.path.join(runlib.ROOT, "adapters", "pytorch", "iut.py")
PLAIN_AM = os.path.join(runlib.ROOT, "adapters", "pytorch", "addmod113_profile.py")
PLAIN_GPT = os.path.join(PY_DIR, "examples", "iut.py")  # nanogpt.py in plain PyTorch (--gptchar-model plain)
GPT_STEP1 = ["--level", "train", "--profile", "gptchar", "--steps", "1"]
# name, script (tests/), runner arguments, what the runner must print; the
# nanogpt ones: one piece of the conformed ordinary model back to torch's
CONTROLS = [
    ("control-tanh", ["mutant_torch_tanh.py"], ["--level", "train", "--profile", "mlp13k"],
     ["first differing op: tanh"]),
    ("control-linear-mlp13k", ["mutant_f_linear.py"], ["--level", "train", "--profile", "mlp13k"],
     ["first step whose parameters differ: 1", "first differing tensor: b1"]),
    ("control-linear-addmod113", ["mutant_f_linear.py"], ["--level", "train", "--profile", "addmod113", "--steps", "1"],
     ["first step whose parameters differ: 1", "first differing op: addmod113_loss_grad"]),
    ("control-nanogpt-layernorm", ["mutant_nanogpt.py", "layernorm"], GPT_STEP1,
     ["first differing op: layernorm_forward"]),
    ("control-nanogpt-gelu", ["mutant_nanogpt.py", "gelu"], GPT_STEP1, ["first differing op: gelu_forward"]),
    ("control-nanogpt-attention", ["mutant_nanogpt.py", "attention"], GPT_STEP1,
     ["first differing op: causal_attention_forward"]),
    ("control-nanogpt-clip", ["mutant_nanogpt.py", "clip"], GPT_STEP1, ["first differing op: clip_grad_norm"]),
    ("control-nanogpt-linear", ["mutant_nanogpt.py", "linear"], GPT_STEP1,
     ["first step whose parameters differ: 1", "first differing op: gptchar_loss_grad"]),
    ("control-nanogpt-tie", ["mutant_nanogpt.py", "tie"], GPT_STEP1,
     ["first step whose parameters differ: 1", "first differing op: gptchar_loss_grad"]),
    ("control-nanogpt-fanout", ["mutant_nanogpt.py", "fanout"], GPT_STEP1,
     ["first step whose parameters differ: 1", "first differing op: gptchar_loss_grad"]),
]

# name, description, environment, torch threads, blas
ROWS = [
    ("default-t1", "ATEN_CPU_CAPABILITY=default, 1 thread, reference BLAS", {"ATEN_CPU_CAPABILITY": "default"}, 1, "ref"),
    ("avx2-t1", "ATEN_CPU_CAPABILITY=avx2, 1 thread, reference BLAS", {"ATEN_CPU_CAPABILITY": "avx2"}, 1, "ref"),
    ("default-t2", "ATEN_CPU_CAPABILITY=default, 2 threads, reference BLAS", {"ATEN_CPU_CAPABILITY": "default"}, 2, "ref"),
    ("avx2-t2", "ATEN_CPU_CAPABILITY=avx2, 2 threads, reference BLAS", {"ATEN_CPU_CAPABILITY": "avx2"}, 2, "ref"),
    ("openblas-default-t1", "ATEN_CPU_CAPABILITY=default, 1 thread, OpenBLAS (private)", {"ATEN_CPU_CAPABILITY": "default"}, 1, "openblas"),
    ("openblas-avx2-t2", "ATEN_CPU_CAPABILITY=avx2, 2 threads, OpenBLAS (private)", {"ATEN_CPU_CAPABILITY": "avx2"}, 2, "openblas"),
    ("avx512-t1", "ATEN_CPU_CAPABILITY=avx512, 1 thread, reference BLAS", {"ATEN_CPU_CAPABILITY": "avx512"}, 1, "ref"),
]


def has_avx512():
    try:
        with open("/proc/cpuinfo") as f:
            return any(" avx512f" in l for l in f if l.startswith("flags"))
    except OSError:
        return False


def openblas_dir(out):
    """ci/openblas-private.sh: Debian's OpenBLAS unpacked under build/, never installed."""
    r = subprocess.run(["sh", os.path.join(runlib.ROOT, "ci", "openblas-private.sh"),
                        os.path.join(runlib.ROOT, "build", "openblas")], capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return r.stdout.strip(), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conform", required=True)
    ap.add_argument("--iut", required=True, help="the isotrain.torch IUT: plain words, run in the argv form (no shell)")
    ap.add_argument("--lib", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rows", default="all")
    ap.add_argument("--slots", type=int, default=2, help="CPU threads to keep busy (rows run side by side)")
    ap.add_argument("--no-plain", action="store_true", help="leave out the plain PyTorch rows")
    ap.add_argument("--no-controls", action="store_true", help="leave out the negative controls")
    ap.add_argument("--controls", default="all", help="all, or a comma-separated list of control names")
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    conform = os.path.abspath(a.conform)
    os.makedirs(out, exist_ok=True)
    base = {"ISOTRAIN_LIB": os.path.abspath(a.lib), "PYTHONDONTWRITEBYTECODE": "1"}
    names = [r[0] for r in ROWS]
    wanted = names if a.rows == "all" else a.rows.split(",")
    unknown = [w for w in wanted if w not in names]
    if unknown:
        sys.exit("conforming_matrix: unknown row(s) %s (known: %s)" % (", ".join(unknown), ", ".join(names)))

    t0 = time.time()
    notes, runs, na = [], [], {}
    blas_dir = None
    if any(r[4] == "openblas" for r in ROWS if r[0] in wanted):
        blas_dir, why = openblas_dir(out)
        if not blas_dir:
            notes.append("OpenBLAS rows not run: %s" % why)
    avx512 = has_avx512()
    for name, desc, env, threads, blas in ROWS:
        if name not in wanted:
            continue
        if name.startswith("avx512") and not avx512:
            na[name] = (desc, "n/a: this CPU has no AVX-512 (avx512f absent from /proc/cpuinfo)")
            continue
        if blas == "openblas" and not blas_dir:
            na[name] = (desc, "n/a: OpenBLAS could not be extracted")
            continue
        e = dict(base, ISOTRAIN_TORCH_THREADS=str(threads), **env)
        if blas == "openblas":
            e["LD_LIBRARY_PATH"] = blas_dir + (":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")
        cure = runlib.Run(name + "/isotrain-torch", conform, a.iut, ["--level", "all"], e, out, threads=threads)
        cure.row, cure.kind, cure.blas = name, "cure", blas
        runs.append(cure)
        if not a.no_plain:
            for prof, iut, extra in (("mlp13k", "%s %s" % (a.python, PLAIN_MLP), []),
                                     ("addmod113", "%s %s" % (a.python, PLAIN_AM), ["--steps", "1"]),
                                     ("gptchar", "%s %s --gptchar-model plain" % (a.python, PLAIN_GPT), ["--steps", "1"])):
                p = runlib.Run("%s/plain-%s" % (name, prof), conform, iut,
                               ["--level", "train", "--profile", prof] + extra, e, out, threads=threads)
                p.row, p.kind, p.blas = name, "plain-" + prof, blas
                runs.append(p)
    controls = []
    if not a.no_controls:
        ce = dict(base, ATEN_CPU_CAPABILITY="default", ISOTRAIN_TORCH_THREADS="1")
        pick = [c[0] for c in CONTROLS] if a.controls == "all" else a.controls.split(",")
        unknown = [c for c in pick if c not in [k[0] for k in CONTROLS]]
        if unknown:
            sys.exit("conforming_matrix: unknown control(s) %s" % ", ".join(unknown))
        for cname, script, args, expect in (c for c in CONTROLS if c[0] in pick):
            c = runlib.Run(cname, conform, " ".join([a.python, os.path.join(PY_DIR, "tests", script[0])] + script[1:]),
                           args, ce, out)
            c.row, c.kind, c.expect = cname, "control", expect
            controls.append(c)
    runlib.run_all(runs + controls, a.slots)

    # ---- judge ----
    bad = []
    lines = ["| row | settings | plain PyTorch (the problem) | isotrain.torch (the cure) | mlp13k step 200 | "
             "addmod113 step 300 | gptchar step 500 | BLAS loaded (hello) | CPU s (wall s) |", "|" + "---|" * 9]
    for name, desc, env, threads, blas in ROWS:
        if name not in wanted:
            continue
        if name in na:
            lines.append("| %s | %s | %s | %s | | | | | |" % (name, na[name][0], "-", na[name][1]))
            continue
        rr = {r.kind: r for r in runs if r.row == name}
        cure = rr["cure"]
        dig = cure.final_digests()
        ok = cure.status == 0 and cure.verdict() == "PASS"
        for prof, (step, want) in runlib.FINAL.items():
            if dig.get(prof) != (step, want):
                ok = False
        hello = cure.hello()
        loaded = next((t.split("=", 1)[1] for t in hello.split() if t.startswith("blas_loaded=")), "?")
        if blas == "openblas" and "openblas" not in loaded:
            ok = False
            notes.append("%s: the IUT did not load OpenBLAS (hello: %s)" % (name, loaded))
        if not ok:
            bad.append(name)
        plain = []
        for prof in ("mlp13k", "addmod113", "gptchar"):
            p = rr.get("plain-" + prof)
            if p is None:
                continue
            where = [w for w in p.where() if w.startswith(("first step", "first differing op"))]
            plain.append("%s: %s%s" % (prof, p.verdict(), (" (" + "; ".join(where) + ")") if where else ""))
            if p.verdict() != "FAIL":
                bad.append("%s plain %s" % (name, prof))
        cells = [name, desc, "<br>".join(plain) or "-",
                 "**%s** %s" % (cure.verdict(), cure.verdict_line().split(";")[0]),
                 "`%s`" % dig.get("mlp13k", (0, "-"))[1][:16], "`%s`" % dig.get("addmod113", (0, "-"))[1][:16],
                 "`%s`" % dig.get("gptchar", (0, "-"))[1][:16],
                 loaded, "%.0f (%.0f)" % (cure.cpu, cure.wall)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| negative control | runner verdict | runner's localization | expected | |")
    lines.append("|---|---|---|---|---|")
    for c in controls:
        where = c.where()
        text = "\n".join(where)
        ok = c.verdict() == "FAIL" and all(e in text for e in c.expect)
        if not ok:
            bad.append(c.row)
        lines.append("| %s | %s | %s | %s | %s |" % (c.row, c.verdict(), "<br>".join(where) or "-",
                                                     " and ".join(c.expect), "as expected" if ok else "NOT as expected"))
    table = "\n".join(lines)
    summary = ("conforming_matrix: %d run(s) in %.0f s wall; %s"
               % (len(runs) + len(controls), time.time() - t0,
                  "every row and control as expected" if not bad else "NOT as expected: " + ", ".join(bad)))
    with open(os.path.join(out, "matrix.md"), "w") as f:
        f.write(table + "\n\n" + "\n".join(notes + [summary]) + "\n")
    print(table)
    for n in notes:
        print(n)
    print(summary)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
