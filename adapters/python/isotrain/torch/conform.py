"""conform(model, *example_inputs): an ordinary PyTorch model, its forward
unchanged, made conforming (issue 31). The forward is traced with torch.fx;
every node that computes on a float tensor is replaced by its
isotrain.torch counterpart; one tensor used by several consumers gets an
explicit fan-out whose backward adds their gradients with the library, in
the order the forward uses the tensor; the tensors are checked on the
example inputs (torch.fx.passes.shape_prop) for dtype and layout. model
keeps its modules, parameters (the same objects, the same order) and
state_dict; only model.forward is replaced by the converted graph's.

What is recognised (PyTorch 1.13: no F.scaled_dot_product_attention yet):

- modules: Linear, Embedding, LayerNorm, GELU(approximate='tanh'), Tanh,
  ReLU, Dropout(p=0) (dropped), as convert() swaps them; a run of
  Embedding/Linear/Tanh/ReLU modules each feeding only the next becomes one
  chain call (functional_chain: the same numbers, one autograd node);
- `a + b` / torch.add (a residual, or a broadcast position embedding);
- `x @ W.T` / `x @ W.t()` / F.linear with W a parameter: linear (§5.2);
- the masked causal softmax attention as nanoGPT writes it: the heads split
  by view + transpose(1, 2), `q @ k.transpose(-2, -1)` times a constant,
  masked_fill of a lower-triangular buffer == 0 with -inf, F.softmax(dim=-1),
  `@ v`, transpose(1, 2).contiguous().view(B, T, C): causal_attention (§5.18);
- an Embedding whose weight is also the output projection: tie (§5.20);
- shape arithmetic on ints, views of contiguous tensors, size().

Everything else that touches a float tensor is refused, with the node, its
source line (the tracer records stack traces) and the reason, and nothing is
changed: an unsupported module or function, float64, a non-contiguous input
to a library op, a data-dependent branch (fx's TraceError).
"""

import dis
import inspect
import operator
import traceback

import numpy as np
import torch
import torch.nn.functional as TF
from torch import fx, nn
from torch.fx.passes.shape_prop import ShapeProp

from . import functional as F
from . import functional_block as FB
from . import nn as _itnn
from .convert import SUPPORTED
from .functional_chain import Chain, _kind as _chain_kind

__all__ = ["conform", "ConformError"]


class ConformError(ValueError):
    """What conform() could not prove conforming: [(node, source line, why)]."""

    def __init__(self, problems):
        self.problems = problems
        super().__init__("isotrain.torch.conform: %d node(s) cannot be made conforming (nothing was changed):\n%s"
                         % (len(problems), "\n".join("  %s (%s): %s" % p for p in problems)))


class _Tracer(fx.Tracer):
    """fx's tracer with source lines recorded, and tuple unpacking of a
    traced value (`B, T, C = x.size()`) found by the instruction's offset:
    torch 1.13's Proxy.__iter__ indexes the bytecode by f_lasti // 2, which
    Python 3.11's inline caches break (it then refuses every unpacking)."""
    record_stack_traces = True
    proxy_buffer_attributes = True  # the causal mask buffer is sliced by a traced length

    # factories that take sizes, not tensors: fx 1.13 does not see them called
    # with a traced size (`torch.arange(0, t)`); during a trace they record a node
    _FACTORIES = ("arange",)

    def trace(self, root, concrete_args=None):
        saved = {name: getattr(torch, name) for name in self._FACTORIES}

        def recorder(fn):
            def call(*args, **kwargs):
                if any(isinstance(a, fx.Proxy) for a in list(args) + list(kwargs.values())):
                    return self.create_proxy("call_function", fn, args, kwargs)
                return fn(*args, **kwargs)
            return call

        try:
            for name, fn in saved.items():
                setattr(torch, name, recorder(fn))
            return super().trace(root, concrete_args)
        finally:
            for name, fn in saved.items():
                setattr(torch, name, fn)

    def iter(self, obj):
        frame = inspect.currentframe().f_back.f_back  # iter <- Proxy.__iter__ <- the user's frame
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti and inst.opname == "UNPACK_SEQUENCE":
                return (obj[i] for i in range(inst.argval))
        return super().iter(obj)


