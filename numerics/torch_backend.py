"""Optional torch backend for large ``N`` and ``d``: classical RK4 plus renormalisation on a
torch device (GPU when present, CPU otherwise), batched like the numpy integrators.

torch is imported inside the functions, so :mod:`numerics` imports without it; a missing torch
raises :class:`~theorems.errors.MissingDependency` with the install command.  The default dtype
is float64 (float32 halves memory; the trajectory records which was used).  Time-varying
schedules are evaluated on the host and copied per stage; the speed-up is for time-invariant
instances.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Sequence, final

import numpy as np

from theorems.errors import InvalidInput, MissingDependency
from theorems.system import AttentionSystem

from .field import BatchedField
from .trajectory import Integrator, Precision, Progress, RunStatus, Stats, Trajectory, as_systems, sample_times


def _torch():
    try:
        import torch
    except ImportError:
        raise MissingDependency("torch", "pip install 'consensus-verify[llm]'  (or: pip install torch)") from None
    return torch


def torch_field(X, P, U, beta, causal: bool):
    """Eq. 5 on torch tensors; shapes as :func:`numerics.field.attention_field` (``U=None``: identity)."""
    torch = _torch()
    G = torch.zeros_like(X)
    N = X.shape[1]
    mask = torch.triu(torch.ones(N, N, dtype=torch.bool, device=X.device), 1) if causal else None
    for h in range(P.shape[1]):
        Y = torch.matmul(X, P[:, h].transpose(-1, -2))
        S = torch.matmul(X, Y.transpose(-1, -2))
        if beta is not None:
            S = S * beta.reshape(-1, 1, 1)
        if mask is not None:
            S = S.masked_fill(mask, float("-inf"))
        A = torch.softmax(S, dim=-1)
        W = X if U is None else torch.matmul(X, U[:, h].transpose(-1, -2))
        G = G + torch.matmul(A, W)
    return G - X * (X * G).sum(dim=-1, keepdim=True)


@final
@dataclass(frozen=True)
class TorchRK4(Integrator):
    """Fixed-step RK4 with renormalisation (as :class:`numerics.rk4.RK4`) in torch, on ``device`` in
    ``dtype``. Needs the llm extra (torch)."""
    dt: float = 1e-2
    dtype: str = "float64"
    device: str | None = None
    name: str = "torch-rk4"

    def __post_init__(self) -> None:
        if not (isinstance(self.dt, (int, float)) and math.isfinite(self.dt) and self.dt > 0):
            raise InvalidInput("dt", "a positive finite step", self.dt)
        if self.dtype not in ("float64", "float32"):
            raise InvalidInput("dtype", "'float64' or 'float32'", self.dtype)

    def integrate(self, systems: AttentionSystem | Sequence[AttentionSystem], t_end: float, *,
                  samples: int | None = 101, t_eval: Sequence[float] | None = None,
                  progress: Progress | None = None) -> Trajectory:
        torch = _torch()
        start = time.perf_counter()
        field = BatchedField.of(as_systems(systems))
        grid = sample_times(t_end, samples, t_eval)
        device = torch.device(self.device or ("cuda" if torch.cuda.is_available() else "cpu"))
        dtype = getattr(torch, self.dtype)
        as_t = lambda a: None if a is None else torch.as_tensor(np.ascontiguousarray(a), dtype=dtype, device=device)  # noqa: E731
        X = as_t(field.initial_state())
        X = X / X.norm(dim=-1, keepdim=True)
        cache: dict = {}

        def F(t: float, Y):
            P, U, beta, _ = field.matrices(np.full(field.B, t))
            key = "const" if field.time_invariant else None
            if key is None or key not in cache:
                entry = (as_t(P), as_t(U), as_t(beta))
                if key is not None:
                    cache[key] = entry
            else:
                entry = cache[key]
            return torch_field(Y, *entry, field.causal)

        out = np.empty((grid.shape[0],) + tuple(X.shape))
        out[0] = X.double().cpu().numpy()
        steps = 0
        with torch.no_grad():
            for k in range(grid.shape[0] - 1):
                n = max(1, math.ceil((grid[k + 1] - grid[k]) / self.dt - 1e-12))
                h = float(grid[k + 1] - grid[k]) / n
                for m in range(n):
                    t = float(grid[k]) + m * h
                    k1 = F(t, X)
                    k2 = F(t + h / 2, X + (h / 2) * k1)
                    k3 = F(t + h / 2, X + (h / 2) * k2)
                    k4 = F(t + h, X + h * k3)
                    X = X + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4)
                    X = X / X.norm(dim=-1, keepdim=True)
                steps += n
                out[k + 1] = X.double().cpu().numpy()
                if progress is not None:
                    progress(float(grid[k + 1] / grid[-1]))
        bits = 53 if self.dtype == "float64" else 24
        return Trajectory(self.name, grid, out, Stats(steps * field.B, 0, 4 * steps * field.B, time.perf_counter() - start),
                          Precision(self.dtype, bits, None, f"torch {torch.__version__} on {device.type}"),
                          float("nan"), "none (fixed step; compare with a run at dt/2)", RunStatus.SUCCESS)
