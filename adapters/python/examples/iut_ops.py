"""The `ops` verb of the isotrain.torch IUT (spec/iut-protocol.md P3-P6):
every op of P5 answered through the same isotrain.torch functions the
training runs: the layers' ops through isotrain.torch.functional (the
autograd functions' forward, and the clauses their backward is made of),
sgd and adamw through isotrain.torch.optim, the random ops through
isotrain.torch.random, init and batch through the example models'
init_/batch, and mlp13k_loss_grad / addmod113_loss_grad through the example
models themselves (forward, loss.backward()). So the runner's op vectors,
and its replay of a differing step, test the code a user's training runs.
"""

import hashlib
import sys

import numpy as np
import torch

import iut_wire as w
import isotrain.torch as it
from isotrain.torch import functional as itF

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


class Req:
    """One parsed request: the inputs by key (P5: any order, unknown keys ignored)."""

    def __init__(self, pairs, id_len):
        self.kv = dict(pairs)
        self.id_len = id_len

    def raw(self, key):
        if key not in self.kv:
            raise w.BadRequest("missing input '%s'" % key)
        return self.kv[key]

    def f32(self, key, n=None, why=""):
        a = w.f32s(key, self.raw(key))
        if n is not None and a.size != n:
            raise w.BadRequest("input '%s' has %d elements, expected %d (%s)" % (key, a.size, n, why))
        return torch.from_numpy(a.copy())

    def u32(self, key, n=None, why=""):
        a = w.u32s(key, self.raw(key))
        if n is not None and a.size != n:
            raise w.BadRequest("input '%s' has %d elements, expected %d (%s)" % (key, a.size, n, why))
        return a

    def int(self, key, lo, hi):
        return w.integer(key, self.raw(key), lo, hi)

    def ints(self, key, hi):
        return w.integers(key, self.raw(key), hi)

    def u64(self, key):
        return w.u64(key, self.raw(key))

    def name(self, key):
        return w.name(key, self.raw(key))


def out(**kv):
    return kv


def f(t):
    """a float32 tensor (any shape) -> its P4 encoding"""
    return w.put_f32s(t.detach().reshape(-1).numpy())


# ---- spec §3 ------------------------------------------------------------------------

def op_exp(r):
    return out(y=f(itF.exp(r.f32("x"))))


def op_log(r):
    return out(y=f(itF.log(r.f32("x"))))


def op_tanh(r):
    return out(y=f(itF.tanh(r.f32("x"))))


def op_sqrt(r):
    return out(y=f(itF.sqrt(r.f32("x"))))


# ---- spec §4, §5 ---------------------------------------------------------------------

def op_dot(r):
    a = r.f32("a")
    b = r.f32("b", a.numel(), "as many as a")
    return out(y=w.put_f32s(np.array([itF.dot(a, b)], dtype=np.float32)))


def _in_out(r):
    return r.int("in", 1, M32), r.int("out", 1, M32)


def op_linear_forward(r):
    n_in, n_out = _in_out(r)
    wt = r.f32("w", n_in * n_out, "out*in").view(n_out, n_in)
    b = r.f32("b", n_out, "out")
    x = r.f32("x", n_in, "in").view(1, n_in)
    return out(y=f(itF.linear(x, wt, b)))


def op_linear_backward(r):
    n_in, n_out = _in_out(r)
    wt = r.f32("w", n_in * n_out, "out*in").view(n_out, n_in)
    x = r.f32("x", n_in, "in").view(1, n_in)
    dy = r.f32("dy", n_out, "out").view(1, n_out)
    dw = r.f32("dw", n_in * n_out, "out*in").view(n_out, n_in)
    db = r.f32("db", n_out, "out")
    itF.linear_grad_params_(dw, db, dy, x)  # accumulated into the given dw, db (P5)
    dx = itF.linear_grad_input(dy, wt)
    return out(dw=f(dw), db=f(db), dx=f(dx))