def _where(node):
    """The user's source line of a node: the innermost frame of its stack
    trace (torch 1.13 records it innermost first) outside torch, with its code."""
    st = (node.meta.get("stack_trace") or getattr(node, "stack_trace", None) or "").splitlines()
    for i, line in enumerate(st):
        s = line.strip()
        if s.startswith("File ") and "/torch/" not in s and "/isotrain/torch/" not in s:
            code = st[i + 1].strip() if i + 1 < len(st) and not st[i + 1].strip().startswith("File ") else ""
            return "%s: %s" % (s, code) if code else s
    return "no source line recorded"


def _trace(model):
    tracer = _Tracer()
    try:
        graph = tracer.trace(model)
    except Exception as e:  # fx: control flow on a traced value, an untraceable call, ...
        frames = [f for f in traceback.extract_tb(e.__traceback__) if "/torch/" not in f.filename]
        where = ("%s:%d: %s" % (frames[-1].filename, frames[-1].lineno, frames[-1].line)) if frames else "?"
        raise ConformError([("(trace)", where, "%s: %s (a data-dependent branch or a call torch.fx cannot "
                                                "trace has no fixed graph to certify)" % (type(e).__name__, e))])
    return graph


def _meta(n):
    return n.meta.get("tensor_meta") if isinstance(n, fx.Node) else None


def _is_float(n):
    m = _meta(n)
    return m is not None and m.dtype.is_floating_point


def _contiguous(m):
    if m is None:
        return True
    expect, acc = [], 1
    for size in reversed(m.shape):
        expect.append(acc)
        acc *= size
    return all(s == e or size == 1 for s, e, size in zip(m.stride, reversed(expect), m.shape))


def _module(root, node):
    return root.get_submodule(node.target) if node.op == "call_module" else None


def _fetch(root, node):
    if node.op != "get_attr":
        return None
    obj = root
    for part in node.target.split("."):
        obj = getattr(obj, part)
    return obj


# ---- the attention pattern -------------------------------------------------------------

def _is_call(n, op, *targets):
    return isinstance(n, fx.Node) and n.op == op and n.target in targets


def _heads_of(n):
    """(source node, heads) for view(src, B, T, H, hs).transpose(1, 2), else None."""
    if not (_is_call(n, "call_method", "transpose") and tuple(n.args[1:]) == (1, 2)):
        return None
    v = n.args[0]
    if not (_is_call(v, "call_method", "view") and len(v.args) == 5 and isinstance(v.args[3], int)):
        return None
    return v.args[0], v.args[3]


def _causal_mask_ok(root, mask):
    """mask is eq(getitem(<buffer>, slices), 0) with a lower-triangular 0/1 buffer."""
    if not (_is_call(mask, "call_function", operator.eq) and mask.args[1] == 0):
        return False
    sl = mask.args[0]
    if _is_call(sl, "call_function", operator.getitem):
        sl = sl.args[0]
    buf = _fetch(root, sl)
    if not isinstance(buf, torch.Tensor) or buf.dim() < 2:
        return False
    t = buf.shape[-1]
    b = buf.reshape(-1, buf.shape[-2], t)[0] != 0
    return bool(torch.equal(b, torch.ones(t, t, dtype=torch.bool).tril()))


def _match_attention(root, sm):
    """The nodes of nanoGPT's masked softmax attention around softmax node sm:
    (q, k, v, heads, scale, output node) or a reason it is not that."""
    if sm.kwargs.get("dim", sm.args[1] if len(sm.args) > 1 else None) not in (-1, 3):
        return "softmax not over the last dimension"
    mf = sm.args[0]
    if not (_is_call(mf, "call_method", "masked_fill") and mf.args[2] == float("-inf")):
        return "softmax input is not masked_fill(mask, -inf)"
    if not _causal_mask_ok(root, mf.args[1]):
        return "the mask is not a lower-triangular (causal) buffer compared with 0"
    sc = mf.args[0]
    if _is_call(sc, "call_function", operator.mul) and isinstance(sc.args[1], float):
        scale = sc.args[1]
    elif _is_call(sc, "call_function", operator.truediv) and isinstance(sc.args[1], (int, float)):
        scale = 1.0 / sc.args[1]
    else:
        return "the scores are not (q @ k^T) times or over a constant"
    mm = sc.args[0]
    if not _is_call(mm, "call_function", operator.matmul, torch.matmul):
        return "the scores are not q @ k^T"
    kt = mm.args[1]
    if not (_is_call(kt, "call_method", "transpose") and tuple(kt.args[1:]) in ((-2, -1), (-1, -2), (2, 3), (3, 2))):
        return "the keys are not transposed with transpose(-2, -1)"
    q, k = _heads_of(mm.args[0]), _heads_of(kt.args[0])
    users = list(sm.users)
    if len(users) != 1 or not _is_call(users[0], "call_function", operator.matmul, torch.matmul) \
            or users[0].args[0] is not sm:
        return "the weights are not used once, as weights @ v"
    v = _heads_of(users[0].args[1])
    if not (q and k and v) or not q[1] == k[1] == v[1]:
        return "q, k, v are not view(B, T, heads, width).transpose(1, 2) with the same heads"
    tail = [users[0]]
    for want in ("transpose", "contiguous", "view"):
        nxt = list(tail[-1].users)
        if len(nxt) != 1 or not _is_call(nxt[0], "call_method", want):
            return "the output is not transpose(1, 2).contiguous().view(B, T, C)"
        tail.append(nxt[0])
    return q[0], k[0], v[0], q[1], scale, tail[-1]


