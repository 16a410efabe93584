#!/usr/bin/env python3
"""Unit tests of isotrain.torch (make test-pytorch-conforming):

- every function against the spec's printed vectors (§4.2, §5.2, §5.4, §5.5,
  §5.9-§5.12, §6.1-§6.5, §7.2, §11.4, §13.3, §13.4), through the public API;
- the profiles' published step-1 values: loss bits and the SHA-256 of the
  whole gradient, from the example models' forward and loss.backward()
  (spec §11.6, §13.5), with 1 and 2 threads, and another kernel set;
- the constants: the attention scale, the loss scales RN(1/n), AdamW's
  binary32 constants from torch-style hyper-parameters (spec §13.1);
- a resumed SUM (linear_grad_params_ over rows split in two calls) gives the
  bits of one call, and adding two partial sums does not (spec §4.1);
- refusals: dtype, device, layout, stride, index range, options without a
  spec clause, unsupported modules in convert() by class and path (and then
  nothing converted), optimizer options;
- optimizers: torch's param_groups/state_dict shape, and a run resumed from
  a state_dict is bit-identical to an uninterrupted one.

Every check compares bits (or the exact error) and prints ok/FAIL; exit 1 on
any failure.
"""

import hashlib
import os
import subprocess
import sys

from harness import HERE, lib_args

lib_args()

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

import isotrain.torch as it  # noqa: E402
from isotrain.torch import functional as itF  # noqa: E402

failures = []