def op_tanh_backward(r):
    y = r.f32("y")
    dy = r.f32("dy", y.numel(), "as many as y")
    return out(dx=f(itF.tanh_grad(y, dy)))


def op_relu_forward(r):
    return out(y=f(itF.relu(r.f32("x"))))


def op_relu_backward(r):
    x = r.f32("x")
    dy = r.f32("dy", x.numel(), "as many as x")
    return out(dx=f(itF.relu_grad(x, dy)))


def op_softmax_xent_forward(r):
    z = r.f32("z")
    t = r.int("target", 0, z.numel() - 1)
    probs, losses = itF.softmax_cross_entropy(z.view(1, -1), torch.tensor([t]))
    return out(probs=f(probs), loss=f(losses))


def op_softmax_xent_backward(r):
    p = r.f32("probs")
    t = r.int("target", 0, p.numel() - 1)
    s = r.f32("scale", 1, "one value")
    return out(dz=f(itF.softmax_cross_entropy_grad(p.view(1, -1), torch.tensor([t]), float(s[0]))))


def _table(r, key):
    dim = r.int("dim", 1, M32)
    e = r.f32(key)
    if e.numel() % dim:
        raise w.BadRequest("input '%s' has %d elements, not a multiple of dim=%d (rows*dim)" % (key, e.numel(), dim))
    return dim, e.view(-1, dim)


def op_embedding_forward(r):
    dim, e = _table(r, "e")
    t = r.int("token", 0, e.shape[0] - 1)
    return out(out=f(itF.embedding(torch.tensor([t]), e)))


def op_embedding_backward(r):
    dim, de = _table(r, "de")
    tokens = r.ints("tokens", de.shape[0] - 1)
    dout = r.f32("dout", len(tokens) * dim, "m*dim").view(len(tokens), dim)
    itF.embedding_grad_(de, torch.tensor(tokens), dout)  # positions in the order given (spec §5.8)
    return out(de=f(de))


def _heads_width_t(r):
    heads = r.int("heads", 1, 1 << 16)
    width = r.int("width", 1, 1 << 16)
    hw = heads * width
    if hw > 1 << 16:
        raise w.BadRequest("heads*width = %d is above 65536" % hw)
    c = float(r.f32("c", 1, "one value")[0])
    q = r.f32("q", hw, "heads*width")
    k = r.f32("k")
    v = r.f32("v", k.numel(), "as many as k")
    if k.numel() % hw or not 1 <= k.numel() // hw <= 16:
        raise w.BadRequest("input 'k' has %d elements: not t*heads*width with 1 <= t <= 16" % k.numel())
    t = k.numel() // hw
    return heads, width, t, c, q.view(1, hw), k.view(1, t, hw), v.view(1, t, hw)


def op_attention_forward(r):
    heads, width, t, c, q, k, v = _heads_width_t(r)
    weights, z = itF.attention_forward(q, k, v, heads, c)
    return out(w=f(weights), z=f(z))


def op_attention_backward(r):
    heads, width, t, c, q, k, v = _heads_width_t(r)
    weights = r.f32("w", heads * t, "heads*t").view(1, heads, t)
    dz = r.f32("dz", heads * width, "heads*width").view(1, heads * width)
    dq, dk, dv = itF.attention_backward(q, k, v, weights, dz, heads, c)
    return out(dq=f(dq), dk=f(dk), dv=f(dv))


# ---- spec §5.13-§5.20 (1.2.0) ------------------------------------------------------------

# The forward outputs of the gptchar layers come from what the models call
# (it.nn.LayerNorm, it.nn.GELU, functional.add, functional.causal_attention),
# so the runner's replay of a differing step names a layer a model got wrong
# (tests/mutant_nanogpt.py); the saved values (mean, rstd, w) and the
# backward from the clauses those are made of.

def op_residual_add(r):
    x = r.f32("x")
    return out(z=f(itF.add(x, r.f32("y", x.numel(), "as many as x"))))


