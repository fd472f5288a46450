"""One real head whose tokens start on both sides of ``ker w``: a validated enclosure until they share a half-space.

The projective contraction (:mod:`.contraction`) proves consensus for every start with
``sign <w, c_i> > 0`` for all tokens.  When the spectral part holds but the prompt's tokens
straddle ``ker w``, the system is autonomous, so it suffices that the tokens share the half-space
at some later time ``T``: this module encloses the reduced dynamics from ``0`` to such a ``T``.

**Orthonormal coordinates, exactly.**  :func:`~.heads.reduce_head` gives an exact basis ``B``
(``D x m``) of the invariant space ``V``, ``U_red`` (``U B = B U_red``) and coordinates ``c_i``
(``x_i(0)`` a positive multiple of ``B c_i``).  ``G = B^T B`` is exact and positive definite; its
Cholesky factor ``L`` (``G = L L^T``) is enclosed in arb balls.  ``Q = B L^{-T}`` has ``Q^T Q = I``,
so with ``x = Q z`` eq. 5 on ``V`` is eq. 5 in ``z`` with ``U_z = L^T U_red L^{-T}`` and
``P_z = Q^T P Q = L^{-1} (B^T A)(B^T B_k)^T L^{-T}`` (``P = A B_k^T``, the head's query and key
factors).  These are irrational; they enter as balls that contain them, and every operation of the
validated step (:mod:`verify.validated.step`) is inclusion isotonic in the field's data as in the
state, so each enclosure holds for the exact ``U_z``, ``P_z``.  The start is the normalised hidden
state ``z_i(0) = L^T c_i / sqrt(c_i^T G c_i)`` (balls).  At a step end ``T`` where
``sign <L^{-1} w, z_i> > 0`` for every token ball and every ``w`` of the Krawczyk box, the
coordinates ``c_i(T) = L^{-T} z_i(T)`` satisfy ``sign <w, c_i(T)> > 0``; restarted at ``T``, the
contraction theorem gives consensus at ``sign B v / |B v|``.

Floats only propose: the crossing time (a float simulation in ``z`` from the balls' midpoints),
the step sizes and frames of the enclosure.  A wall-clock ``deadline`` only ends a run early.

Not guaranteed: that the enclosure stays narrow until the crossing, nor that the crossing comes
before the proposal's horizon (the head then stays unknown with the reason).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import final

import flint
import numpy as np
from flint import arb, arb_mat

from verify.validated.options import ValidatedOptions

from .contraction import Spectral
from .flow import FlowRun, run_ball_set, run_balls
from .heads import ReducedHead, integer_matrix

OPTIONS = ValidatedOptions(order=8, tol=1e-6, jacobian_tol=0.05, max_width=0.5, max_steps=2000, prec=128)
"""Looser than the fate run's: only a sign has to be decided at the end (measured on MiniLM: 5 steps
instead of 7 to the same crossing, the final width 1e-6)."""
BALL_OPTIONS = ValidatedOptions(order=30, jacobian_order=3, tol=1e-22, max_width=0.5, max_steps=20000, prec=128)
"""The first enclosure tried: the logarithmic-norm step (:mod:`verify.validated.lognorm`; centre order 30,
remainder target ``1e-22``).  Its radius grows like ``exp(int mu)``, so it starts small: with order 12 and ``1e-12``
two MiniLM heads (layer 3 head 1, layer 5 head 8) grew too wide before their crossing; with order 20 and ``1e-20``
they end at widths near 1e-12, and order 30 takes 1.3x fewer steps (measured: 142 against 196, 164 against 224).
About 0.4-0.5 s a step on MiniLM's 320 states, against 3.7 s for a Lohner step."""
BALL_TIGHT = ValidatedOptions(order=30, jacobian_order=3, tol=1e-30, max_width=0.5, max_steps=40000, prec=192)
"""The second, after a first ball run that grew (it stopped wider than :data:`GREW`): eight decades smaller
remainders at 192 bits, so the same growth ends narrower (measured with the row-sum bound on ``mu`` of an earlier
version, MiniLM layer 4 head 4: crossing at ``t = 13.0`` in 581 steps, 348 s, width 8e-13, where the first run
stopped at ``t = 11.7`` with width 0.014; with the present bound the first run enters, see :data:`TIGHT_FROM`)."""
GREW = 1e-9
TIGHT_FROM = 16.0
"""A head whose proposed crossing is later than this starts with :data:`BALL_TIGHT`: a retry from ``t = 0`` would
pay the first run again.  Measured on MiniLM with the Collatz-Wielandt bound on ``mu``
(:func:`~verify.validated.lognorm.lognorm_upper`): layer 4 head 4 (proposed 13.0) enters with the first run
(``t = 13.02``, 388 steps, width 6e-10; with the row-sum bound that run stopped at ``t = 11.7`` with width 0.014
and only the tight one entered); layer 1 head 3 (proposed 19.95) stops at ``t = 20.25`` with width 0.013 (step
too small, 1092 steps, 607 s)."""
FALLBACK = ("width",)
"""Statuses of the ball runs after which the Lohner enclosure (:data:`OPTIONS`) is run from ``t = 0``: only a
set grown too wide (the Lohner set follows the flow's shape); a step fallen below ``min_step`` or the horizon would
stop the Lohner run as well, at about ten times the cost."""
SCAN = 25.0
"""Horizon of the float proposal of the crossing time."""