def check(what, got, want):
    ok = got == want
    print("%-4s %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures.append(what)
        print("     got  %r\n     want %r" % (got, want))


def raises(what, exc, fn, *needles):
    try:
        fn()
    except exc as e:
        msg = str(e)
        missing = [n for n in needles if n not in msg]
        check(what, missing, [])
        if missing:
            print("     message: %s" % msg)
        return
    except Exception as e:  # noqa: BLE001
        check(what, "%s: %s" % (type(e).__name__, e), exc.__name__)
        return
    check(what, "no error", exc.__name__)


def t(*bits):
    """a float32 tensor from bit patterns"""
    return torch.from_numpy(np.array(bits, dtype=np.uint32).view(np.float32).copy())


def b(x):
    """bit patterns of a tensor (flat) or a float"""
    if isinstance(x, torch.Tensor):
        return [int(v) for v in x.detach().reshape(-1).numpy().view(np.uint32)]
    return it.random.bits(x)


def sha(tensors):
    h = hashlib.sha256()
    for x in tensors:
        h.update(np.ascontiguousarray(x.detach().numpy(), dtype="<f4").tobytes())
    return h.hexdigest()


ONE = 0x3F800000

# ---- §4.2 dot, §4.1 resumable sums ------------------------------------------------------
check("§4.2 dot ascending: 1e8 + 1 - 1e8 + 1 = 1",
      b(itF.dot(t(0x4CBEBC20, ONE, 0xCCBEBC20, ONE), t(ONE, ONE, ONE, ONE))), 0x3F800000)
check("§4.2 dot of [-0] is +0", b(itF.dot(t(0x80000000), t(ONE))), 0)
check("§4.1 sum of [-0, -0] is +0", b(itF.sum(t(0x80000000, 0x80000000))), [0])

rows = t(0x4CBEBC20, ONE, 0xCCBEBC20, ONE).view(4, 1)       # dY: 1e8, 1, -1e8, 1 over four rows
xs = t(ONE, ONE, ONE, ONE).view(4, 1)
one_call = torch.zeros(1, 1)
itF.linear_grad_params_(one_call, None, rows, xs)
resumed = torch.zeros(1, 1)
itF.linear_grad_params_(resumed, None, rows[:2], xs[:2])
itF.linear_grad_params_(resumed, None, rows[2:], xs[2:])
halves = [torch.zeros(1, 1), torch.zeros(1, 1)]
itF.linear_grad_params_(halves[0], None, rows[:2], xs[:2])
itF.linear_grad_params_(halves[1], None, rows[2:], xs[2:])
check("§4.1 dW over 4 rows = 1 (ascending from +0)", b(one_call), [0x3F800000])
check("§4.1 the sum resumed from its stored partial after 2 rows gives the same bits", b(resumed), b(one_call))
check("§4.1 negative control: two partial sums added give other bits", b(halves[0] + halves[1]) != b(one_call), True)

# ---- §5.2 linear: bias after the dot ---------------------------------------------------
check("§5.2 linear bias last: [1,1].[1,2^24] + 1 = 2^24",
      b(itF.linear(t(ONE, 0x4B800000).view(1, 2), t(ONE, ONE).view(1, 2), t(ONE))), [0x4B800000])

# ---- §5.4 / §5.5 softmax cross-entropy -----------------------------------------------------
z = t(0x3F800000, 0x40000000, 0x40400000, 0x3F800000).view(1, 4)
probs, losses = itF.softmax_cross_entropy(z, torch.tensor([1]))
check("§5.4 probs", b(probs), [0x3DA92753, 0x3E65E752, 0x3F1C3C56, 0x3DA92753])
check("§5.4 loss", b(losses), [0x3FBF3539])
check("§5.5 dz with s = 1/64", b(itF.softmax_cross_entropy_grad(probs, torch.tensor([1]), 1 / 64)),
      [0x3AA92753, 0xBC46862C, 0x3C1C3C56, 0x3AA92753])
zz = z.clone().requires_grad_(True)
loss = itF.cross_entropy(zz, torch.tensor([1]))
loss.backward()
check("§5.4 cross_entropy (mean over one row) = the row's loss", b(loss), [0x3FBF3539])
check("§5.5 cross_entropy backward, scale RN(1/1)", b(zz.grad),
      b(itF.softmax_cross_entropy_grad(probs, torch.tensor([1]), 1.0)))

# ---- §5.9 / §5.10 ReLU ---------------------------------------------------------------------------
x = t(0xBF800000, 0x80000000, 0x00000000, 0x00000001, 0x7FC00000, 0x40400000).requires_grad_(True)
y = itF.relu(x)
got = b(y)
check("§5.9 relu (NaN passes)", [got[i] for i in (0, 1, 2, 3, 5)] + [int((got[4] & 0x7FFFFFFF) > 0x7F800000)],
      [0, 0, 0, 1, 0x40400000, 1])
y.backward(torch.full((6,), 5.0))
check("§5.10 relu backward: relu'(0) = 0", b(x.grad), [0, 0, 0, 0x40A00000, 0, 0x40A00000])

# ---- §5.3/§5.6 tanh through autograd --------------------------------------------------------------
x = t(0xBEAF61CA).requires_grad_(True)  # z1[0] of §11.6
y = itF.tanh(x)
check("§11.6 h[0] = tanh(z1[0])", b(y), [0xBEA8D46F])
y.backward(t(ONE))
check("§5.6 tanh backward = 1 ⊖ y⊗y for dy = 1", b(x.grad), b(itF.tanh_grad(y.detach(), t(ONE))))

# ---- §5.11 / §5.12 attention ------------------------------------------------------------------------
c = it.random.from_bits(0x3E3504F3)
q = torch.tensor([[1.0, 2.0]], requires_grad=True)
k = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]], requires_grad=True)
v = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]], requires_grad=True)
wts, z = itF.attention_forward(q.detach(), k.detach(), v.detach(), 1, c)
check("§5.11 attention weights", b(wts), [0x3E8D88ED, 0x3EA8E716, 0x3EC98FFE])
check("§5.11 attention output", b(z), [0x404F01C5, 0x408780E2])
zz = itF.attention(q, k, v, 1, c)
zz.backward(torch.tensor([[1.0, 0.5]]))
check("§5.12 dq", b(q.grad), [0x3CA80748, 0x3E27B87D])
check("§5.12 dk", b(k.grad), [0xBE27B882, 0xBEA7B882, 0xBCA8076E, 0xBD28076E, 0x3E3CB96B, 0x3EBCB96B])
check("§5.12 dv", b(v.grad), [0x3E8D88ED, 0x3E0D88ED, 0x3EA8E716, 0x3E28E716, 0x3EC98FFE, 0x3E498FFE])

# ---- an independent oracle: binary32 by rounding each binary64 result (exact for
# +, -, *, / since binary64 has more than 2*24+2 bits; spec-only, no library)
import ctypes  # noqa: E402


def r32(v):
    return ctypes.c_float(v).value


def oracle_dot(a, bb):
    acc = 0.0
    for u, w_ in zip(a, bb):
        acc = r32(acc + r32(u * w_))
    return acc


