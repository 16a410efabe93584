#!/usr/bin/env python3
"""The three example models (mlp13k.py, addmod113.py, gptchar.py) as an implementation
under test (spec/iut-protocol.md), so the isotrain runner certifies them:

    build/conform/isotrain-conform run --level all --vectors vectors/v1.2.0 \\
        -- /usr/bin/python3 adapters/python/examples/iut.py

Verbs: hello (P2, with train_seed=1, train_resume=1 and train_recipe=1), ops (P3-P6: every op of P5, through
the isotrain.torch functions the models use: iut_ops.py), train (P7:
--profile mlp13k|addmod113|gptchar, --seed, the trace of spec §9.2 with a digest per
step, checkpoint files, the exit statuses of P7; --state-steps and --resume
SDIR --from-step K: the states of spec §8.3 and resuming from one, iut_state.py;
--recipe FILE in place of --profile, P7 1.3.0: a recipe of the GPT family, spec
§16, through nanogpt.py at the recipe's sizes, gptfamily.py). Any other verb: exit 64.

The training loop is the examples' own objects (model, loss, optimizer, data)
in the plain loop a user writes; this file adds the protocol around it: the
§2.2 probe before anything runs (exit 3), the §10 checks (a non-finite loss
stops the run before its update, a non-finite parameter after it: exit 1 with
failure=<name> step=<t>), the trace lines and checkpoint files.

Option before the verb: --gptchar-model explicit|nanogpt|plain: gptchar's
model, gptchar.py's own (default), nanogpt.py's ordinary one through
isotrain.torch.conform (issue 31: the same certification for a model whose
forward knows nothing of isotrain), or that model in plain PyTorch (the
problem beside the cure: expected to FAIL).

Environment: ISOTRAIN_TORCH_THREADS (torch.set_num_threads: also the
library's thread count; any count gives the same bits), ISOTRAIN_KERNELS
(the library's kernel set; same bits), ISOTRAIN_LIB (which libisotrain.so),
ATEN_CPU_CAPABILITY (PyTorch's own kernels: unused by the numbers here),
ISOTRAIN_TORCH_EVAL=0 (leave out addmod113's optional evaluation keys of spec
§13.7: under emulation the step-0 evaluation over all 12,769 pairs costs more
than a training step; the runner does not read them).
"""

import hashlib
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

VERSION = "0.1.0"
EX_USAGE, EX_IO, EX_UNSUPPORTED = 2, 4, 64
PROFILES = {"mlp13k": 200, "addmod113": 300, "gptchar": 500}
M64 = (1 << 64) - 1


def die(status, msg):
    sys.stderr.write("isotrain-torch: %s\n" % msg)
    sys.exit(status)


def setup_torch():
    import torch
    n = os.environ.get("ISOTRAIN_TORCH_THREADS")
    if n:
        if not re.fullmatch(r"[1-9][0-9]{0,3}", n):
            die(EX_USAGE, "ISOTRAIN_TORCH_THREADS=%r is not a thread count" % n)
        torch.set_num_threads(int(n))
    return torch


def facts(torch, it):
    """key=value tokens about this process for hello (P2: unknown keys are ignored)."""
    tok = lambda s: re.sub(r"[\s=]+", "_", str(s)) or "none"
    cfg = torch.__config__.show()
    m = re.search(r"CPU capability usage:\s*([^\n]+)", cfg)
    blas = "unknown"
    try:  # the libblas this process loaded (reference BLAS or a private OpenBLAS)
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f if "libblas" in line or "libopenblas" in line})
        blas = os.path.basename(os.path.dirname(paths[0])) + "/" + os.path.basename(paths[0]) if paths else "none"
    except OSError:
        pass
    return ("torch=%s kernels=%s isa=%s threads=%d cpu_capability=%s blas_loaded=%s aten_cpu_capability_env=%s"
            % (tok(torch.__version__), it.kernels(), it._lib.host_isa(), torch.get_num_threads(),
               tok(m.group(1) if m else "unknown"), tok(blas), tok(os.environ.get("ATEN_CPU_CAPABILITY", "unset"))))


# ---- P7 arguments --------------------------------------------------------------------