@final
@dataclass(frozen=True)
class HeadFlow:
    """``(beta P_z)^T``, ``U_z^T``, the initial balls ``z_i(0)`` (rows), ``L^{-1}`` (balls)."""

    heads: tuple
    initial: arb_mat
    Linv: arb_mat


def _cholesky(G: flint.fmpq_mat) -> arb_mat | None:
    """Lower ``L`` with ``L L^T`` containing ``G`` (arb); None when a pivot is not proved positive."""
    n = G.nrows()
    L = [[arb(0)] * n for _ in range(n)]
    for j in range(n):
        s = arb(G[j, j]) - sum((L[j][k] * L[j][k] for k in range(j)), arb(0))
        if not s > 0:
            return None
        L[j][j] = s.sqrt()
        for i in range(j + 1, n):
            L[i][j] = (arb(G[i, j]) - sum((L[i][k] * L[j][k] for k in range(j)), arb(0))) / L[j][j]
    return arb_mat(L)


def orthonormal(reduced: ReducedHead, A: np.ndarray, Bk: np.ndarray, beta: Fraction) -> HeadFlow | None:
    """The field data and start in orthonormal coordinates (module docstring); call inside a ``workprec``
    scope.  ``A``, ``Bk``: the head's query and key factors (``D x d_head``, float64 read exactly)."""
    B = reduced.basis
    if B is None:
        raise ValueError("the reduced head carries no basis")
    m = B.ncols()
    Bt = B.transpose()
    G = Bt * B
    L = _cholesky(G)
    if L is None:
        return None
    try:
        Linv = L.inv()
    except ZeroDivisionError:
        return None
    Ai, sA = integer_matrix(A, "A")
    Ki, sK = integer_matrix(Bk, "B")
    M1 = Bt * flint.fmpq_mat(Ai)
    M2 = Bt * flint.fmpq_mat(Ki)
    Pt = (M1 * M2.transpose()) * flint.fmpq(1, 2 ** (sA + sK))
    U = arb_mat(reduced.U_red)
    Uz = L.transpose() * U * Linv.transpose()
    Pz = Linv * arb_mat(Pt) * Linv.transpose()
    heads = (((Pz * arb(flint.fmpq(beta.numerator, beta.denominator))).transpose(), Uz.transpose()),)
    C = reduced.coords
    rows = []
    for i in range(C.ncols()):
        c = flint.fmpq_mat(m, 1, [C[a, i] for a in range(m)])
        norm = arb((c.transpose() * G * c)[0, 0]).sqrt()
        z = L.transpose() * arb_mat(c)
        rows.extend(z[a, 0] / norm for a in range(m))
    return HeadFlow(heads, arb_mat(C.ncols(), m, rows), Linv)