gen = torch.Generator().manual_seed(7)
X = torch.randn(2, 3, 5, generator=gen)          # leading dimensions (2, 3): 6 rows
W = torch.randn(4, 5, generator=gen)
B = torch.randn(4, generator=gen)
DY = torch.randn(2, 3, 4, generator=gen)
Xr, Wr, Br, DYr = X.reshape(6, 5).tolist(), W.tolist(), B.tolist(), DY.reshape(6, 4).tolist()
xg, wg, bg = X.clone().requires_grad_(True), W.clone().requires_grad_(True), B.clone().requires_grad_(True)
Y = itF.linear(xg, wg, bg)
Y.backward(DY)
check("§5.2 linear over (2, 3, 5) rows = the oracle (dot ascending, then the bias)",
      b(Y), b(torch.tensor([[r32(oracle_dot(Xr[r], Wr[o]) + Br[o]) for o in range(4)] for r in range(6)])))
check("§5.7 dX = the oracle (SUM over o ascending)", b(xg.grad),
      b(torch.tensor([[oracle_dot([DYr[r][o] for o in range(4)], [Wr[o][i] for o in range(4)]) for i in range(5)]
                      for r in range(6)])))
check("§5.7 dW = the oracle (SUM over rows ascending from +0)", b(wg.grad),
      b(torch.tensor([[oracle_dot([DYr[r][o] for r in range(6)], [Xr[r][i] for r in range(6)]) for i in range(5)]
                      for o in range(4)])))
check("§5.7 db = the oracle", b(bg.grad), b(torch.tensor([oracle_dot([DYr[r][o] for r in range(6)], [1.0] * 6)
                                                       for o in range(4)])))
Z = torch.randn(5, 7, generator=gen)
T = torch.tensor([0, 6, 3, 3, 1])
probs, losses = itF.softmax_cross_entropy(Z, T)
zs = Z.clone().requires_grad_(True)
total = itF.cross_entropy(zs, T, reduction="sum")
total.backward(torch.tensor(2.0))
check("cross_entropy 'sum' = SUM of the rows' losses (ascending, from +0)", b(total.item()),
      b(oracle_dot(losses.tolist(), [1.0] * 5)))
check("cross_entropy 'sum' backward: scale = the incoming gradient", b(zs.grad),
      b(itF.softmax_cross_entropy_grad(probs, T, 2.0)))
zn = Z.clone().requires_grad_(True)
each = itF.cross_entropy(zn, T, reduction="none")
g_rows = torch.tensor([1.0, 0.5, 0.25, 2.0, -1.0])
each.backward(g_rows)
check("cross_entropy 'none' = the rows' losses", b(each), b(losses))
check("cross_entropy 'none' backward: row r scaled by its own gradient", b(zn.grad),
      sum((b(itF.softmax_cross_entropy_grad(probs[r:r + 1], T[r:r + 1], float(g_rows[r]))) for r in range(5)), []))
zm = Z.clone().requires_grad_(True)
mean = itF.cross_entropy(zm, T)
mean.backward()
check("cross_entropy 'mean' = SUM ⊗ RN(1/5)", b(mean.item()), b(r32(oracle_dot(losses.tolist(), [1.0] * 5) * r32(1 / 5))))
check("cross_entropy 'mean' backward: scale RN(1/5)", b(zm.grad), b(itF.softmax_cross_entropy_grad(probs, T, r32(1 / 5))))
A = torch.randn(4, 3, 2, generator=gen).requires_grad_(True)
P_ = torch.randn(3, 2, generator=gen).requires_grad_(True)
S_ = itF.add(A, P_)
DS = torch.randn(4, 3, 2, generator=gen)
S_.backward(DS)
check("add broadcasting (3, 2) over (4, 3, 2) = elementwise sums", b(S_), b(A.detach() + P_.detach()))
check("add: the broadcast operand's gradient is the SUM over the 4 rows in order", b(P_.grad),
      b(torch.tensor([[oracle_dot([DS[n, t, j].item() for n in range(4)], [1.0] * 4) for j in range(2)]
                      for t in range(3)])))