def _layer_norm_module(wt, b, eps):
    m = it.nn.LayerNorm(wt.numel(), eps=eps)
    m.weight.data, m.bias.data = wt, b
    return m


def _ln_rows(r, n, key):
    x = r.f32(key)
    if x.numel() % n:
        raise w.BadRequest("input '%s' has %d elements, not a multiple of n=%d (rows*n)" % (key, x.numel(), n))
    return x.view(-1, n)


def op_layernorm_forward(r):
    n = r.int("n", 1, 1 << 20)
    x = _ln_rows(r, n, "x")
    wt, b = r.f32("w", n, "n"), r.f32("b", n, "n")
    eps = float(r.f32("eps", 1, "one value")[0])
    _, _, mean, rstd = itF.layer_norm_forward(x, wt, b, eps)
    return out(y=f(_layer_norm_module(wt, b, eps)(x)), mean=f(mean), rstd=f(rstd))


def op_layernorm_backward(r):
    n = r.int("n", 1, 1 << 20)
    x = _ln_rows(r, n, "x")
    wt = r.f32("w", n, "n")
    eps = float(r.f32("eps", 1, "one value")[0])
    dy = r.f32("dy", x.numel(), "rows*n").view_as(x)
    dw, db = r.f32("dw", n, "n"), r.f32("db", n, "n")
    _, xhat, _, rstd = itF.layer_norm_forward(x, wt, torch.zeros(n), eps)  # x̂ and r by §5.14 (b unused)
    dx = itF.layer_norm_backward_(xhat, rstd, wt, dy, dw, db)  # dw, db continued (P5)
    return out(dw=f(dw), db=f(db), dx=f(dx))


def op_gelu_forward(r):
    return out(y=f(it.nn.GELU(approximate="tanh")(r.f32("x"))))


def op_gelu_backward(r):
    x = r.f32("x")
    return out(dx=f(itF.gelu_backward(x, r.f32("dy", x.numel(), "as many as x"))))


def _causal(r):
    heads = r.int("heads", 1, 1 << 16)
    width = r.int("width", 1, 1 << 16)
    hw = heads * width
    if hw > 1 << 16:
        raise w.BadRequest("heads*width = %d is above 65536" % hw)
    c = float(r.f32("c", 1, "one value")[0])
    q = r.f32("q")
    if q.numel() % hw or not 1 <= q.numel() // hw <= 64:
        raise w.BadRequest("input 'q' has %d elements: not t*heads*width with 1 <= t <= 64" % q.numel())
    t = q.numel() // hw
    k = r.f32("k", q.numel(), "as many as q")
    v = r.f32("v", q.numel(), "as many as q")
    return heads, t, c, q.view(1, t, hw), k.view(1, t, hw), v.view(1, t, hw)


def op_causal_attention_forward(r):
    heads, t, c, q, k, v = _causal(r)
    weights, _ = itF.causal_attention_forward(q, k, v, heads, c)
    return out(w=f(weights), z=f(itF.causal_attention(q, k, v, heads, c)))


def op_causal_attention_backward(r):
    heads, t, c, q, k, v = _causal(r)
    weights = r.f32("w", t * heads * t, "t*heads*t").view(1, t, heads, t)
    dz = r.f32("dz", q.numel(), "t*heads*width").view_as(q)
    dq, dk, dv = itF.causal_attention_backward(q, k, v, weights, dz, heads, c)
    return out(dq=f(dq), dk=f(dk), dv=f(dv))