def _float_field(Bt: np.ndarray, Ut: np.ndarray, causal: bool):
    def F(y: np.ndarray, N: int, m: int) -> np.ndarray:
        X = y.reshape(N, m)
        S = X @ (X @ Bt).T
        if causal:
            S = np.where(np.tril(np.ones((N, N), dtype=bool)), S, -np.inf)
        S = S - S.max(axis=1, keepdims=True)
        W = np.exp(S)
        W /= W.sum(axis=1, keepdims=True)
        G = (W @ X) @ Ut
        return (G - X * np.sum(X * G, axis=1, keepdims=True)).ravel()
    return F


MAX_EVALUATIONS = 20_000
"""A float proposal that needs more field evaluations than this (a near hard-max attention) is abandoned."""


class _Stop(Exception):
    """A non-finite float field, too many evaluations or the deadline: no proposal."""


def float_solution(flow: HeadFlow, causal: bool, horizon: float, rtol: float, atol: float, max_evaluations: int,
                   deadline: float | None = None):
    """A float DOP853 solution (dense output) of the head's field from the balls' midpoints to ``horizon``; None
    when the data or a field value is not finite, after ``max_evaluations`` evaluations, or past ``deadline``
    (a ``time.perf_counter()`` value).  Floats only propose."""
    from scipy.integrate import solve_ivp

    mid = lambda M: np.array([[float(M[i, j].mid()) for j in range(M.ncols())] for i in range(M.nrows())])
    Bt, Ut = (mid(M) for M in flow.heads[0])
    X0 = mid(flow.initial)
    if not (np.all(np.isfinite(Bt)) and np.all(np.isfinite(Ut)) and np.all(np.isfinite(X0))):
        return None
    N, m = X0.shape
    F = _float_field(Bt, Ut, causal)
    count = [0]

    def rhs(t, y):
        count[0] += 1
        if count[0] > max_evaluations or (deadline is not None and count[0] % 64 == 0 and time.perf_counter() > deadline):
            raise _Stop
        with np.errstate(all="ignore"):
            v = F(y, N, m)
        if not np.all(np.isfinite(v)):
            raise _Stop
        return v

    try:
        sol = solve_ivp(rhs, (0.0, horizon), X0.ravel(), method="DOP853", rtol=rtol, atol=atol, dense_output=True)
    except (_Stop, ValueError, FloatingPointError, ZeroDivisionError):
        return None
    return sol if sol.success else None


def crossing_time(flow: HeadFlow, wz: np.ndarray, causal: bool, deadline: float | None = None) -> tuple[float, int] | None:
    """Float proposal: the first sample time ``<= SCAN`` at which every token has one strict sign of
    ``<wz, z_i>`` (a margin of 1e-6), and that sign; None when the float run shows none, produces a
    non-finite value, needs more than :data:`MAX_EVALUATIONS` evaluations or passes ``deadline``
    (a ``time.perf_counter()`` value)."""
    if not np.all(np.isfinite(wz)):
        return None
    sol = float_solution(flow, causal, SCAN, 1e-8, 1e-10, MAX_EVALUATIONS, deadline)
    if sol is None:
        return None
    N, m = flow.initial.nrows(), flow.initial.ncols()
    for t in np.linspace(0.0, SCAN, int(40 * SCAN) + 1):
        b = sol.sol(t).reshape(N, m) @ wz
        if not np.all(np.isfinite(b)):
            return None
        scale = max(float(np.max(np.abs(b))), 1e-300)
        if np.all(b > 1e-6 * scale):
            return float(t), 1
        if np.all(b < -1e-6 * scale):
            return float(t), -1
    return None


@final
@dataclass(frozen=True, eq=False)
class Entry:
    """A validated run to the shared half-space: the run, its sign and the float proposal of ``T``."""

    run: FlowRun
    sign: int
    proposed: float
    wall_s: float
    method: str = "lohner"
    """``lognorm``, ``lognorm-tight`` (:func:`~.flow.run_ball_set`) or ``lohner`` (:func:`~.flow.run_balls`)."""


@final
@dataclass(frozen=True, eq=False)
class Plan:
    """The data of one run: the flow in orthonormal coordinates, ``L^{-1} w`` (balls), the proposed
    crossing time and sign, at ``options.prec``."""

    flow: HeadFlow
    wz: tuple[arb, ...]
    proposed: float
    sign: int
    causal: bool
    options: ValidatedOptions