# ---- §6 random numbers ------------------------------------------------------------------------------
check("§6.1 philox KAT 2", it.random.philox4x32_10([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2).tolist(),
      [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD])
S = 0x69736F747261696E
check("§6.2 stream 0 words 0..7", it.random.words(S, 0, 0, 8).tolist(),
      [0xCDBD248C, 0x10B333E9, 0xF73AC66E, 0x82FD0164, 0xD4953BC9, 0xD6378EDE, 0x257E9F68, 0x0C94A720])
check("§6.2 stream 5 word 2^34 + 1", it.random.words(S, 5, (1 << 34) + 1, 1).tolist(), [0x5C443741])
check("§6.3 u(r)", it.random.u32_to_symmetric([0, 0x100, 0x80000000, 0xFFFFFFFF]).view(np.uint32).tolist(),
      [0xBF800000, 0xBF7FFFFE, 0, 0x3F7FFFFE])
check("§6.4 below(r, 2623)", it.random.below([0, 0x12345678, 0x80000000, 0xFFFFFFFF], 2623).tolist(),
      [0, 186, 1311, 2622])
perm = it.random.permutation(S, 11, 113 * 113)
check("§13.3 P[0..7]", perm[:8].tolist(), [9507, 12030, 2041, 7785, 120, 741, 10679, 4631])
check("§13.3 SHA-256 of the permutation", hashlib.sha256(perm.numpy().astype("<u4").tobytes()).hexdigest(),
      "37c5c219409cac8871d5266fd2f33cd695c4ce6e400e38d4ba1979c866daac7d")

# ---- constants ------------------------------------------------------------------------------------
check("§13.1 attention scale RN(1/sqrt(32))", b(itF.default_attention_scale(32)), 0x3E3504F3)
check("§13.1 loss scale RN(1/3831)", b(itF._inv(3831)), 0x3988DAA5)
check("§13.1 test loss scale RN(1/8938)", b(itF._inv(8938)), 0x38EAA21D)
check("§11.1 loss scale 1/64", b(itF._inv(64)), 0x3C800000)
opt = it.optim.AdamW([nn.Parameter(torch.zeros(1))], lr=1e-3, betas=(0.9, 0.98), eps=1e-8, weight_decay=1.0)
k_ = opt._consts(opt.param_groups[0])
check("§13.1 AdamW constants from torch-style hyper-parameters (lr, b1, b2, eps, decay, c1, c2)",
      [b(getattr(k_, f)) for f in ("lr", "beta1", "beta2", "eps", "decay", "one_minus_beta1", "one_minus_beta2")],
      [0x3A83126F, 0x3F666666, 0x3F7AE148, 0x322BCC77, 0x3F7FBE77, 0x3DCCCCD0, 0x3CA3D700])

# ---- §7.2 AdamW through the optimizer ------------------------------------------------------------------
p = nn.Parameter(torch.tensor([0.5]))
opt = it.optim.AdamW([p], lr=1e-3, betas=(0.9, 0.98), eps=1e-8, weight_decay=1.0)
table = []
for g in (0.25, -0.125, 0.0):
    p.grad = torch.tensor([g])
    opt.step()
    st = opt.state[p]
    table.append((b(st["beta1_power"].item()), b(st["beta2_power"].item()), b(st["exp_avg"])[0],
                  b(st["exp_avg_sq"])[0], b(p)[0]))
check("§7.2 AdamW table, steps 1-3 (pi1, pi2, m, v, p)", table,
      [(0x3F666666, 0x3F7AE148, 0x3CCCCCD0, 0x3AA3D700, 0x3EFF3B65),
       (0x3F4F5C28, 0x3F75DCC7, 0x3C23D70C, 0x3AC985E4, 0x3EFED70B),
       (0x3F3A9FBD, 0x3F70F1F7, 0x3C1374BE, 0x3AC57E18, 0x3EFE7A9C)])
check("torch's state_dict shape", (sorted(opt.state_dict()), sorted(opt.state_dict()["state"][0])),
      (["param_groups", "state"], ["beta1_power", "beta2_power", "exp_avg", "exp_avg_sq", "step"]))
check("torch's param_groups keys", sorted(opt.param_groups[0]),
      sorted(torch.optim.AdamW([nn.Parameter(torch.zeros(1))]).param_groups[0]))

# ---- the profiles through the example models ------------------------------------------------------------
import addmod113  # noqa: E402
import mlp13k  # noqa: E402

corpus = mlp13k.load_corpus()
model, loss_fn, opt = mlp13k.make()
check("§11.4 mlp13k step-0 digest", it.checkpoint.digest(model),
      "05a8aa50bacb79781ff5a30c4d167dacd992201238083eb70e3ed5528ffa3fd6")
xb, yb = mlp13k.batch(1, corpus)
check("§11.5 step-1 batch SHA-256", hashlib.sha256(bytes(v for pair in zip(xb.tolist(), yb.tolist()) for v in pair)).hexdigest(),
      "5106eaa7bd5546d7c97cef2927707697e7ef75ec23793590c31457eff43b9bcf")
loss = loss_fn(model(xb), yb)
loss.backward()
check("§11.6 mlp13k step-1 loss", b(loss.item()), 0x40B15A22)
check("§11.6 mlp13k step-1 gradient SHA-256 (loss.backward())", sha([p.grad for p in model.parameters()]),
      "67447d2456643f96278065ee1bfea834a4dd242f98548119b76e2aeaecec3d14")
opt.step()
check("§11.8 mlp13k step-1 digest (SGD)", it.checkpoint.digest(model),
      "8edc3938536be6aa15491440735ffb38abd87d3a3af735302686773415f828c1")

x_tr, y_tr, _, _ = addmod113.data()
model, loss_fn, opt = addmod113.make()
check("§13.4 addmod113 step-0 digest", it.checkpoint.digest(model),
      "242fefbef530d05715b7f95e2df7e194e0d9afd9e3c1cf125a402814b6628254")
with torch.no_grad():
    logits = model(x_tr[:1])
check("§13.5 pair 0 logits[0..3]", b(logits[0, :4]), [0xBE6B97B4, 0xBD8D0B34, 0xBF054380, 0x3B1D0644])
check("§13.5 pair 0 logit of the label 99", b(logits[0, 99:100]), [0x3D873DA8])
loss = loss_fn(model(x_tr[:8]), y_tr[:8])
loss.backward()
check("§13.5 loss of the first 8 pairs", b(loss.item()), 0x409D9F6E)
check("§13.5 8-pair gradient SHA-256", sha([p.grad for p in model.parameters()]),
      "d8124b285d28a99339c9136f18cd4bfba6c75faa7ce3b3afbaae3b7bb72892eb")
for threads in (1, 2):
    torch.set_num_threads(threads)
    opt.zero_grad()
    loss = loss_fn(model(x_tr), y_tr)
    loss.backward()
    check("§13.5 step-1 loss, %d thread(s)" % threads, b(loss.item()), 0x4098A2BF)
    check("§13.5 step-1 gradient SHA-256, %d thread(s)" % threads, sha([p.grad for p in model.parameters()]),
          "f96377181d997871937f56684775948ed7c35b8a0565d4ce0b9ee32f83789385")
torch.set_num_threads(1)
opt.step()
check("§13.8 addmod113 step-1 digest (AdamW)", it.checkpoint.digest(model),
      "bc6f442269de5a4a78c8f385b1fb8bbdc7a6488c0a9ebe2734ea35d5f3f930e5")

# another kernel set of the library, in a process of its own (chosen at load)
code = ("import sys; sys.path[:0] = [%r, %r]; import mlp13k, isotrain.torch as it; m, l, o = mlp13k.make(); "
        "c = mlp13k.load_corpus(); x, y = mlp13k.batch(1, c); l(m(x), y).backward(); o.step(); "
        "print(it.kernels(), it.checkpoint.digest(m))" % (os.path.join(HERE, ".."), os.path.join(HERE, "..", "examples")))
r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, ISOTRAIN_KERNELS="portable"),
                   capture_output=True, text=True)