def op_tied_embedding_grad(r):
    dim = r.int("dim", 1, M32)
    fr = r.f32("f")
    if fr.numel() % dim:
        raise w.BadRequest("input 'f' has %d elements, not a multiple of dim=%d (m*dim)" % (fr.numel(), dim))
    m = fr.numel() // dim
    dl = r.f32("dlogits")
    if dl.numel() % m or dl.numel() == 0:
        raise w.BadRequest("input 'dlogits' has %d elements, not a multiple of m=%d (m*vocab)" % (dl.numel(), m))
    vocab = dl.numel() // m
    tokens = r.ints("tokens", vocab - 1)
    if len(tokens) != m:
        raise w.BadRequest("input 'tokens' has %d elements, expected m=%d" % (len(tokens), m))
    dx = r.f32("dx", m * dim, "m*dim").view(m, dim)
    return out(de=f(itF.tied_embedding_grad(fr.view(m, dim), dl.view(m, vocab), torch.tensor(tokens), dx, vocab)))


def op_clip_grad_norm(r):
    g = r.f32("g")
    max_norm, eps = float(r.f32("max_norm", 1, "one value")[0]), float(r.f32("eps", 1, "one value")[0])
    if eps != it.clip.EPS:  # torch's signature has no ε: another one through the clause itself
        norm = it.clip_flat_(g, max_norm, eps)
    else:  # the profile's ε (§14.1): through the function the training calls
        p = torch.nn.Parameter(torch.empty(g.shape))
        p.grad = g
        norm = float(it.clip_grad_norm_([p], max_norm))
    return out(g=f(g), norm=w.put_f32s(np.array([norm], dtype=np.float32)))


def op_lr_schedule(r):
    total = r.int("total", 1, (1 << 24) - 1)
    step = r.int("step", 1, total)
    warmup = r.int("warmup", 1, total)
    lr_max = float(r.f32("lr_max", 1, "one value")[0])
    return out(lr=w.put_f32s(np.array([it.lr_scheduler.lr_at(step, warmup, total, lr_max)], dtype=np.float32)))


# ---- spec §7 -------------------------------------------------------------------------

def op_sgd(r):
    p = torch.nn.Parameter(r.f32("p"))
    p.grad = r.f32("g", p.numel(), "as many as p")
    lr = float(r.f32("lr", 1, "one value")[0])
    it.optim.SGD([p], lr=lr).step()
    return out(p=f(p))


def op_adamw(r):
    p = r.f32("p")
    n = p.numel()
    g = r.f32("g", n, "as many as p")
    m = r.f32("m", n, "as many as p")
    v = r.f32("v", n, "as many as p")
    t = r.int("t", 1, 1000000)
    hyper = r.f32("hyper", 5, "lr, beta1, beta2, eps, decay").tolist()
    consts = it.optim.adamw_constants(*hyper)
    clock = it._lib.AdamWClock(1.0, 1.0, 0)
    for _ in range(t - 1):  # the running products advanced t times, the last with the update
        it.optim.adamw_tick(consts, clock)
    it.optim.adamw_step_(consts, clock, p, g, m, v)
    return out(p=f(p), m=f(m), v=f(v))


# ---- spec §6 -------------------------------------------------------------------------

def op_philox(r):
    return out(out=w.put_u32s(it.random.philox4x32_10(r.u32("ctr", 4, "four counter words"),
                                                      r.u32("key", 2, "two key words"))))


def op_rng_u32(r):
    seed = r.u64("seed")
    stream = r.int("stream", 0, M32)
    index = r.u64("index")
    count = r.int("count", 1, M32)
    most = (w.MAX_LINE - 5 - r.id_len) // 9  # P5: the answer must fit in one line
    if count > most:
        raise w.BadRequest("input 'count': %d words would not fit in a 4 MiB response line (at most %d)"
                           % (count, most))
    if count - 1 > M64 - index:
        raise w.BadRequest("words index..index+count-1 run past 2^64-1")
    return out(r=w.put_u32s(it.random.words(seed, stream, index, count)))


def op_u32_to_symmetric(r):
    return out(y=w.put_f32s(it.random.u32_to_symmetric(r.u32("r"))))


def op_u32_below(r):
    words = r.u32("r")
    return out(k=w.put_u32s(it.random.below(words, r.int("n", 1, M32))))


# ---- the profiles (through the example models) ----------------------------------------

_cache = {}