def parse_train(argv):
    names = {"--profile": "profile", "--steps": "steps", "--trace": "trace", "--checkpoint-dir": "dir",
             "--checkpoint-steps": "ck", "--seed": "seed", "--state-steps": "state", "--resume": "resume",
             "--from-step": "from", "--recipe": "recipe"}
    o = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        key, eq, val = a.partition("=")
        if key not in names:
            die(EX_USAGE, "train: unknown argument %r" % a)
        if not eq:
            if i + 1 >= len(argv):
                die(EX_USAGE, "train: %s needs a value" % key)
            val = argv[i + 1]
            i += 1
        if names[key] in o:
            die(EX_USAGE, "train: %s given twice" % key)
        o[names[key]] = val
        i += 1
    if "profile" in o and "recipe" in o:
        die(EX_USAGE, "train: --profile and --recipe exclude each other")
    if ("profile" not in o and "recipe" not in o) or "trace" not in o:
        die(EX_USAGE, "train: --profile (or --recipe FILE) and --trace are required")
    if "recipe" in o:
        o["recipe"] = load_recipe(o["recipe"])
        o["profile"], most = o["recipe"].name, o["recipe"].steps
    elif o["profile"] not in PROFILES:  # P7: nothing written
        sys.stderr.write("unsupported profile %s\n" % o["profile"])
        sys.exit(EX_UNSUPPORTED)
    else:
        most = PROFILES[o["profile"]]
    steps = o.get("steps", str(most))
    if not re.fullmatch(r"0|[1-9][0-9]{0,9}", steps) or int(steps) > 0xFFFFFFFF:
        die(EX_USAGE, "train: --steps %r is not a count (0 ... 4294967295)" % steps)
    o["steps"] = int(steps)
    if "recipe" in o and o["steps"] > most:  # §16.2: lr(t) is defined for the recipe's steps only
        die(EX_USAGE, "train: recipe %s has %d steps, --steps %d is beyond them" % (o["profile"], most, o["steps"]))
    seed = o.get("seed")
    if seed is not None:
        if not re.fullmatch(r"0|[1-9][0-9]{0,19}", seed) or int(seed) > M64:
            die(EX_USAGE, "train: --seed %r is not a u64 in P4's int syntax (decimal, no sign, no leading zero)" % seed)
        o["seed"] = int(seed)
    ck = o.get("ck", "")
    if ck == "all":
        o["ck"] = set(range(o["steps"] + 1))
    elif ck:
        if not re.fullmatch(r"(0|[1-9][0-9]*)(,(0|[1-9][0-9]*))*", ck):
            die(EX_USAGE, "train: --checkpoint-steps %r is a comma-separated list of steps or 'all'" % ck)
        o["ck"] = set(int(s) for s in ck.split(","))
        beyond = sorted(s for s in o["ck"] if s > o["steps"])
        if beyond:
            die(EX_USAGE, "train: checkpoint step %d is beyond --steps %d" % (beyond[0], o["steps"]))
    elif "recipe" in o:  # P7 1.3.0: the recipe's checkpoint steps, those of this run
        o["ck"] = set(t for t in o["recipe"].checkpoint_steps if t <= o["steps"])
    else:
        o["ck"] = set()
    if o["ck"] and "dir" not in o:
        die(EX_USAGE, "train: --checkpoint-steps needs --checkpoint-dir")
    st = o.get("state")
    o["state"] = set()
    if st is not None:  # a list of steps only: 'all' is malformed here (P7, 1.2.1)
        if not re.fullmatch(r"(0|[1-9][0-9]{0,9})(,(0|[1-9][0-9]{0,9}))*", st):
            die(EX_USAGE, "train: --state-steps %r is a comma-separated list of steps" % st)
        o["state"] = set(int(s) for s in st.split(","))
        beyond = sorted(s for s in o["state"] if s > o["steps"])
        if beyond:
            die(EX_USAGE, "train: state step %d is beyond --steps %d" % (beyond[0], o["steps"]))
        if "dir" not in o:
            die(EX_USAGE, "train: --state-steps needs --checkpoint-dir")
    if ("resume" in o) != ("from" in o):
        die(EX_USAGE, "train: --resume and --from-step come together")
    o["from"] = o.get("from", "0")
    if not re.fullmatch(r"0|[1-9][0-9]{0,9}", o["from"]) or int(o["from"]) > o["steps"]:
        die(EX_USAGE, "train: --from-step %r is not a step of the run (0 ... --steps %d)" % (o["from"], o["steps"]))
    o["from"] = int(o["from"])
    return o