check("ISOTRAIN_KERNELS=portable: the same step-1 digest", r.stdout.split(),
      ["portable", "8edc3938536be6aa15491440735ffb38abd87d3a3af735302686773415f828c1"])
r = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); import isotrain.torch"
                    % os.path.join(HERE, "..")], env=dict(os.environ, ISOTRAIN_KERNELS="nosuch"),
                   capture_output=True, text=True)
check("ISOTRAIN_KERNELS=nosuch is refused at import, never a fallback",
      (r.returncode != 0, "ISOTRAIN_KERNELS='nosuch' is unknown to this build" in r.stderr), (True, True))

# ---- a run resumed from state_dicts is the uninterrupted run ------------------------------------------------
def am_steps(model, opt, n):
    for _ in range(n):
        opt.zero_grad()
        loss_fn(model(x_tr[:64]), y_tr[:64]).backward()
        opt.step()


m1, _, o1 = addmod113.make()
am_steps(m1, o1, 3)
m2, _, o2 = addmod113.make()
am_steps(m2, o2, 2)
m3, _, o3 = addmod113.make(seed=1)  # other weights, then loaded
m3.load_state_dict(m2.state_dict())
o3.load_state_dict(o2.state_dict())
am_steps(m3, o3, 1)
check("AdamW resumed from model and optimizer state_dicts = uninterrupted (3 steps)",
      it.checkpoint.digest(m3), it.checkpoint.digest(m1))