# ---- the rewrite ------------------------------------------------------------------------

_SHAPE_METHODS = ("size", "dim")
_VIEW_METHODS = ("view", "reshape", "contiguous")
_LAYOUT_METHODS = ("transpose", "permute", "t", "expand", "narrow", "unfold", "as_strided")
_FUNCTIONS = {  # torch function -> (isotrain.torch function)
    TF.linear: F.linear, TF.gelu: F.gelu, TF.layer_norm: F.layer_norm, TF.embedding: F.embedding,
    TF.cross_entropy: F.cross_entropy, torch.tanh: F.tanh, TF.relu: F.relu, torch.relu: F.relu,
}


def _replace(graph, node, fn, args, kwargs=None):
    with graph.inserting_before(node):
        new = graph.call_function(fn, tuple(args), kwargs or {})
    new.meta = dict(node.meta)
    node.replace_all_uses_with(new)
    graph.erase_node(node)
    return new


def _trailing(small, big):
    return len(small) <= len(big) and tuple(big[len(big) - len(small):]) == tuple(small)


def _weight_of_transpose(root, n):
    """W for W.T / W.t() / W.transpose(0, 1) of a 2-D parameter, else None."""
    if _is_call(n, "call_function", getattr) and n.args[1] == "T":
        src = n.args[0]
    elif _is_call(n, "call_method", "t") or (_is_call(n, "call_method", "transpose")
                                             and tuple(n.args[1:]) in ((0, 1), (1, 0), (-2, -1), (-1, -2))):
        src = n.args[0]
    else:
        return None
    p = _fetch(root, src)
    return src if isinstance(p, torch.Tensor) and p.dim() == 2 else None


def _rewrite_function(root, graph, n, problems):
    floats = [a for a in n.args if _is_float(a)]
    if n.target in (operator.add, torch.add) and len(floats) == 2 and not n.kwargs:
        a, b = n.args[0], n.args[1]
        sa, sb = _meta(a).shape, _meta(b).shape
        if not _trailing(sb, sa):
            a, b = b, a  # a ⊕ b = b ⊕ a exactly; the broadcast operand goes second
            sa, sb = sb, sa
        if not _trailing(sb, sa):
            problems.append((n.name, _where(n), "add of shapes %s and %s: a broadcast other than over leading "
                                                "dimensions" % (tuple(sa), tuple(sb))))
            return
        _replace(graph, n, F.add, (a, b))
    elif n.target in (operator.matmul, torch.matmul) and len(n.args) == 2 and _is_float(n.args[0]):
        w = _weight_of_transpose(root, n.args[1])
        if w is None:
            problems.append((n.name, _where(n), "matmul whose right operand is not the transpose of a 2-D "
                                                "parameter (x @ W.T is linear, §5.2)"))
            return
        _replace(graph, n, F.linear, (n.args[0], w))
    elif n.target in _FUNCTIONS:
        _replace(graph, n, _FUNCTIONS[n.target], n.args, n.kwargs)
    elif n.target in (F.causal_attention, getattr):
        pass
    elif floats or _is_float(n):
        problems.append((n.name, _where(n), "%s on a float tensor has no conforming counterpart"
                                            % getattr(n.target, "__name__", n.target)))