def _profile(name):
    """(module, model, loss_fn, initial parameters) of an example profile,
    built once per process (the model is then reused by the loss_grad ops)."""
    if name not in _cache:
        if name == "mlp13k":
            import mlp13k as mod
        elif name == "gptchar":
            import gptchar as mod
        else:
            import addmod113 as mod
        model, loss_fn = mod.make()[:2]  # the profile's seed
        _cache[name] = (mod, model, loss_fn, [p.detach().clone() for p in model.parameters()])
    return _cache[name]


MLP13K_NAMES = {"embed": "embed.weight", "w1": "fc1.weight", "b1": "fc1.bias", "w2": "fc2.weight", "b2": "fc2.bias"}
ADDMOD_NAMES = ("w_e", "w_pos", "w_q", "w_k", "w_v", "w_o", "w_in", "b_in", "w_out", "b_out", "w_u")


def op_mlp13k_init(r):
    name = r.name("tensor")
    if name not in MLP13K_NAMES:
        raise w.BadRequest("input 'tensor': '%s' is not a tensor of mlp13k (embed, w1, b1, w2, b2)" % name)
    _, model, _, init = _profile("mlp13k")
    names = [n for n, _ in model.named_parameters()]
    return out(values=f(init[names.index(MLP13K_NAMES[name])]))


def op_mlp13k_batch(r):
    step = r.int("step", 1, M32)
    mod = _profile("mlp13k")[0]
    if "corpus" not in _cache:
        _cache["corpus"] = mod.load_corpus()
    x, y = mod.batch(step, _cache["corpus"])
    return out(x=w.put_ints(x.tolist()), y=w.put_ints(y.tolist()))


def _loss_grad(model, loss_fn, params, x, y):
    """loss and gradient of the example model at params (flat, checkpoint
    order) on one batch: the user's forward and loss.backward()."""
    ps = list(model.parameters())
    with torch.no_grad():
        k = 0
        for p in ps:
            p.copy_(params[k:k + p.numel()].view_as(p))
            k += p.numel()
        if k != params.numel():
            raise w.BadRequest("input 'params' has %d elements, the model %d" % (params.numel(), k))
    for p in ps:
        p.grad = None
    loss = loss_fn(model(x), y)
    loss.backward()
    return loss, torch.cat([p.grad.reshape(-1) for p in ps])


def op_mlp13k_loss_grad(r):
    _, model, loss_fn, _ = _profile("mlp13k")
    params = r.f32("params", 13088, "the 13,088 parameters of mlp13k")
    x = r.ints("x", 255)
    y = r.ints("y", 255)
    if len(y) != len(x):
        raise w.BadRequest("input 'y' has %d elements, expected %d (one target per input)" % (len(y), len(x)))
    loss, grads = _loss_grad(model, loss_fn, params, torch.tensor(x), torch.tensor(y))
    return out(loss=f(loss), grads=f(grads))


def op_addmod113_perm(r):
    return out(perm=w.put_u32s(it.random.permutation(r.u64("seed"), 11, 113 * 113).numpy()))


def op_addmod113_init(r):
    name = r.name("tensor")
    if name not in ADDMOD_NAMES:
        raise w.BadRequest("input 'tensor': '%s' is not a tensor of addmod113 (%s)" % (name, ", ".join(ADDMOD_NAMES)))
    init = _profile("addmod113")[3]
    return out(values=f(init[ADDMOD_NAMES.index(name)]))


def op_addmod113_loss_grad(r):
    _, model, loss_fn, _ = _profile("addmod113")
    params = r.f32("params", 226688, "the 226,688 parameters of addmod113")
    words = r.u32("pairs")  # P5: u32[m], each a pair index a*113 + b
    if int(words.max()) > 113 * 113 - 1:
        raise w.BadRequest("input 'pairs': element %d is %d, above 12768"
                           % (int(np.argmax(words > 113 * 113 - 1)), int(words.max())))
    pairs = torch.from_numpy(words.astype(np.int64))
    a, b = pairs // 113, pairs % 113
    seq = torch.stack([a, b, torch.full_like(a, 113)], dim=1)
    loss, grads = _loss_grad(model, loss_fn, params, seq, (a + b) % 113)
    return out(loss=f(loss), grads=f(grads))