def plan_entry(reduced: ReducedHead, spec: Spectral, A: np.ndarray, Bk: np.ndarray, beta: Fraction, causal: bool,
               options: ValidatedOptions = OPTIONS, deadline: float | None = None) -> tuple[Plan | None, str]:
    """The :class:`Plan` of a head (cheap: no enclosure yet), or ``(None, why)``; ``deadline`` bounds the
    float proposal (a ``time.perf_counter()`` value)."""
    with flint.ctx.workprec(options.prec):
        flow = orthonormal(reduced, A, Bk, beta)
        if flow is None:
            return None, "the Gram matrix of the basis is not proved positive definite at this precision"
        m = reduced.m
        wz = flow.Linv * arb_mat(m, 1, list(spec.w))
        wz_rows = tuple(wz[a, 0] for a in range(m))
        proposal = crossing_time(flow, np.array([float(x.mid()) for x in wz_rows]), causal, deadline)
    if proposal is None:
        return None, (f"a float simulation to t = {SCAN:g} shows no time with every token on one side of ker w (or "
                      f"it stopped: a non-finite value, more than {MAX_EVALUATIONS} evaluations, the time budget)")
    return Plan(flow, wz_rows, proposal[0], proposal[1], causal, options), ""


def enclose(flow: HeadFlow, causal: bool, t_max: Fraction, entered, proposed: float, lohner: ValidatedOptions,
            deadline: float | None = None) -> tuple[FlowRun, str]:
    """The validated run of :func:`enter_half_space` for any test ``entered(rows)`` on the enclosure, to ``t_max``:
    ``(run, method)``."""
    def ball(options: ValidatedOptions):
        with flint.ctx.workprec(options.prec):
            return run_ball_set(flow.heads, causal, flow.initial, t_max, entered, options, deadline)

    if proposed > TIGHT_FROM:
        run, method = ball(BALL_TIGHT), "lognorm-tight"
    else:
        run, method = ball(BALL_OPTIONS), "lognorm"
        if not run.entered and run.status in ("width", "step_too_small") and not run.width <= GREW:
            run, method = ball(BALL_TIGHT), "lognorm-tight"
    if not run.entered and run.status in FALLBACK:
        with flint.ctx.workprec(lohner.prec):
            run, method = run_balls(flow.heads, causal, flow.initial, t_max, entered, lohner, deadline), "lohner"
    return run, method


def enter_half_space(plan: Plan, deadline: float | None = None) -> Entry:
    """Enclose the head's dynamics until every token ball is in the half-space ``sign <w, .> > 0``
    (``Entry.run.entered``), to ``1.25 T + 0.25`` for the proposed ``T`` at most: first with the
    logarithmic-norm step (:data:`BALL_OPTIONS`; :data:`BALL_TIGHT` from the start when ``T > TIGHT_FROM``); when
    that one stopped (too wide, or its step too small) after
    its radius grew past :data:`GREW`, again with :data:`BALL_TIGHT`; when a ball run ends too wide, with the
    Lohner step (``plan.options``).  Each run starts at ``t = 0``; ``Entry.method`` names the one returned."""
    t0 = time.perf_counter()
    t_max = Fraction(plan.proposed * 1.25 + 0.25).limit_denominator(1 << 20)
    sign, wz = plan.sign, plan.wz

    def entered(rows) -> bool:
        return all(sign * sum((a * b for a, b in zip(wz, x)), arb(0)) > 0 for x in rows)

    run, method = enclose(plan.flow, plan.causal, t_max, entered, plan.proposed, plan.options, deadline)
    return Entry(run, sign, plan.proposed, round(time.perf_counter() - t0, 3), method)


__all__ = ["BALL_OPTIONS", "BALL_TIGHT", "Entry", "FALLBACK", "GREW", "TIGHT_FROM", "HeadFlow", "OPTIONS", "MAX_EVALUATIONS", "Plan", "SCAN", "crossing_time", "enclose", "enter_half_space", "float_solution", "orthonormal", "plan_entry"]