# ---- refusals ------------------------------------------------------------------------------------------------
lin = it.nn.Linear(4, 3)
raises("float64 input is refused, naming tensor and dtype", TypeError,
       lambda: lin(torch.zeros(2, 4, dtype=torch.float64)), "'input'", "torch.float64")
raises("a non-contiguous input is refused, naming its stride", ValueError,
       lambda: lin(torch.zeros(4, 2).t()), "'input'", "not contiguous", "stride (1, 2)")
raises("a tensor on another device is refused, naming it", ValueError,
       lambda: lin(torch.zeros(2, 4, device="meta")), "'input'", "device meta")
raises("a float64 model is refused", TypeError,
       lambda: it.nn.Linear(4, 3).double()(torch.zeros(2, 4, dtype=torch.float64)), "torch.float64")
raises("a token out of range is refused, naming the element", IndexError,
       lambda: it.nn.Embedding(10, 4)(torch.tensor([1, 10, 2])), "'input'", "element 1 is 10", "[0, 10)")
raises("a negative target is refused", IndexError,
       lambda: it.nn.CrossEntropyLoss()(torch.zeros(2, 3), torch.tensor([0, -1])), "'target'", "element 1 is -1")
raises("Embedding(padding_idx=0) is refused", NotImplementedError,
       lambda: it.nn.Embedding(10, 4, padding_idx=0)(torch.tensor([1])), "padding_idx=0")
raises("CrossEntropyLoss(label_smoothing=0.1) is refused", NotImplementedError,
       lambda: it.nn.CrossEntropyLoss(label_smoothing=0.1)(torch.zeros(2, 3), torch.tensor([0, 1])), "label_smoothing")
raises("SGD(momentum=0.9) is refused", NotImplementedError,
       lambda: it.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1, momentum=0.9), "momentum=0.9")
raises("AdamW(amsgrad=True) is refused", NotImplementedError,
       lambda: it.optim.AdamW([nn.Parameter(torch.zeros(1))], amsgrad=True), "amsgrad=True")
raises("exp with a gradient wanted is refused (no spec clause for its backward)", RuntimeError,
       lambda: itF.exp(torch.zeros(2, requires_grad=True)), "no backward")


# Every ctypes mirror of a C struct matches the library's compiled layout
# (_layout.c): the import checked it; the controls show the check fires on
# a mirror that lost its last field, and on one whose fields are swapped.
from isotrain.torch import _lib, recipe  # noqa: E402


class _LostLast(ctypes.Structure):
    _fields_ = recipe._Recipe._fields_[:-1]


class _Swapped(ctypes.Structure):
    _fields_ = list(reversed(_lib.AdamWClock._fields_))


check("the recipe reader's mirror loads a recipe (heads of tiny.json)",
      recipe.load(os.path.join(HERE, "..", "..", "..", "spec", "recipes", "tiny.json")).heads, 4)
raises("layout control: a mirror without the recipe's last field is refused, naming it", _lib.LibraryError,
       lambda: _lib.check_layout({"it_gpt_recipe": _LostLast}), "it_gpt_recipe.sha256", "absent")
raises("layout control: a mirror with its fields swapped is refused, naming the first", _lib.LibraryError,
       lambda: _lib.check_layout({"it_adamw_clock": _Swapped}), "it_adamw_clock.beta1_pow", "offset 0, 4 bytes")
raises("layout control: a struct the library does not describe is refused", _lib.LibraryError,
       lambda: _lib.check_layout({"it_no_such": _Swapped}), "does not describe struct it_no_such")


class WithAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.blocks = nn.ModuleList([nn.MultiheadAttention(8, 2, batch_first=True),
                                     nn.LayerNorm(8, elementwise_affine=False)])
        self.act = nn.GELU()  # the exact (erf) GELU: only approximate='tanh' has a clause (§5.16)


