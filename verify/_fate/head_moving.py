"""Moving consensus for one real head (full mask): the lemma of :mod:`.moving` in the head's orthonormal
coordinates, its matrix inequalities proved for every ``U_z``, ``P_z`` in the balls that contain them.

**What is proved.**  :func:`.head_flow.orthonormal` gives eq. 5 on the head's invariant space ``V`` in
orthonormal coordinates ``z`` (``x = Q z``, ``Q^T Q = I``): one head, ``U_z`` and ``beta P_z`` as arb balls
containing the exact (irrational) matrices, and the normalised tokens as balls on the unit sphere of ``R^m``.
That is an instance of eq. 5 with ``beta`` folded into ``P``, so the lemma of docs/fate.md ("Consensus without a
fixed limit", full mask; :func:`.moving.check_moving` states and proves it for rational instances) applies
with ``beta = 1``: for rationals ``G``, ``g_lo``, ``g_hi``, ``mu``, ``tau2``, ``u``, ``p``, ``Dmax`` and a region
``(Q, gamma, tau1, n_Q)`` such that

* (a) ``g_lo I < G < g_hi I``, ``||U_z||_2 < u``, ``||beta P_z||_2 < p``, ``||Q||_2 < n_Q``;
* (b) ``sym(G U_z) - mu G - tau2 (Q - gamma I) > 0``;
* (c) ``Q U_z + U_z^T Q - gamma (U_z + U_z^T) - 2 n_Q u Dmax I + tau1 (Q - gamma I) > 0``;
* (d) ``kappa = 2 mu - Dmax u (1 + 2 g_hi/g_lo) - (p/2) Dmax^2 - (p/4) Dmax^3 > 0`` (exact),

once every token is in ``R = {z^T Q z >= gamma}`` and ``g_hi |z_i - z_j|^2 < Dmax^2 z_i^T G z_i`` for all
``i != j`` at a time ``T`` (tested in arb on the enclosure's boxes, :func:`.moving.moving_entered`), the
diameter obeys ``max |z_i - z_j| <= Dmax e^{-kappa (t - T)/2}``; ``x = Q z`` is an isometry, so the head's
tokens reach consensus (no limit point is claimed: the cluster may keep turning).

**How (a)-(c) are proved.**  Each matrix is formed in arb from the ball matrices (every entry contains its
value for every ``U_z``, ``P_z`` in the balls) and the exact rationals, symmetrised, and a Cholesky
factorisation in arb proves it positive definite (:func:`.cap._pd`: true for every symmetric matrix in the
balls, so for the exact ones).  (b) is proved strictly although the lemma needs ``>= 0`` only.

Floats only propose (:func:`.moving_hints.propose_moving` on the balls' midpoints; each candidate it keeps has
passed :func:`check_head_moving`), and a float simulation proposes ``T``.  Full mask only: the causal lemma's
extra data are not built for real heads.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from types import SimpleNamespace

import flint
import numpy as np
from flint import arb, arb_mat

from .cap import _pd
from .moving import Moving, MovingCheck, _all_exact, kappa, moving_entered
from .moving_hints import propose_moving

HORIZON = 60.0
"""Latest entry time a float simulation looks for."""
MAX_EVALUATIONS = 200_000
"""A float proposal that needs more evaluations than this is abandoned."""


def _q(x: Fraction) -> arb:
    return arb(flint.fmpq(x.numerator, x.denominator))


def _rat(M) -> arb_mat:
    return arb_mat([[_q(v) for v in row] for row in M])


def _eye(n: int, v: arb) -> arb_mat:
    return arb_mat([[v if i == j else arb(0) for j in range(n)] for i in range(n)])


def _sym(M: arb_mat) -> arb_mat:
    return (M + M.transpose()) * arb(0.5)


def balls(flow) -> tuple[arb_mat, arb_mat]:
    """``(U_z, beta P_z)`` of a :class:`~.head_flow.HeadFlow` (it stores their transposes for the row-vector field)."""
    Pt, Ut = flow.heads[0]
    return Ut.transpose(), Pt.transpose()


def check_head_moving(U: arb_mat, P: arb_mat, m: Moving) -> MovingCheck:
    """(a)-(d) of the module docstring for every ``U_z`` in the balls ``U`` and ``beta P_z`` in ``P`` (arb; exact
    rationals in ``m``)."""
    d = U.nrows()
    if m.causal is not None:
        return MovingCheck(False, "real heads: the full mask only")
    if not _all_exact(m):
        return MovingCheck(False, "every number of the data must be an exact rational (fractions.Fraction), no float")
    if not (len(m.G) == d and all(len(r) == d for r in m.G) and len(m.unorm) == 1 and len(m.pnorm) == 1
            and P.nrows() == d and P.ncols() == d and U.ncols() == d):
        return MovingCheck(False, f"malformed data (G, U, P {d}x{d}, one norm bound each for U and P)")
    if m.region is not None and not (len(m.region.Q) == d and all(len(r) == d for r in m.region.Q)):
        return MovingCheck(False, f"malformed data (Q {d}x{d})")
    if not (m.g_lo > 0 and m.g_hi > 0 and m.mu > 0 and m.tau2 >= 0 and m.Dmax > 0 and m.unorm[0] >= 0
            and m.pnorm[0] >= 0):
        return MovingCheck(False, "need g_lo, g_hi, mu, Dmax > 0 and tau2, u, p >= 0")
    if m.region is None and m.tau2 != 0:
        return MovingCheck(False, "tau2 must be 0 without a region")
    if any(m.G[a][b] != m.G[b][a] for a in range(d) for b in range(a)):
        return MovingCheck(False, "G must be symmetric")
    G, u, p = _rat(m.G), _q(m.unorm[0]), _q(m.pnorm[0])
    if not _pd(G - _eye(d, _q(m.g_lo))) or not _pd(_eye(d, _q(m.g_hi)) - G):
        return MovingCheck(False, "g_lo I < G < g_hi I is not proved (arb Cholesky)")
    if not _pd(_eye(d, u * u) - U.transpose() * U) or not _pd(_eye(d, p * p) - P.transpose() * P):
        return MovingCheck(False, "the norm bounds ||U_z||_2 < u, ||beta P_z||_2 < p are not proved for the balls")
    terms = _sym(G * U) - G * _q(m.mu)
    if m.region is not None:
        r = m.region
        if any(r.Q[a][b] != r.Q[b][a] for a in range(d) for b in range(a)):
            return MovingCheck(False, "Q must be symmetric")
        Q, gamma, nq = _rat(r.Q), _q(r.gamma), _q(r.qnorm)
        if not _pd(_eye(d, nq) - Q) or not _pd(_eye(d, nq) + Q):
            return MovingCheck(False, "n_Q > ||Q||_2 is not proved")
        QmG = Q - _eye(d, gamma)
        terms = terms - QmG * _q(m.tau2)
        QU = Q * U
        C = (QU + QU.transpose() - (U + U.transpose()) * gamma - _eye(d, 2 * nq * u * _q(m.Dmax)) + QmG * _q(r.tau1))
        if not _pd(_sym(C)):
            return MovingCheck(False, "the region z^T Q z >= gamma is not proved forward invariant for the balls (step c)")
    if not _pd(_sym(terms)):
        return MovingCheck(False, "z^T G U_z z > mu z^T G z is not proved on the region for the balls (step b)")
    k = kappa(SimpleNamespace(beta=Fraction(1)), m)
    if not k > 0:
        return MovingCheck(False, f"the diameter bound Dmax = {float(m.Dmax):.3g} is too large: kappa = {float(k):.3g} <= 0")
    return MovingCheck(True, f"full mask, one head, U_z and beta P_z as balls: z^T G U_z z >= {float(m.mu):.4g} z^T G z on "
                             f"{'the sphere' if m.region is None else 'the invariant region'}; once the diameter is <= "
                             f"{float(m.Dmax):.3g} it decays like exp(-{float(k) / 2:.3g} t) (the common point may keep moving)", k)


def _mid(M: arb_mat) -> np.ndarray:
    return np.array([[float(M[i, j].mid()) for j in range(M.ncols())] for i in range(M.nrows())])


def propose(flow) -> tuple[list[Moving], str]:
    """Candidates for ``flow`` (a :class:`~.head_flow.HeadFlow`), each proved by :func:`check_head_moving`, best first."""
    U, P = balls(flow)
    Uf, Pf = _mid(U), _mid(P)
    if not (np.all(np.isfinite(Uf)) and np.all(np.isfinite(Pf))):
        return [], "non-finite head data"
    problem = SimpleNamespace(mask="full", N=flow.initial.nrows(), d=Uf.shape[0], beta=Fraction(1),
                              heads=((Pf, Uf),), U_sum=lambda: Uf)
    return propose_moving(problem, check=lambda m: check_head_moving(U, P, m).ok)


def entry_time(flow, m: Moving, deadline: float | None = None, horizon: float = HORIZON) -> float | None:
    """Float proposal: the first multiple of 1/4 at which a float solution (from the balls' midpoints) meets the
    entry condition with half the diameter bound; None when none by ``horizon`` or the run stops."""
    from .head_flow import float_solution

    sol = float_solution(flow, False, horizon, 1e-10, 1e-12, MAX_EVALUATIONS, deadline)
    if sol is None:
        return None
    N, d = flow.initial.nrows(), flow.initial.ncols()
    G = np.array(m.G, dtype=float)
    Q = None if m.region is None else np.array(m.region.Q, dtype=float)
    for t in np.arange(0.0, horizon + 1e-9, 0.25):
        X = sol.sol(t).reshape(N, d)
        if Q is not None and not np.all(np.einsum("ia,ab,ib->i", X, Q, X) > float(m.region.gamma) * (1 + 1e-3)):
            continue
        D2 = ((X[:, None] - X[None]) ** 2).sum(-1).max(axis=1)
        if np.all(float(m.g_hi) * D2 < 0.25 * float(m.Dmax) ** 2 * np.einsum("ia,ab,ib->i", X, G, X)):
            return float(t)
    return None


@dataclass(frozen=True)
class _Found:
    m: Moving
    check: MovingCheck
    proposed: float


def run_moving_head(V, O, A, B, tokens, beta, causal: bool, deadline_wall: float) -> dict:
    """One job (``beta``: a finite positive rational, or a float read as the binary rational it holds): propose a moving-consensus certificate for the head, propose ``T``, enclose to ``1.25 T + 0.25``
    until the entry condition holds (:func:`.head_flow.enclose`), until ``deadline_wall`` (a ``time.time()``
    value); plain values only."""
    from theorems.errors import InvalidInput

    from .head_entry import exact_beta
    from .head_flow import OPTIONS, enclose, orthonormal
    from .heads import reduce_head

    if causal:
        return {"ran": False, "why": "the causal mask (moving consensus is built for the full mask only on real heads)"}
    if deadline_wall - time.time() <= 0:
        return {"ran": False, "why": "time budget spent"}
    exact = exact_beta(beta)
    if exact is None:
        return {"ran": False, "why": f"beta = {beta!r} is not a finite positive number"}
    t0 = time.perf_counter()
    deadline = t0 + (deadline_wall - time.time())
    with flint.ctx.workprec(OPTIONS.prec):
        try:
            flow = orthonormal(reduce_head(V, O, tokens), A, B, exact)
        except InvalidInput as exc:
            return {"ran": False, "why": str(exc)}
        if flow is None:
            return {"ran": False, "why": "the Gram matrix of the basis is not proved positive definite"}
        cands, why = propose(flow)
        found = None
        for m in cands:
            check = check_head_moving(*balls(flow), m)  # proved again here: the job trusts no proposal
            if not check.ok:
                continue
            T = entry_time(flow, m, deadline)
            if T is not None:
                found = _Found(m, check, T)
                break
    if found is None:
        return {"ran": False, "why": why if not cands else f"a float simulation to t = {HORIZON:g} never meets the "
                                                            "entry condition of a proved candidate"}
    t_max = Fraction(found.proposed * 1.25 + 0.25).limit_denominator(1 << 20)
    run, method = enclose(flow, False, t_max, lambda rows: moving_entered(found.m, rows), found.proposed, OPTIONS,
                          deadline)
    return {"ran": True, "entered": run.entered, "status": run.status, "time": str(run.time), "steps": run.steps,
            "width": run.width if math.isfinite(run.width) else None, "proposed": found.proposed,
            "wall_s": round(time.perf_counter() - t0, 3), "method": method, "Dmax": float(found.m.Dmax),
            "mu": float(found.m.mu), "kappa": float(found.check.kappa), "check": found.check.reason}


__all__ = ["HORIZON", "balls", "check_head_moving", "entry_time", "propose", "run_moving_head"]