def _rewrite_method(n, problems):
    if n.target in _SHAPE_METHODS:
        return
    src = n.args[0]
    if not _is_float(src):
        return
    if n.target in _VIEW_METHODS and _contiguous(_meta(src)):
        return
    if n.target in _VIEW_METHODS:
        why = "a non-contiguous layout (%s of a tensor with stride %s)" % (n.target, tuple(_meta(src).stride))
    elif n.target in _LAYOUT_METHODS:
        why = "Tensor.%s makes a non-contiguous layout (outside the causal attention pattern)" % n.target
    else:
        why = "Tensor.%s on a float tensor has no conforming counterpart" % n.target
    problems.append((n.name, _where(n), why))


def _rewrite_module(root, graph, n, problems, swaps):
    m = _module(root, n)
    cls = type(m)
    if isinstance(m, nn.Dropout) and cls is nn.Dropout:
        if m.p == 0:
            n.replace_all_uses_with(n.args[0])
            graph.erase_node(n)
        else:
            problems.append((n.name, _where(n), "Dropout(p=%r): random masks have no spec clause (p=0 only)" % m.p))
        return
    if cls in SUPPORTED:
        target, check = SUPPORTED[cls]
        why = check(m)
        if why:
            problems.append((n.name, _where(n), "%s: %s" % (cls.__name__, why)))
        else:
            swaps.append((m, target))
    elif not isinstance(m, tuple(t for t, _ in SUPPORTED.values())):
        problems.append((n.name, _where(n), "module %s (%s) has no conforming counterpart (supported: %s)"
                         % (n.target, cls.__name__, ", ".join(c.__name__ for c in SUPPORTED) + ", Dropout(p=0)")))


def _tie(root, graph):
    """An Embedding module whose weight is also used by a linear node: tie (§5.20)."""
    for n in list(graph.nodes):
        if not (_is_call(n, "call_function", F.linear) and len(n.args) == 2):
            continue
        p = _fetch(root, n.args[1])
        emb = [e for e in graph.nodes if e.op == "call_module" and isinstance(_module(root, e), nn.Embedding)
               and _module(root, e).weight is p]
        if not emb:
            continue
        with graph.inserting_before(emb[0]):
            w = graph.get_attr(n.args[1].target)
            t = graph.call_function(F.tie, (w,))
            embed, head, handle = (graph.call_function(operator.getitem, (t, i)) for i in range(3))
        for e in emb:
            _replace(graph, e, F.tied_embedding, (e.args[0], embed, handle))
        n.args = (n.args[0], head)


def _gradient_uses(n):
    """The places (user, arg index) that take n as a tensor, in forward order."""
    uses = []
    for u in n.users:  # insertion order = graph order
        if u.op == "call_method" and u.target in _SHAPE_METHODS:
            continue
        if _is_call(u, "call_function", getattr) and u.args[1] == "shape":
            continue
        for i, a in enumerate(u.args):
            if a is n:
                uses.append((u, i))
    return uses


def _fan_outs(graph, problems):
    for n in list(graph.nodes):
        if not _is_float(n) and not (n.op == "call_function" and n.target is F.tie):
            continue
        if n.op == "call_function" and n.target is F.tie:
            continue
        uses = _gradient_uses(n)
        if len(uses) < 2:
            continue
        if any(u.kwargs and n in u.kwargs.values() for u, _ in uses):
            problems.append((n.name, _where(n), "used as a keyword argument by several consumers"))
            continue
        with graph.inserting_after(n):
            fo = graph.call_function(F.fan_out, (n, len(uses)))
        outs = []
        for i in range(len(uses)):
            with graph.inserting_after(fo if not outs else outs[-1]):
                g = graph.call_function(operator.getitem, (fo, i))
            g.meta = dict(n.meta)
            outs.append(g)
        for (u, i), g in zip(uses, outs):
            args = list(u.args)
            args[i] = g
            u.args = tuple(args)


def _chain_step(root, n, chainable):
    """n is a call_module node conform swaps whose module a chain can run."""
    return (n.op == "call_module" and _module(root, n) in chainable and len(n.args) == 1 and not n.kwargs)


