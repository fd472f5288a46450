"""The vector field of the continuous attention model (paper eq. 5, docs/model.md §1) in float64.

    dx_i/dt = Proj_{x_i}( sum_h sum_{j in M(i)} a^h_ij U^h x_j ),   Proj_x = I - x x^T,
    a^h_ij  = exp(beta <x_i, P^h x_j>) / sum_{l in M(i)} exp(beta <x_i, P^h x_l>).

Everything is vectorised over a batch of ``B`` instances that share ``N``, ``d``, ``H`` and the
mask: states are arrays of shape ``(B, N, d)``.  The softmax is evaluated as
``(E W) (1/Z)`` with ``Z = E 1`` (never forming the normalised weights), which is the same
quotient with fewer divisions (:mod:`numerics.field_kernel`).  The row maximum is subtracted only
when ``beta |P|_F`` could make ``exp`` overflow.

Not guaranteed: the field is evaluated in floating point; nothing here bounds its round-off.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Sequence, final

import numpy as np

from theorems.errors import InvalidInput
from theorems.system import AttentionSystem

from .field_kernel import FieldBuffers, field_into

_SAFE_EXPONENT = 200.0
"""Skip the max-subtraction in the softmax when ``beta * max_h |P^h|_F`` (``>= |P^h|_2``, and
``|beta <x, P y>| <= beta |P|_2`` on the sphere) is below this."""


def attention_field(X: np.ndarray, P: np.ndarray, U: np.ndarray | None, beta: np.ndarray | None,
                    causal: bool, stabilize: bool = True) -> np.ndarray:
    """Evaluate eq. 5 for a batch.

    ``X``: ``(B, N, d)``; ``P``: ``(B, H, d, d)`` or ``(1, H, d, d)`` (shared by the batch);
    ``U``: same shapes, or ``None`` for ``U^h = I``; ``beta``: ``(B,)`` or ``(1,)``, or ``None``
    when ``P`` already carries the factor ``beta``.  Returns the tangent vectors ``(B, N, d)``.
    The arithmetic is :func:`numerics.field_kernel.field_into` with fresh buffers.
    """
    X = np.ascontiguousarray(X, dtype=float)
    B, N, d = X.shape
    return field_into(X, P, U, beta, causal, stabilize, np.empty_like(X), FieldBuffers(B, N, d))


def project_to_sphere(X: np.ndarray) -> np.ndarray:
    """``pi(y) = y / |y|`` row-wise (the renormalisation after each step)."""
    return X / np.linalg.norm(X, axis=-1, keepdims=True)


@final
@dataclass(frozen=True, eq=False)
class BatchedField:
    """The field of one or more systems with equal ``N``, ``d``, ``H`` and mask.

    ``__call__(t, X, index)`` takes the per-instance times ``t`` (shape ``(b,)``), the states
    ``X`` (``(b, N, d)``) and the indices of those instances in the batch (``None`` = all).
    """

    systems: tuple[AttentionSystem, ...]

    def __post_init__(self) -> None:
        if not self.systems:
            raise InvalidInput("systems", "at least one AttentionSystem", [])
        first = self.systems[0]
        for k, s in enumerate(self.systems):
            if not isinstance(s, AttentionSystem):
                raise InvalidInput(f"systems[{k}]", "an AttentionSystem", type(s).__name__)
            if (s.N, s.d, s.H, s.mask) != (first.N, first.d, first.H, first.mask):
                raise InvalidInput(f"systems[{k}]", f"N={first.N}, d={first.d}, H={first.H}, mask={first.mask!r} like systems[0]",
                                   f"N={s.N}, d={s.d}, H={s.H}, mask={s.mask!r}", "Batch only instances of the same shape")

    @classmethod
    def of(cls, systems: AttentionSystem | Sequence[AttentionSystem]) -> "BatchedField":
        if isinstance(systems, AttentionSystem):
            systems = (systems,)
        return cls(tuple(systems))

    @property
    def B(self) -> int:
        return len(self.systems)

    @property
    def shape(self) -> tuple[int, int, int]:
        s = self.systems[0]
        return (self.B, s.N, s.d)

    @property
    def causal(self) -> bool:
        return self.systems[0].mask == "causal"

    def initial_state(self) -> np.ndarray:
        return np.stack([s.tokens for s in self.systems])

    @cached_property
    def _shared_heads(self) -> bool:
        first = self.systems[0]
        return all(s.heads is first.heads and s.beta == first.beta for s in self.systems)

    @cached_property
    def _beta(self) -> np.ndarray:
        return np.array([s.beta_float for s in self.systems])

    @cached_property
    def _identity_U(self) -> bool:
        eye = np.eye(self.systems[0].d)
        return all(h.U.time_invariant and np.array_equal(h.U.at(0.0), eye)
                   for s in self.systems for h in s.heads)

    @cached_property
    def _constant(self) -> tuple[np.ndarray, np.ndarray | None, bool] | None:
        if not all(s.time_invariant for s in self.systems):
            return None
        src = self.systems[:1] if self._shared_heads else self.systems
        P = np.stack([s.beta_float * s.P_at(0.0) for s in src])  # beta folded into P once
        U = None if self._identity_U else np.stack([s.U_at(0.0) for s in src])
        bound = np.sqrt(np.max(np.sum(P * P, axis=(-2, -1))))  # Frobenius: a cheap upper bound on |P|_2
        return P, U, bool(bound > _SAFE_EXPONENT)

    @property
    def time_invariant(self) -> bool:
        return self._constant is not None

    def breakpoints(self, t_end: float) -> np.ndarray:
        """Times in ``(0, t_end)`` where some schedule is not smooth (layer boundaries of a
        :class:`~theorems.matrices.LayerStack`); adaptive steps should end there."""
        from theorems.matrices import LayerStack

        times: set[float] = set()
        for s in self.systems:
            for h in s.heads:
                for m in (h.P, h.U):
                    if isinstance(m, LayerStack) and not m.time_invariant:
                        last = np.inf if m.periodic else m.dt * (len(m.layers) - 1)
                        k = np.arange(1, int(np.floor(min(t_end, last) / m.dt)) + 1)
                        times.update(float(v) for v in k * m.dt if 0 < v < t_end)
        return np.array(sorted(times))

    def matrices(self, t: np.ndarray, index: np.ndarray | None = None):
        """``(P, U, beta, stabilize)`` for the instances ``index`` at their times ``t``
        (``beta`` is ``None`` when it is already folded into ``P``)."""
        beta = self._beta if index is None else self._beta[index]
        if self._constant is not None:
            P, U, stabilize = self._constant
            if P.shape[0] > 1 and index is not None:
                P = P[index]
                U = None if U is None else U[index]
            return P, U, None, stabilize
        systems = self.systems if index is None else [self.systems[i] for i in index]
        times = np.broadcast_to(np.asarray(t, float), (len(systems),))
        if self._shared_heads and np.all(times == times[0]):
            P = systems[0].P_at(float(times[0]))[None]
            U = None if self._identity_U else systems[0].U_at(float(times[0]))[None]
        else:
            P = np.stack([s.P_at(float(tb)) for s, tb in zip(systems, times)])
            U = None if self._identity_U else np.stack([s.U_at(float(tb)) for s, tb in zip(systems, times)])
        return P, U, beta, True

    def __call__(self, t, X: np.ndarray, index: np.ndarray | None = None) -> np.ndarray:
        P, U, beta, stabilize = self.matrices(t, index)
        return attention_field(X, P, U, beta, self.causal, stabilize)

    def evaluate_into(self, matrices, X: np.ndarray, out: np.ndarray, buf: FieldBuffers,
                      scale: np.ndarray | None = None) -> np.ndarray:
        """``scale * F(X)`` written into ``out``; ``matrices`` is what :meth:`matrices` returned for
        these instances (an integrator of a time-invariant batch fetches them once per step)."""
        P, U, beta, stabilize = matrices
        return field_into(X, P, U, beta, self.causal, stabilize, out, buf, scale)