m = WithAttention()
raises("convert refuses unsupported modules by class and path", it.UnsupportedModuleError, lambda: it.convert(m),
       "blocks.0: torch.nn.modules.activation.MultiheadAttention", "ResidualSelfAttention",
       "blocks.1: torch.nn.modules.normalization.LayerNorm", "elementwise_affine=False",
       "act: torch.nn.modules.activation.GELU", "approximate='none'",
       "nothing was converted")
check("... and converts nothing (the Linear stays torch's)", type(m.proj) is nn.Linear, True)


class MyLinear(nn.Linear):
    def forward(self, x):
        return torch.nn.functional.linear(x, self.weight) * 2


raises("convert refuses a subclass of a supported class", it.UnsupportedModuleError,
       lambda: it.convert(nn.Sequential(MyLinear(2, 2))), "0: __main__.MyLinear", "a subclass of torch.nn.modules.linear.Linear")
raises("convert refuses ReLU(inplace=True)", it.UnsupportedModuleError,
       lambda: it.convert(nn.Sequential(nn.ReLU(inplace=True))), "0: torch.nn.modules.activation.ReLU", "inplace=True")
seq = nn.Sequential(nn.Embedding(5, 4), nn.Linear(4, 3), nn.Tanh())
before = [id(p) for p in seq.parameters()]
keys = list(seq.state_dict())
it.convert(seq)
check("convert swaps in place: classes", [type(mm).__name__ + "@" + type(mm).__module__ for mm in seq],
      ["Embedding@isotrain.torch.nn", "Linear@isotrain.torch.nn", "Tanh@isotrain.torch.nn"])
check("convert keeps the parameter objects and state_dict keys", ([id(p) for p in seq.parameters()], list(seq.state_dict())),
      (before, keys))


# §7.3 over a list of tensors in place (_tensors.c) against the library's one
# flat array: the same norm and the same clipped bits, in the two branches
# (k < 1 scales, k >= 1 leaves alone), with subnormal, signed-zero, odd-sized
# and large elements, and a non-finite gradient (NaN norm: nothing scaled)
def _p64():
    q = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
    q.grad = torch.ones(3, dtype=torch.float64)
    return q


rng = np.random.default_rng(7)
for label, scale, poison in (("clipped", 3.0, None), ("unclipped", 1e-3, None), ("NaN", 1.0, np.nan),
                             ("inf", 1.0, np.inf)):
    shapes = [(7, 5), (13,), (1,), (64, 3), (2, 2, 9)]
    gs = [torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32)) for s in shapes]
    gs[1][0], gs[1][1], gs[2][0] = -0.0, 1e-40, 1e3 if label == "clipped" else 0.0
    if poison is not None:
        gs[3][1][2] = float(poison)
    params = [torch.nn.Parameter(torch.zeros(g.shape)) for g in gs]
    for q, g in zip(params, gs):
        q.grad = g.clone()
    flat = torch.cat([g.reshape(-1) for g in gs])
    want = it.clip_flat_(flat, 1.0)
    got = it.clip_grad_norm_(params, 1.0)
    check("clip_grad_norm_ in place over %d tensors = it_clip_grad_norm on their concatenation (%s): "
          "norm and gradient bits" % (len(gs), label),
          (b(float(got)), b(torch.cat([q.grad.reshape(-1) for q in params]))), (b(want), b(flat)))
raises("clip_grad_norm_ refuses a float64 gradient", TypeError,
       lambda: it.clip_grad_norm_([_p64()], 1.0), "parameter.grad", "torch.float64")

seq = nn.Sequential(nn.Linear(5, 3), nn.LayerNorm(3))
with torch.no_grad():
    seq[0].weight[0, :3] = t(0x80000000, 0x7fc00001, 0x00000001)[:]  # -0, a NaN payload, a subnormal
check("param_bytes: the parameters' little-endian binary32 bytes in one library call = numpy's, byte for byte",
      it.checkpoint.param_bytes(seq),
      b"".join(np.ascontiguousarray(q.detach().numpy(), dtype="<f4").tobytes() for q in seq.parameters()))

print("test_package: %d check(s) failed" % len(failures) if failures else "test_package: all checks passed")
sys.exit(1 if failures else 0)