def _fuse_chains(root, graph, swaps):
    """Runs of row layers, each feeding only the next (mlp13k's embed -> fc1
    -> tanh -> fc2), become one chain call: one autograd node and one library
    call each way instead of one per layer (functional_chain: the same
    numbers). Returns the chains."""
    chainable = _IdSet({id(m): m for m, _ in swaps if _chain_kind(m) is not None})
    runs, run = [], []
    for n in graph.nodes:
        if not _chain_step(root, n, chainable):
            runs.append(run)
            run = []
        elif run and n.args[0] is run[-1] and len(run[-1].users) == 1 and _chain_kind(_module(root, n)) != 0:
            run.append(n)
        else:
            runs.append(run)
            run = [n]
    runs = [r for r in runs + [run] if len(r) >= 2]
    progs = []
    for run in runs:
        try:
            prog = Chain([_module(root, n) for n in run])
        except ValueError:  # elementwise only, or widths the shapes check refuses: left as they are
            continue

        def call(x, prog=prog):
            return F.chain(x, prog)
        call.__name__ = call.__qualname__ = "isotrain_chain_%d" % len(progs)
        with graph.inserting_before(run[-1]):
            new = graph.call_function(call, (run[0].args[0],))
        new.meta = dict(run[-1].meta)
        run[-1].replace_all_uses_with(new)
        for n in reversed(run):
            graph.erase_node(n)
        progs.append(prog)
    return progs


def _only_user(n):
    us = list(n.users) if isinstance(n, fx.Node) else []
    return us[0] if len(us) == 1 else None


def _getitems(fo, k):
    """The k getitem users of a fan-out node by index, or None."""
    gets = list(fo.users)
    if len(gets) != k or not all(_is_call(g, "call_function", operator.getitem) for g in gets):
        return None
    by = {g.args[1]: g for g in gets}
    return [by[i] for i in range(k)] if set(by) == set(range(k)) else None


def _match_block(root, fo, swap_of):
    """A residual sub-block from the 2-way fan-out fo (functional_block's
    docstring): (Block, its nodes) or None."""
    def mod(n, target, src):
        return (isinstance(n, fx.Node) and n.op == "call_module" and n.args == (src,) and not n.kwargs
                and swap_of.get(id(_module(root, n))) is target)

    if not (_is_call(fo, "call_function", FB.FAN_OUT) and fo.args[1:] == (2,) and not fo.kwargs):
        return None
    gets = _getitems(fo, 2)
    for branch in (0, 1) if gets else ():
        b, s = gets[branch], gets[1 - branch]
        ln, add = _only_user(b), _only_user(s)
        if not (mod(ln, _itnn.LayerNorm, b) and _is_call(add, "call_function", FB.ADD) and len(add.args) == 2
                and not add.kwargs and s in add.args):
            continue
        stream_first = add.args[0] is s
        last = add.args[1] if stream_first else add.args[0]
        fc = _only_user(ln)
        act = _only_user(fc) if mod(fc, _itnn.Linear, ln) else None
        proj = _only_user(act) if mod(act, _itnn.GELU, fc) else None
        if mod(proj, _itnn.Linear, act) and proj is last and _only_user(proj) is add:
            nodes = [fo, b, s, ln, fc, act, proj, add]
            return FB.Block("mlp", [_module(root, n) for n in (ln, fc, act, proj)], branch, stream_first), nodes
        f3 = fc
        if not (_is_call(f3, "call_function", FB.FAN_OUT) and f3.args == (ln, 3) and not f3.kwargs):
            continue
        g3 = _getitems(f3, 3)
        lins = [_only_user(g) for g in g3] if g3 else []
        if len(lins) != 3 or not all(mod(m, _itnn.Linear, g) for m, g in zip(lins, g3)):
            continue
        att = _only_user(lins[0])
        if not (_is_call(att, "call_function", FB.CAUSAL_ATTENTION) and len(att.args) == 5 and not att.kwargs
                and all(_only_user(m) is att for m in lins) and sorted(map(id, att.args[:3])) == sorted(map(id, lins))
                and isinstance(att.args[3], int)):
            continue
        o = _only_user(att)
        if not (mod(o, _itnn.Linear, att) and o is last and _only_user(o) is add):
            continue
        qkv = list(att.args[:3])
        order = [lins.index(n) for n in qkv]  # the fan-out output each of q, k, v took
        prog = FB.Block("attention", [_module(root, n) for n in [ln] + qkv + [o]], branch, stream_first,
                        heads=att.args[3], scale=att.args[4], qkv_order=order)
        return prog, [fo, b, s, ln, f3] + g3 + lins + [att, o, add]
    return None


