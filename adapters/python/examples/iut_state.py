"""States and resuming for iut.py (spec §8.3, §8.4, §9.4; spec/iut-protocol.md
P7 `--state-steps`, `--resume SDIR --from-step K`): what a run needs to go on
is its parameters and, for AdamW, the moments m and v, each as 4·P bytes in
the checkpoint's layout; the running products β^k and the learning rate of
step k + 1 are functions of k, recomputed here by the library (the same
ticks and the same lr(t) calls the uninterrupted run made). Only bytes are
moved: no arithmetic on a parameter or moment happens here."""

import os
import warnings

import numpy as np
import torch

import isotrain.torch as it
from isotrain.torch._lib import AdamWClock


def names(k, adam):
    """The state files of step k, in the order they are checked."""
    files = ["step-%06d.bin" % k]
    if adam:
        files += ["adam-m-%06d.bin" % k, "adam-v-%06d.bin" % k]
    return files


def is_adam(opt):
    return isinstance(opt, (it.optim.AdamW, torch.optim.AdamW))


def moment_bytes(model, opt, key):
    """m ('exp_avg') or v ('exp_avg_sq') of every parameter in checkpoint order; +0 before the first step."""
    out = []
    for p in model.parameters():
        t = opt.state.get(p, {}).get(key)
        a = np.zeros(p.numel(), dtype="<f4") if t is None else np.ascontiguousarray(t.detach().numpy(), dtype="<f4")
        out.append(a.tobytes())
    return b"".join(out)


def write(d, k, blob, model, opt):
    """The state of step k into directory d (the checkpoint file too)."""
    data = [blob]
    if is_adam(opt):
        data += [moment_bytes(model, opt, "exp_avg"), moment_bytes(model, opt, "exp_avg_sq")]
    for name, b in zip(names(k, is_adam(opt)), data):
        with open(os.path.join(d, name), "wb") as f:
            f.write(b)


def check(d, k, model, opt):
    """None when every state file of step k in d is there with 4·P bytes, else the reason (exit 4)."""
    size = 4 * sum(p.numel() for p in model.parameters())
    for name in names(k, is_adam(opt)):
        path = os.path.join(d, name)
        try:
            got = os.path.getsize(path)
        except OSError as e:
            return "state file %s: %s" % (path, e.strerror or e)
        if got != size:
            return "state file %s has %d bytes, a state of this profile has 4*P = %d" % (path, got, size)
    return None


def _split(model, path):
    with open(path, "rb") as f:
        a = np.frombuffer(f.read(), dtype="<f4")
    out, at = [], 0
    for p in model.parameters():
        out.append(a[at:at + p.numel()].reshape(tuple(p.shape)))
        at += p.numel()
    return out


def load(d, k, model, opt, sched):
    """The run set to the state of step k: parameters, m and v, AdamW's step
    count and running products (k library ticks from 1), the schedule's
    position (k scheduler steps: the rate of step k + 1)."""
    adam = is_adam(opt)
    files = [os.path.join(d, n) for n in names(k, adam)]
    with torch.no_grad():
        for p, a in zip(model.parameters(), _split(model, files[0])):
            p.detach().numpy()[...] = a
    if adam:
        ms, vs = _split(model, files[1]), _split(model, files[2])
        where = {id(p): i for i, p in enumerate(model.parameters())}
        for group in opt.param_groups:
            if isinstance(opt, it.optim.AdamW):
                consts = opt._consts(group)
                clock = AdamWClock(1.0, 1.0, 0)
                for _ in range(k):
                    it.optim.adamw_tick(consts, clock)
            for p in group["params"]:
                i = where[id(p)]
                st = opt.state[p]
                st["step"] = torch.tensor(float(k))
                # the files are little-endian (§8.1); torch takes native byte order only:
                # a byte swap on a big-endian host (s390x), a copy elsewhere
                st["exp_avg"] = torch.from_numpy(ms[i].astype(np.float32))
                st["exp_avg_sq"] = torch.from_numpy(vs[i].astype(np.float32))
                if isinstance(opt, it.optim.AdamW):
                    st["beta1_power"] = torch.tensor(clock.beta1_pow, dtype=torch.float32)
                    st["beta2_power"] = torch.tensor(clock.beta2_pow, dtype=torch.float32)
    if sched is not None:
        with warnings.catch_warnings():  # torch's "scheduler before optimizer" notice: no step is skipped here
            warnings.simplefilter("ignore", UserWarning)
            for _ in range(k):
                sched.step()