GPTCHAR_BLOCK = ("ln1_w", "ln1_b", "q_w", "q_b", "k_w", "k_b", "v_w", "v_b", "o_w", "o_b", "ln2_w", "ln2_b",
                 "fc_w", "fc_b", "proj_w", "proj_b")
GPTCHAR_NAMES = (("wte", "wpe") + tuple("h%d_%s" % (l, n) for l in range(2) for n in GPTCHAR_BLOCK)
                 + ("lnf_w", "lnf_b"))  # spec §14.2, checkpoint order


def op_gptchar_init(r):
    name = r.name("tensor")
    if name not in GPTCHAR_NAMES:
        raise w.BadRequest("input 'tensor': '%s' is not a tensor of gptchar (spec §14.2: wte, wpe, h0_ln1_w, ..., "
                           "lnf_b)" % name)
    return out(values=f(_profile("gptchar")[3][GPTCHAR_NAMES.index(name)]))


def op_gptchar_batch(r):
    step = r.int("step", 1, M32)
    mod = _profile("gptchar")[0]
    if "gptchar_corpus" not in _cache:
        _cache["gptchar_corpus"] = mod.load_corpus()
    x, y = mod.batch(step, _cache["gptchar_corpus"])
    return out(x=w.put_ints(x.reshape(-1).tolist()), y=w.put_ints(y.reshape(-1).tolist()))


def op_gptchar_loss_grad(r):
    _, model, loss_fn, _ = _profile("gptchar")
    params = r.f32("params", 106176, "the 106,176 parameters of gptchar")
    x = r.ints("x", 62)
    y = r.ints("y", 62)
    if len(y) != len(x) or len(x) % 32:
        raise w.BadRequest("inputs 'x' (%d) and 'y' (%d) must have the same length, a multiple of 32"
                           % (len(x), len(y)))
    loss, grads = _loss_grad(model, loss_fn, params, torch.tensor(x).view(-1, 32), torch.tensor(y).view(-1, 32))
    return out(loss=f(loss), grads=f(grads))


# ---- P5.1 sweep ---------------------------------------------------------------------------

SWEEP_CHUNK = 1 << 22


def op_sweep(r):
    fn = r.name("fn")
    if fn not in ("exp", "log"):
        raise w.BadRequest("input 'fn': '%s' (exp or log)" % fn)
    lo = int(r.u32("lo", 1, "one value")[0])
    count = r.int("count", 1, 1 << 32)
    if lo + count > 1 << 32:
        raise w.BadRequest("lo + count = %d runs past 2^32 (no wrap, P5.1)" % (lo + count))
    apply = itF.exp if fn == "exp" else itF.log
    h = hashlib.sha256()
    for start in range(lo, lo + count, SWEEP_CHUNK):
        n = min(SWEEP_CHUNK, lo + count - start)
        x = np.arange(start, start + n, dtype=np.uint64).astype(np.uint32).view(np.float32)
        y = apply(torch.from_numpy(x)).numpy().view(np.uint32).copy()
        y[(y & 0x7FFFFFFF) > 0x7F800000] = 0x7FC00000  # every NaN as 0x7fc00000 (P5.1)
        h.update(y.astype("<u4").tobytes())
    return out(sha256=h.hexdigest().encode())