def _fuse_blocks(root, graph, swaps):
    """Residual sub-blocks (an MLP or a causal attention between a fan-out
    and its add) become one call each (functional_block: the same numbers,
    one autograd node). Returns the blocks."""
    swap_of = {id(m): target for m, target in swaps}
    progs = []
    for fo in list(graph.nodes):
        if fo.graph is not graph or fo.op != "call_function":  # erased by an earlier match
            continue
        got = _match_block(root, fo, swap_of)
        if got is None:
            continue
        prog, nodes = got
        add = nodes[-1]

        def call(x, prog=prog):
            return FB.residual_block(x, prog)
        call.__name__ = call.__qualname__ = "isotrain_%s_block_%d" % (prog.kind, len(progs))
        with graph.inserting_before(add):
            new = graph.call_function(call, (fo.args[0],))
        new.meta = dict(add.meta)
        add.replace_all_uses_with(new)
        order = {n: i for i, n in enumerate(graph.nodes)}
        for n in sorted(nodes, key=order.__getitem__, reverse=True):
            graph.erase_node(n)
        progs.append(prog)
    return progs


class _IdSet:
    """Modules by identity (a module's __eq__/__hash__ may be its own)."""

    def __init__(self, by_id):
        self.by_id = by_id

    def __contains__(self, m):
        return id(m) in self.by_id


def _dtype_problems(graph, problems):
    bad = [n for n in graph.nodes if _meta(n) is not None and _meta(n).dtype.is_floating_point
           and _meta(n).dtype != torch.float32]
    if bad:
        problems.append((bad[0].name, _where(bad[0]), "dtype %s (binary32 only, spec §2.1; call .float() on the "
                         "model and its inputs)%s" % (_meta(bad[0]).dtype, " and %d more node(s) like it"
                                                      % (len(bad) - 1) if len(bad) > 1 else "")))
    return bool(bad)


def conform(model, *example_inputs):
    """model (an nn.Module) made conforming in place, its forward unchanged in
    meaning; example_inputs: one call's inputs (their dtypes and shapes are
    what the checks see). Returns model. Raises ConformError (nothing changed)."""
    if not isinstance(model, nn.Module):
        raise TypeError("isotrain.torch.conform: expected a torch.nn.Module, not %s" % type(model).__name__)
    graph = _trace(model)
    gm = fx.GraphModule(model, graph)
    with torch.no_grad():
        ShapeProp(gm).propagate(*example_inputs)
    graph = gm.graph
    problems, swaps = [], []
    if _dtype_problems(graph, problems):
        raise ConformError(problems)
    for sm in [n for n in graph.nodes if _is_call(n, "call_function", TF.softmax, torch.softmax)
               or _is_call(n, "call_method", "softmax")]:
        got = _match_attention(gm, sm)
        if isinstance(got, str):
            problems.append((sm.name, _where(sm), "softmax outside a causal attention: " + got))
            continue
        q, k, v, heads, scale, out = got
        _replace(graph, out, F.causal_attention, (q, k, v, heads, scale))
    graph.eliminate_dead_code()
    seen = {p[0] for p in problems}
    for n in list(graph.nodes):
        if n.name in seen:
            continue
        if n.op == "call_function":
            _rewrite_function(gm, graph, n, problems)
        elif n.op == "call_method":
            _rewrite_method(n, problems)
        elif n.op == "call_module":
            _rewrite_module(gm, graph, n, problems, swaps)
    graph.eliminate_dead_code()
    _tie(gm, graph)
    graph.eliminate_dead_code()
    _fan_outs(graph, problems)
    if problems:
        raise ConformError(problems)
    blocks = _fuse_blocks(gm, graph, swaps)
    chains = _fuse_chains(gm, graph, swaps)
    graph.lint()
    for m, target in swaps:
        m.__class__ = target
    gm.recompile()
    # plain attributes, not submodules: parameters() and state_dict() stay the model's own
    object.__setattr__(model, "forward", gm.forward)
    object.__setattr__(model, "isotrain_graph", gm)  # print(model.isotrain_graph.code) shows the result
    object.__setattr__(model, "isotrain_chains", chains)
    object.__setattr__(model, "isotrain_blocks", blocks)
    return model