def load_recipe(path):
    """P7 1.3.0: a file that is not a recipe of spec §16.1-§16.2 is a usage
    error before anything is written; the library's reader names the field."""
    setup_torch()
    from isotrain.torch import recipe
    try:
        return recipe.load(path)
    except recipe.RecipeError as e:
        die(EX_USAGE, "train: --recipe: %s" % e)


# ---- the run --------------------------------------------------------------------------

def failure(name, step, detail=""):
    sys.stderr.write("failure=%s step=%d%s\n" % (name, step, (" " + detail) if detail else ""))
    sys.exit(3 if name == "fpenv-flush" else 1)


def first_nonfinite(blob, np):
    u = np.frombuffer(blob, dtype="<u4")
    bad = np.flatnonzero((u & 0x7F800000) == 0x7F800000)  # spec §10.1
    return int(bad[0]) if bad.size else None


def argmax_first(logits, np):
    """spec §13.7: the first maximal logit, by §5.4's scan (index 0, then strict >)."""
    z = logits.numpy()
    best, idx = z[:, 0].copy(), np.zeros(z.shape[0], dtype=np.int64)
    for k in range(1, z.shape[1]):
        up = z[:, k] > best
        best[up], idx[up] = z[up, k], k
    return idx


def train(argv):
    o = parse_train(argv)
    if "dir" in o:  # P7: mkdir -p before anything runs; exit 4 if it cannot be a directory
        try:
            os.makedirs(o["dir"], exist_ok=True)
        except OSError as e:
            die(EX_IO, "train: checkpoint directory %s: %s" % (o["dir"], e.strerror or e))
        if not os.path.isdir(o["dir"]):
            die(EX_IO, "train: checkpoint directory %s is not a directory" % o["dir"])
    torch = setup_torch()
    import numpy as np
    import isotrain.torch as it
    import iut_state
    problem = it.fpenv_problem()
    if problem:
        failure("fpenv-flush", 0, problem)
    try:
        trace = open(o["trace"], "w", newline="\n")
    except OSError as e:
        die(EX_IO, "train: trace %s: %s" % (o["trace"], e.strerror or e))
    sys.stderr.write("isotrain-torch: %s train %s\n" % (facts(torch, it), o["profile"]))

    profile, steps = o["profile"], o["steps"]
    evaluate = None
    sched = None
    if "recipe" in o:
        import gptfamily
        import gptchar as ex
        member = gptfamily.Member(o["recipe"], o.get("seed"), "plain" if ex.MODEL == "plain" else "nanogpt")
        model, loss_fn, opt, sched = member.model, member.loss_fn, member.opt, member.sched
        batch, clip_ = member.batch, member.clip_
    elif profile == "gptchar":
        import gptchar as ex
        seed = o.get("seed", ex.SEED)
        tokens = ex.load_corpus()
        model, loss_fn, opt, sched = ex.make(seed)

        def batch(t):
            return ex.batch(t, tokens, seed)

        def clip_():
            return ex.clip_(model)
    elif profile == "mlp13k":
        import mlp13k as ex
        seed = o.get("seed", ex.SEED)
        corpus = ex.load_corpus()
        model, loss_fn, opt = ex.make(seed)

        def batch(t):
            return ex.batch(t, corpus, seed)
    else:
        import addmod113 as ex
        seed = o.get("seed", ex.SEED)
        x, y, x_test, y_test = ex.data(seed)
        model, loss_fn, opt = ex.make(seed)

        def batch(t):
            return x, y

        def evaluate_keys():  # spec §13.7's optional keys
            keys = []
            with torch.no_grad():
                for name, xs, ys in (("train", x, y), ("test", x_test, y_test)):
                    logits = model(xs)
                    loss = it.functional.cross_entropy(logits, ys)  # SUM ⊗ RN(1/n)
                    right = int((argmax_first(logits, np) == ys.numpy()).sum())
                    keys.append("%s_loss=0x%08x %s_correct=%d" % (name, it.random.bits(loss.item()), name, right))
            return " " + " ".join(keys)

        evaluate = None if os.environ.get("ISOTRAIN_TORCH_EVAL") == "0" else evaluate_keys

    def record(t, loss_bits):
        blob = it.checkpoint.param_bytes(model)  # spec §8.1
        if t > 0:
            j = first_nonfinite(blob, np)
            if j is not None:
                trace.close()
                failure("nonfinite-param", t, "flat index %d" % j)
        line = "step=%d" % t
        if loss_bits is not None:
            line += " loss=0x%08x loss_dec=%.9g" % (loss_bits, struct.unpack("<f", struct.pack("<I", loss_bits))[0])
        line += " digest=" + hashlib.sha256(blob).hexdigest()
        if evaluate is not None and t in (0, 100, 200, 300):
            line += evaluate()
        trace.write(line + "\n")
        trace.flush()
        if t in o["ck"]:
            path = os.path.join(o["dir"], "step-%06d.bin" % t)
            try:
                with open(path, "wb") as ck:
                    ck.write(blob)
            except OSError as e:
                die(EX_IO, "train: checkpoint %s: %s" % (path, e.strerror or e))
        if t in o["state"]:
            try:
                iut_state.write(o["dir"], t, blob, model, opt)
            except OSError as e:
                die(EX_IO, "train: state of step %d in %s: %s" % (t, o["dir"], e.strerror or e))

    k = o["from"]
    if "resume" in o:  # P7: a missing or short state file is exit 4, after the probe, before the run
        why = iut_state.check(o["resume"], k, model, opt)
        if why:
            trace.close()
            die(EX_IO, "train: " + why)
        iut_state.load(o["resume"], k, model, opt, sched)
    try:
        trace.write("# isotrain-trace v1 profile=%s steps=%d\n" % (profile, steps))
        record(k, None)
        for t in range(k + 1, steps + 1):
            xb, yb = batch(t)
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            bits = it.random.bits(loss.item())
            if (bits & 0x7F800000) == 0x7F800000:  # spec §10: no update on a non-finite loss
                trace.close()
                failure("nonfinite-loss", t)
            loss.backward()
            if sched is not None:  # gptchar, a recipe (spec §14.7): clip, AdamW at lr(t), then the next rate
                clip_()
            opt.step()
            if sched is not None:
                sched.step()
            record(t, bits)
        trace.close()
    except OSError as e:
        die(EX_IO, "train: writing %s: %s" % (o["trace"], e.strerror or e))


