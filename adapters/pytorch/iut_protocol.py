"""The IUT side of spec/iut-protocol.md for the PyTorch adapters: the verbs
(P1), `hello` (P2), the arguments of `train` (P7), failure reporting, and the
PyTorch settings the adapters take from the environment.

Environment (both adapters):
  ISOTRAIN_TORCH_THREADS   torch.set_num_threads(N) before training; unset =
                           PyTorch's default (one thread per core).
  ATEN_CPU_CAPABILITY      PyTorch's own switch for its CPU kernels
                           (default | avx2 | avx512); read by PyTorch itself
                           at import time, reported by `hello`.
"""

import ctypes
import os
import re
import sys

EX_UNSUPPORTED = 64


def die_usage(msg):
    print("%s: %s" % (os.path.basename(sys.argv[0]), msg), file=sys.stderr)
    sys.exit(2)


def unsupported_verb(verb):
    print("unsupported verb%s" % (": " + verb if verb else ""), file=sys.stderr)
    sys.exit(EX_UNSUPPORTED)


def report_failure(name, step, detail=""):
    """P7: a spec §10 failure ends the run with a non-zero status and this line."""
    print("failure=%s step=%d%s" % (name, step, (" " + detail) if detail else ""), file=sys.stderr)
    sys.exit(1)


def parse_train_args(argv, default_steps=None):
    """argv after the verb -> dict(profile, steps, trace, checkpoint_dir, checkpoint_steps)."""
    opts = {"profile": None, "steps": default_steps, "trace": None,
            "checkpoint_dir": None, "checkpoint_steps": ""}
    names = {"--profile": "profile", "--steps": "steps", "--trace": "trace",
             "--checkpoint-dir": "checkpoint_dir", "--checkpoint-steps": "checkpoint_steps"}
    i = 0
    while i < len(argv):
        a = argv[i]
        key, val = (a.split("=", 1) + [None])[:2] if a.startswith("--") and "=" in a else (a, None)
        if key not in names:
            die_usage("train: unknown argument %r" % a)
        if val is None:
            if i + 1 >= len(argv):
                die_usage("train: %s needs a value" % key)
            val = argv[i + 1]
            i += 1
        opts[names[key]] = val
        i += 1
    if opts["profile"] is None or opts["trace"] is None:
        die_usage("train: --profile and --trace are required")
    try:
        opts["steps"] = int(opts["steps"])
        if opts["steps"] < 0:
            raise ValueError
    except (TypeError, ValueError):
        die_usage("train: --steps must be a count")
    ck = opts["checkpoint_steps"]
    if ck == "all":
        opts["checkpoint_steps"] = "all"
    elif ck:
        try:
            opts["checkpoint_steps"] = sorted(set(int(s) for s in ck.split(",")))
        except ValueError:
            die_usage("train: --checkpoint-steps is a comma-separated list of steps or 'all'")
    else:
        opts["checkpoint_steps"] = []
    if opts["checkpoint_steps"] and opts["checkpoint_dir"] is None:
        die_usage("train: --checkpoint-steps needs --checkpoint-dir")
    return opts


def setup_torch():
    """Imports torch and applies ISOTRAIN_TORCH_THREADS. Returns torch."""
    import torch
    n = os.environ.get("ISOTRAIN_TORCH_THREADS")
    if n:
        torch.set_num_threads(int(n))
    return torch


def torch_facts(torch):
    """key=value tokens about the PyTorch build and its settings, for hello."""
    cfg = torch.__config__.show()
    m = re.search(r"CPU capability usage:\s*([^\n]+)", cfg)
    cap = m.group(1) if m else "unknown"
    m = re.search(r"BLAS_INFO=([^,\s]+)", cfg)
    blas = m.group(1) if m else "unknown"
    tok = lambda s: re.sub(r"[\s=]+", "_", str(s)) or "none"
    return ("torch=%s cpu_capability=%s blas=%s threads=%d aten_cpu_capability_env=%s"
            % (tok(torch.__version__), tok(cap), tok(blas), torch.get_num_threads(),
               tok(os.environ.get("ATEN_CPU_CAPABILITY", "unset"))))


def blas_facts():
    """key=value tokens naming the BLAS this process actually loaded: the
    mapped files whose name says blas (from /proc/self/maps, which QEMU user
    mode emulates for the guest), and for OpenBLAS the kernel set it chose
    (openblas_get_corename: its own CPUID dispatch, or OPENBLAS_CORETYPE).
    For the diagnostics line on stderr (matrix.py checks it), not for hello."""
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({ln.split(None, 5)[5].strip() for ln in f if len(ln.split(None, 5)) == 6})
    except OSError:
        paths = []
    blas = [p for p in paths if re.search(r"blas", os.path.basename(p))]
    facts = "blas_so=%s" % (",".join(blas) or "none")
    core = "none"
    for p in blas:
        if "openblas" in os.path.basename(p):
            try:
                lib = ctypes.CDLL(p)
                lib.openblas_get_corename.restype = ctypes.c_char_p
                core = lib.openblas_get_corename().decode()
            except (OSError, AttributeError):
                core = "unknown"
            break
    return facts + " openblas_core=%s" % re.sub(r"[\s=]+", "_", core)
