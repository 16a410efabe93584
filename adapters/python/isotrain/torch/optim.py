"""isotrain.torch.optim: SGD (spec §7.1) and AdamW (spec §7.2) with
torch.optim's constructors, param_groups, state and state_dict, their
updates computed by the library on the parameters' storage.

Hyper-parameters are Python numbers, as in torch; each step turns them into
the binary32 constants of the spec once: lr, betas, eps are rounded to
binary32 (RN), and AdamW's c1 = 1 ⊖ β1, c2 = 1 ⊖ β2 and decay factor
δ_w = 1 ⊖ (lr ⊗ λ) are single binary32 operations (numpy float32, IEEE), as
spec §7.2 writes them. No parameter, gradient or moment value is computed
outside the library.

zero_grad() sets gradients to None by default (torch 1.13's default keeps
them and zeroes them): autograd would otherwise add the next gradient into
the old tensor with aten.add_, an addition outside the library.
"""

import ctypes

import numpy as np
import torch
from torch.optim.optimizer import Optimizer, required

from ._check import f32
from ._lib import AdamWClock, AdamWConsts, lib

__all__ = ["SGD", "AdamW", "adamw_constants", "adamw_tick", "adamw_step_"]


def _threads():
    return max(1, torch.get_num_threads())


def _refuse(cls, **options):
    for name, (val, default) in options.items():
        if val != default:
            raise NotImplementedError("isotrain.torch.optim.%s: %s=%r is not supported (spec §7 defines "
                                      "only %s=%r)" % (cls, name, val, name, default))


def _checked_grad(p, cls):
    f32(p, "parameter", "isotrain.torch.optim." + cls)
    g = p.grad
    if g.is_sparse:
        raise ValueError("isotrain.torch.optim.%s: sparse gradients are not supported" % cls)
    f32(g, "parameter.grad", "isotrain.torch.optim." + cls)
    if g.shape != p.shape:
        raise ValueError("isotrain.torch.optim.%s: gradient shape %s for a parameter of shape %s"
                         % (cls, tuple(g.shape), tuple(p.shape)))
    return g


class _Base(Optimizer):
    def zero_grad(self, set_to_none=True):
        """Gradients to None (see the module's doc for why that is the default here):
        a plain loop, without torch's profiler scope and foreach grouping (a
        measurable share of a 0.2 ms mlp13k step)."""
        if not set_to_none:
            return super().zero_grad(set_to_none=False)
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None


class SGD(_Base):
    """torch.optim.SGD with lr only (spec §7.1): p ← p ⊖ (lr ⊗ g), two
    roundings per element. momentum, dampening, weight_decay, nesterov and
    maximize have no spec clause and are refused."""

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        if lr is not required and lr < 0.0:
            raise ValueError("Invalid learning rate: {}".format(lr))
        _refuse("SGD", momentum=(momentum, 0), dampening=(dampening, 0), weight_decay=(weight_decay, 0),
                nesterov=(nesterov, False), maximize=(maximize, False), differentiable=(differentiable, False))
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            _refuse("SGD", momentum=(group["momentum"], 0), dampening=(group["dampening"], 0),
                    weight_decay=(group["weight_decay"], 0), nesterov=(group["nesterov"], False),
                    maximize=(group["maximize"], False))
            lr = float(np.float32(group["lr"]))
            th = _threads()
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = _checked_grad(p, "SGD")
                if lib.it_tensor_sgd_update(p.data_ptr(), g.data_ptr(), p.numel(), lr, th) != 0:
                    raise RuntimeError("isotrain.torch.optim.SGD: the library refused the update")
        return loss


def adamw_constants(lr, beta1, beta2, eps, decay):
    """it_adamw_consts from binary32 values (spec §7.2): c1 = 1 ⊖ β1 and
    c2 = 1 ⊖ β2 are one rounding each; decay is δ_w itself."""
    one = np.float32(1.0)
    b1, b2 = np.float32(beta1), np.float32(beta2)
    return AdamWConsts(float(np.float32(lr)), float(b1), float(b2), float(np.float32(eps)),
                       float(np.float32(decay)), float(one - b1), float(one - b2))


def adamw_tick(consts, clock):
    """spec §7.2's once-per-step part: π1 ← π1 ⊗ β1, π2 ← π2 ⊗ β2 in clock
    (an AdamWClock), t + 1; returns the bias corrections (1 ⊖ π1, 1 ⊖ π2)."""
    bc1, bc2 = ctypes.c_float(), ctypes.c_float()
    lib.it_adamw_tick(ctypes.byref(consts), ctypes.byref(clock), ctypes.byref(bc1), ctypes.byref(bc2))
    return bc1.value, bc2.value


def adamw_step_(consts, clock, p, g, m, v):
    """One step of spec §7.2 for one tensor: advances clock (adamw_tick) and
    updates p, m, v in place from g."""
    bc1, bc2 = adamw_tick(consts, clock)
    if lib.it_tensor_adamw_update(ctypes.byref(consts), bc1, bc2, p.data_ptr(), g.data_ptr(),
                                  m.data_ptr(), v.data_ptr(), p.numel(), _threads()) != 0:
        raise RuntimeError("isotrain.torch.optim.AdamW: the library refused the update")


def _scalar(t):
    return ctypes.c_float.from_address(t.data_ptr()).value