def hello():
    torch = setup_torch()
    import isotrain.torch as it
    import gptchar
    print("protocol=1 name=isotrain-torch version=%s spec=%s train_seed=1 train_resume=1 train_recipe=1 %s "
          "gptchar_model=%s"
          % (VERSION, it.SPEC_VERSION, facts(torch, it), gptchar.MODEL))


def info():
    """Not in the protocol: the machine for the receipt's self-report (the
    runner records these key=value lines as the IUT's own), as `isotrain
    info` words them."""
    torch = setup_torch()
    import isotrain.torch as it
    machine = it._lib.host_facts()
    print("isotrain_torch_version=%s\nspec_version=%s\n%s\nkernels=%s\ntorch=%s"
          % (VERSION, it.SPEC_VERSION, "\n".join("%s=%s" % kv for kv in machine.items()), it.kernels(),
             torch.__version__))


def ops():
    setup_torch()
    import iut_ops
    sys.exit(iut_ops.serve(sys.stdin.buffer, sys.stdout.buffer))


def main(argv):
    if len(argv) > 2 and argv[1] == "--gptchar-model":  # which gptchar model (gptchar.MODELS), before the verb
        import gptchar
        if argv[2] not in gptchar.MODELS:
            die(EX_USAGE, "--gptchar-model %r: one of %s" % (argv[2], ", ".join(sorted(gptchar.MODELS))))
        gptchar.MODEL = argv[2]
        argv = argv[:1] + argv[3:]
    verb = argv[1] if len(argv) > 1 else ""
    if verb == "hello":
        hello()
    elif verb == "info":
        info()
    elif verb == "ops":
        ops()
    elif verb == "train":
        train(argv[2:])
    else:
        sys.stderr.write("unsupported verb%s\n" % (": " + verb if verb else ""))
        sys.exit(EX_UNSUPPORTED)


if __name__ == "__main__":
    main(sys.argv)
