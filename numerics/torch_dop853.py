"""Batched adaptive Dormand–Prince 8(5,3) on torch (CPU or CUDA), float64 or float32.

The same method as :class:`numerics.DOP853` (the numpy reference): Hairer's DOP853 tableau and
error norm, per-instance step size and step control, steps shortened to land on the sample
times and on schedule breakpoints, every token renormalised (``x <- x/|x|``) after each
accepted step, and the next step's first stage taken at the unrenormalised new state.  In
float64 on the CPU it follows the numpy run's steps and agrees with it to round-off (tested to
``1e-9``).

Differences, deliberate: the whole batch advances in lockstep (one field call per stage for all
``B`` instances; an instance that has finished takes zero-length steps that are masked out, so
its work is wasted but its state is untouched), and times and step sizes are float64 on every
device and dtype (only states are in ``dtype``).  Time-varying schedules are evaluated on the
host and copied per stage; the speed-up is for time-invariant batches.  torch is reached through
:mod:`numerics.torch_backend` (imported there, inside functions), so importing this module never
imports torch.

``cpu_threads`` (default 1) limits torch's intra-op threads during a CPU run: the tensors of a
step are small and every op is a separate dispatch, and on the busy 2-core test machine torch's
default thread pool made a 16-instance run 35x slower (11.8 s against 0.33 s).

``error_estimate``: as :class:`numerics.DOP853`, the largest over instances of the summed local
error estimates (not a bound).  In float32 the round-off of the states (~1e-7) limits what any
tolerance can achieve; ``rtol`` below ``1e-6`` is refused.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Sequence, final

import numpy as np

from theorems.errors import InvalidInput
from theorems.system import AttentionSystem

from . import _dop853_tableau as tab
from .field import BatchedField
from .torch_backend import _torch, torch_field
from .trajectory import Integrator, Precision, Progress, RunStatus, Stats, Trajectory, as_systems, sample_times

_S = tab.N_STAGES
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_MIN_RTOL = {"float64": 1e-15, "float32": 1e-6}


@final
@dataclass(frozen=True)
class TorchDOP853(Integrator):
    """DOP853 (the tableau of :class:`numerics.dop853.DOP853`) in torch, batched, on ``device``
    (``"cuda"`` for a GPU) in ``dtype``; same step control and renormalisation. Needs the llm extra
    (torch); :class:`~theorems.errors.MissingDependency` otherwise."""
    rtol: float = 1e-10
    atol: float = 1e-12
    max_steps: int = 1_000_000
    first_step: float | None = None
    dtype: str = "float64"
    device: str | None = None
    cpu_threads: int | None = 1
    name: str = "torch-dop853"

    def __post_init__(self) -> None:
        if self.dtype not in _MIN_RTOL:
            raise InvalidInput("dtype", "'float64' or 'float32'", self.dtype)
        for label, v in (("rtol", self.rtol), ("atol", self.atol)):
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise InvalidInput(label, "a positive finite tolerance", v)
        if self.rtol < _MIN_RTOL[self.dtype]:
            raise InvalidInput("rtol", f"at least {_MIN_RTOL[self.dtype]:g} in {self.dtype}", self.rtol)
        if isinstance(self.max_steps, bool) or not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise InvalidInput("max_steps", "a positive integer", self.max_steps)
        if self.first_step is not None and not (math.isfinite(self.first_step) and self.first_step > 0):
            raise InvalidInput("first_step", "a positive finite number or None", self.first_step)
        if self.cpu_threads is not None and (isinstance(self.cpu_threads, bool) or not isinstance(self.cpu_threads, int)
                                             or self.cpu_threads < 1):
            raise InvalidInput("cpu_threads", "a positive integer or None (torch's default)", self.cpu_threads)

    def integrate(self, systems: AttentionSystem | Sequence[AttentionSystem], t_end: float, *,
                  samples: int | None = 101, t_eval: Sequence[float] | None = None,
                  progress: Progress | None = None) -> Trajectory:
        torch = _torch()
        start = time.perf_counter()
        field = BatchedField.of(as_systems(systems))
        grid = sample_times(t_end, samples, t_eval)
        device = torch.device(self.device or ("cuda" if torch.cuda.is_available() else "cpu"))
        if device.type == "cuda" and not torch.cuda.is_available():
            raise InvalidInput("device", f"a device torch {torch.__version__} can use (CUDA is not available here)",
                               self.device, "Use device='cpu' or install a CUDA build of torch")
        threads = torch.get_num_threads()
        limit = device.type == "cpu" and self.cpu_threads is not None
        try:
            if limit:  # why: see the module note on cpu_threads (process-wide while it lasts, restored after)
                torch.set_num_threads(self.cpu_threads)
            with torch.no_grad():
                run = _Run(torch, field, grid, getattr(torch, self.dtype), device)
                status = run.loop(self, progress)
        finally:
            if limit:
                torch.set_num_threads(threads)
        states = run.out[:run.reached].to(torch.float64).cpu().numpy()
        stats = Stats(run.steps, run.rejected, run.evaluations, time.perf_counter() - start)
        bits = 53 if self.dtype == "float64" else 24
        local = float(run.local.max().item())
        return Trajectory(self.name, grid[:run.reached], states, stats,
                          Precision(self.dtype, bits, None, f"torch {torch.__version__} on {device.type}"), local,
                          "largest over instances of the sum of DOP853 local error estimates (not a bound)", status)


@final
class _Run:
    """The state of one batched run (mutable by design; private to :meth:`TorchDOP853.integrate`)."""

    def __init__(self, torch, field: BatchedField, grid: np.ndarray, dtype, device) -> None:
        self.torch, self.field, self.dtype, self.device = torch, field, dtype, device
        breaks = field.breakpoints(float(grid[-1]))
        stops = np.union1d(grid, breaks)
        slot = np.searchsorted(grid, stops)
        f64 = dict(dtype=torch.float64, device=device)
        self.stops = torch.as_tensor(stops, **f64)
        self.slot = torch.as_tensor(slot, dtype=torch.long, device=device)
        self.is_sample = torch.as_tensor(grid[np.minimum(slot, grid.shape[0] - 1)] == stops, device=device)
        self.is_break = torch.as_tensor(np.isin(stops, breaks), device=device)
        self.n_stops = stops.shape[0]
        B, N, d = field.shape
        X = torch.as_tensor(field.initial_state(), dtype=dtype, device=device)
        self.X = X / X.norm(dim=-1, keepdim=True)
        self.out = torch.empty((grid.shape[0], B, N, d), dtype=dtype, device=device)
        self.out[0] = self.X
        self.A = torch.as_tensor(tab.A[:_S, :_S], dtype=dtype, device=device)
        self.final = torch.as_tensor(np.stack([tab.B, tab.E5[:_S], tab.E3[:_S]]), dtype=dtype, device=device)
        self.C = tab.C[:_S]
        self._const = None
        self.steps = self.rejected = 0
        self.evaluations = 0
        self.reached = 1
        self.local = torch.zeros(B, **f64)

    def _tensor(self, a):
        return None if a is None else self.torch.as_tensor(np.ascontiguousarray(a), dtype=self.dtype, device=self.device)

    def F(self, t, Y, scale=None):
        """``scale * F(Y)`` at the per-instance times ``t`` (a float64 tensor)."""
        if self.field.time_invariant:
            if self._const is None:
                P, U, beta, _ = self.field.matrices(np.zeros(self.field.B))
                self._const = (self._tensor(P), self._tensor(U), self._tensor(beta))
            mats = self._const
        else:
            P, U, beta, _ = self.field.matrices(t.cpu().numpy())
            mats = (self._tensor(P), self._tensor(U), self._tensor(beta))
        out = torch_field(Y, *mats, self.field.causal)
        return out if scale is None else out * scale.to(self.dtype)[:, None, None]

    def initial_step(self, f0, t_end: float, rtol: float, atol: float, first_step):
        torch, X = self.torch, self.X
        B = X.shape[0]
        if first_step is not None:
            return torch.full((B,), float(first_step), dtype=torch.float64, device=self.device)
        n = X.shape[1] * X.shape[2]
        scale = atol + X.abs() * rtol
        rms = lambda v: ((v / scale) ** 2).sum(dim=(1, 2)).to(torch.float64).div(n).sqrt()  # noqa: E731
        d0, d1 = rms(X), rms(f0)
        h0 = torch.where((d0 < 1e-5) | (d1 < 1e-5), torch.full_like(d0, 1e-6), 0.01 * d0 / d1.clamp_min(1e-300))
        f1 = self.F(h0, X + h0.to(self.dtype)[:, None, None] * f0)
        d2 = rms(f1 - f0) / h0
        big = torch.maximum(d1, d2)
        h1 = torch.where(big <= 1e-15, (h0 * 1e-3).clamp_min(1e-6), (0.01 / big.clamp_min(1e-300)) ** (1 / 8))
        return torch.minimum(torch.minimum(100 * h0, h1), torch.full_like(h0, t_end))

    def loop(self, cfg: TorchDOP853, progress: Progress | None) -> RunStatus:
        torch, dev = self.torch, self.device
        B, N, d = self.field.shape
        n = N * d
        t = torch.zeros(B, dtype=torch.float64, device=dev)
        f = self.F(t, self.X)
        h = self.initial_step(f, float(self.stops[-1]), cfg.rtol, cfg.atol, cfg.first_step)
        self.evaluations = 2 * B
        nxt = torch.ones(B, dtype=torch.long, device=dev)
        attempts = torch.zeros(B, dtype=torch.long, device=dev)
        rejected_before = torch.zeros(B, dtype=torch.bool, device=dev)
        K = torch.empty((_S, B, N, d), dtype=self.dtype, device=dev)
        status = RunStatus.SUCCESS
        last = self.n_stops - 1
        while True:
            active = nxt < self.n_stops
            n_active = int(active.sum().item())
            if n_active == 0:
                break
            if bool((active & (attempts >= cfg.max_steps)).any().item()):
                status = RunStatus.MAX_STEPS
                break
            k = nxt.clamp(max=last)
            target = self.stops[k]
            room = target - t
            ha = torch.where(active, torch.minimum(h, room), torch.zeros_like(h))
            lands = h >= room
            if bool((active & (ha <= 1e-14 * t.abs().clamp_min(1.0))).any().item()):
                status = RunStatus.STEP_TOO_SMALL
                break
            limit = torch.where(lands & self.is_break[k], torch.nextafter(target, torch.full_like(target, -math.inf)),
                                torch.full_like(target, math.inf))
            K[0] = f * ha.to(self.dtype)[:, None, None]
            for s in range(1, _S):
                Ys = self.X + torch.tensordot(self.A[s, :s], K[:s], dims=1)
                K[s] = self.F(torch.minimum(t + self.C[s] * ha, limit), Ys, ha)
            R = torch.tensordot(self.final, K, dims=1)
            Xn = self.X + R[0]
            fn = self.F(torch.minimum(t + ha, limit), Xn)
            self.evaluations += _S * n_active
            attempts += active.long()
            norm, size = _error_norm(torch, self.X, Xn, R[1], R[2], cfg.rtol, cfg.atol, n)
            accept = (norm < 1.0) & active
            factor = torch.where(norm == 0, torch.full_like(norm, _MAX_FACTOR), _SAFETY * norm ** (-1.0 / 8.0))
            factor = torch.where(norm < 1.0, factor.clamp(max=_MAX_FACTOR), factor.clamp(min=_MIN_FACTOR))
            factor = torch.where((norm < 1.0) & rejected_before, factor.clamp(max=1.0), factor)
            new_h = ha * factor
            new_h = torch.where((norm < 1.0) & lands, torch.maximum(new_h, torch.minimum(h, new_h * _MAX_FACTOR)), new_h)
            h = torch.where(active, new_h, h)
            rejected_before = torch.where(active, norm >= 1.0, rejected_before)
            n_acc = int(accept.sum().item())
            self.steps += n_acc
            self.rejected += n_active - n_acc
            if n_acc:
                self.local += torch.where(accept, size, torch.zeros_like(size))
                Xn = Xn / Xn.norm(dim=-1, keepdim=True)
                self.X = torch.where(accept[:, None, None], Xn, self.X)
                f = torch.where(accept[:, None, None], fn, f)
                t = torch.where(accept, torch.where(lands, target, t + ha), t)
                hit = accept & lands
                crossed = hit & self.is_break[k]
                if bool(crossed.any().item()):  # the next interval has another schedule: refresh f there
                    f = torch.where(crossed[:, None, None], self.F(t, self.X), f)
                    self.evaluations += int(crossed.sum().item())
                keep = torch.nonzero(hit & self.is_sample[k]).flatten()
                if keep.numel():
                    self.out[self.slot[k[keep]], keep] = self.X[keep]
                nxt = nxt + hit.long()
            if progress is not None:
                progress(float(t.min().item() / self.stops[-1].item()))
        self.reached = int(np.count_nonzero(self.is_sample[:int(nxt.min().item())].cpu().numpy()))
        return status


def _error_norm(torch, y, y_new, err5, err3, rtol: float, atol: float, n: int):
    """SciPy's DOP853 error norm per instance and the local error size, as the numpy path's
    :func:`numerics._dop853_core._error_norm` (``err5``, ``err3`` carry the factor ``h``)."""
    q5 = err5 * err5
    q = (q5 + 0.01 * err3 * err3).sqrt()
    size = torch.nan_to_num(torch.where(q > 0, q5 / q, torch.zeros_like(q)).flatten(1).amax(dim=1)).to(torch.float64)
    sc = atol + rtol * torch.maximum(y.abs(), y_new.abs())
    e5 = ((err5 / sc) ** 2).flatten(1).sum(dim=1).to(torch.float64)
    e3 = ((err3 / sc) ** 2).flatten(1).sum(dim=1).to(torch.float64)
    denom = e5 + 0.01 * e3
    safe = torch.where(denom > 0, denom, torch.ones_like(denom))
    return torch.where(denom > 0, e5 / (safe * n).sqrt(), torch.zeros_like(e5)), size