class AdamW(_Base):
    """torch.optim.AdamW (spec §7.2): decay first from the parameter before
    the step, m and v with c1, c2, the bias corrections from running products
    β^t (never pow), ε outside the square root. State per parameter:
    torch's 'step', 'exp_avg', 'exp_avg_sq', plus 'beta1_power' and
    'beta2_power' (the running products, binary32). amsgrad, maximize and
    capturable are refused."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= betas[0] < 1.0 or not 0.0 <= betas[1] < 1.0:
            raise ValueError("Invalid beta parameters: {}".format(betas))
        _refuse("AdamW", amsgrad=(amsgrad, False), maximize=(maximize, False), capturable=(capturable, False))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable)
        super().__init__(params, defaults)

    def _consts(self, group):
        lr = np.float32(group["lr"])
        decay = np.float32(1.0) - lr * np.float32(group["weight_decay"])  # δ_w = 1 ⊖ (lr ⊗ λ)
        return adamw_constants(lr, group["betas"][0], group["betas"][1], group["eps"], decay)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            _refuse("AdamW", amsgrad=(group["amsgrad"], False), maximize=(group["maximize"], False))
            consts = self._consts(group)
            live = [(p, _checked_grad(p, "AdamW")) for p in group["params"] if p.grad is not None]
            fresh = [p for p, _ in live if len(self.state[p]) == 0]
            if fresh:  # the clock's scalars shared by the tensors that start together: one fill each per step
                clock0 = [torch.tensor(0.0), torch.ones((), dtype=torch.float32), torch.ones((), dtype=torch.float32)]
            for p in fresh:
                state = self.state[p]
                state["step"], state["beta1_power"], state["beta2_power"] = clock0
                state["exp_avg"] = torch.zeros_like(p, memory_format=torch.contiguous_format)
                state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.contiguous_format)
            clocks = self._clocks(live)
            if len(live) > 1 and len(set(clocks)) == 1:
                self._step_together(consts, clocks[0], live)
                continue
            for (p, g), c in zip(live, clocks):  # tensors at different steps: each its own clock
                state = self.state[p]
                clock = AdamWClock(*c)
                adamw_step_(consts, clock, p, g, state["exp_avg"], state["exp_avg_sq"])
                # its own scalars from now on: they may be shared with tensors not stepped here
                state["step"], state["beta1_power"], state["beta2_power"] = (
                    torch.tensor(0.0), torch.ones((), dtype=torch.float32), torch.ones((), dtype=torch.float32))
                self._store(state, clock)
        return loss

    def _clocks(self, live):
        """Each live parameter's clock: read once when every state shares the
        same three scalar tensors (they started together: the common case),
        else one by one. The moment buffers are checked either way."""
        states = [self.state[p] for p, _ in live]
        keys = ("step", "beta1_power", "beta2_power")
        if len(states) > 1 and all(k in states[0] for k in keys) and all(
                s.get(k) is states[0][k] for s in states[1:] for k in keys):
            for s in states[1:]:
                f32(s["exp_avg"], "state['exp_avg']", "isotrain.torch.optim.AdamW")
                f32(s["exp_avg_sq"], "state['exp_avg_sq']", "isotrain.torch.optim.AdamW")
            return [self._clock(live[0][0])] * len(live)
        return [self._clock(p) for p, _ in live]

    def _clock(self, p):
        state = self.state[p]
        if "beta1_power" not in state:
            raise ValueError("isotrain.torch.optim.AdamW: a state without 'beta1_power' (loaded from "
                             "torch.optim.AdamW?): the running products of spec §7.2 cannot be recovered "
                             "from 'step' alone")
        f32(state["exp_avg"], "state['exp_avg']", "isotrain.torch.optim.AdamW")
        f32(state["exp_avg_sq"], "state['exp_avg_sq']", "isotrain.torch.optim.AdamW")
        return _scalar(state["beta1_power"]), _scalar(state["beta2_power"]), int(state["step"].item())

    @staticmethod
    def _store(state, clock):
        state["beta1_power"].fill_(clock.beta1_pow)  # the library's values, stored unchanged
        state["beta2_power"].fill_(clock.beta2_pow)
        state["step"].fill_(clock.t)

    def _step_together(self, consts, c, live):
        """§7.2 for a group whose tensors share one clock: one tick, one
        library call over all of them (_tensors.c), the same bits as one
        call per tensor (the update is elementwise)."""
        clock = AdamWClock(*c)
        bc1, bc2 = adamw_tick(consts, clock)
        k = len(live)
        states = [self.state[p] for p, _ in live]
        ptrs = lambda ts: (ctypes.c_void_p * k)(*[t.data_ptr() for t in ts])  # noqa: E731
        if lib.itt_adamw_tensors(ctypes.byref(consts), bc1, bc2, k, ptrs(p for p, _ in live),
                                 ptrs(g for _, g in live), ptrs(s["exp_avg"] for s in states),
                                 ptrs(s["exp_avg_sq"] for s in states),
                                 (ctypes.c_size_t * k)(*[p.numel() for p, _ in live]), _threads()) != 0:
            raise RuntimeError("isotrain.torch.optim.AdamW: the library refused the update")
        done = set()
        for s in states:  # each scalar once: shared by the tensors that started together
            if id(s["step"]) not in done:
                done.add(id(s["step"]))
                self._store(s, clock)