OPS = {
    "exp": op_exp, "log": op_log, "tanh": op_tanh, "dot": op_dot,
    "linear_forward": op_linear_forward, "linear_backward": op_linear_backward,
    "tanh_backward": op_tanh_backward, "softmax_xent_forward": op_softmax_xent_forward,
    "softmax_xent_backward": op_softmax_xent_backward, "embedding_forward": op_embedding_forward,
    "embedding_backward": op_embedding_backward, "sgd": op_sgd, "philox": op_philox, "rng_u32": op_rng_u32,
    "u32_to_symmetric": op_u32_to_symmetric, "u32_below": op_u32_below, "mlp13k_init": op_mlp13k_init,
    "mlp13k_batch": op_mlp13k_batch, "mlp13k_loss_grad": op_mlp13k_loss_grad, "sweep": op_sweep,
    "sqrt": op_sqrt, "relu_forward": op_relu_forward, "relu_backward": op_relu_backward,
    "attention_forward": op_attention_forward, "attention_backward": op_attention_backward, "adamw": op_adamw,
    "addmod113_perm": op_addmod113_perm, "addmod113_init": op_addmod113_init,
    "addmod113_loss_grad": op_addmod113_loss_grad,
    "residual_add": op_residual_add, "layernorm_forward": op_layernorm_forward,
    "layernorm_backward": op_layernorm_backward, "gelu_forward": op_gelu_forward, "gelu_backward": op_gelu_backward,
    "causal_attention_forward": op_causal_attention_forward,
    "causal_attention_backward": op_causal_attention_backward, "tied_embedding_grad": op_tied_embedding_grad,
    "clip_grad_norm": op_clip_grad_norm, "lr_schedule": op_lr_schedule, "gptchar_init": op_gptchar_init,
    "gptchar_batch": op_gptchar_batch, "gptchar_loss_grad": op_gptchar_loss_grad,
}
LOSS_GRAD_OPS = ("mlp13k_loss_grad", "addmod113_loss_grad", "gptchar_loss_grad")


def _diag(case, why):
    sys.stderr.write("isotrain.torch ops: id=%s: bad request: %s\n" % (case[:80].decode(errors="replace"), why))


def answer(status, line):
    """The response line (bytes, no newline) to one request line."""
    case = w.leading_id(line) or b"?"
    bad = case + b" error=bad-request"
    try:
        if status == "too-long":
            raise w.BadRequest("line longer than 4 MiB (4194304 bytes before the newline)")
        if status == "unterminated":
            raise w.BadRequest("last line has no terminating newline")
        pairs = w.split(line)
        if pairs[0][0] != "id" or not pairs[0][1]:
            raise w.BadRequest("the first token must be id=<case id>")
        if len(pairs[0][1]) > w.MAX_ID:
            raise w.BadRequest("the id has %d bytes (at most %d)" % (len(pairs[0][1]), w.MAX_ID))
        if len(pairs) < 2 or pairs[1][0] != "op":
            raise w.BadRequest("the second token must be op=<op name>")
        op = w.name("op", pairs[1][1])
        handler = OPS.get(op)
        if handler is None:
            sys.stderr.write("isotrain.torch ops: unsupported op '%s'\n" % op)
            return b"id=" + case + b" error=unsupported"
        with torch.no_grad() if op not in LOSS_GRAD_OPS else _null():
            result = handler(Req(pairs, len(case)))
        resp = b"id=" + case + b"".join(b" " + k.encode() + b"=" + v for k, v in result.items())
        if len(resp) > w.MAX_LINE:
            raise w.BadRequest("the response would be %d bytes, over the 4 MiB line limit" % len(resp))
        return resp
    except w.BadRequest as e:
        _diag(case, e)
        return b"id=" + bad
    except (ValueError, IndexError, TypeError, NotImplementedError) as e:
        # isotrain.torch refused an input the checks above let through: a bad request all the same
        _diag(case, "%s: %s" % (type(e).__name__, e))
        return b"id=" + bad


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def serve(fin, fout):
    """P3: one response per request line, flushed; 0 at end of input."""
    while True:
        status, line = w.read_line(fin)
        if status == "eof":
            return 0
        fout.write(answer(status, line) + b"\n")
        fout.flush()
        if status == "unterminated":
            return 0
