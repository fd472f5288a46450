"""A validated step of eq. 5 for a Euclidean ball of states, by the logarithmic norm of the field's Jacobian.

The set is ``S = {x : |x - c|_2 <= r}`` (``c`` exact, ``r`` an exact upper bound).  One step of length ``h``:

1. **A-priori box** ``B`` that holds ``phi_s(y)`` for every ``y`` in the box hull of ``S`` and
   ``s in [0, h]`` (:func:`~.apriori.taylor_box`, else :func:`~.apriori.picard_box`), and ``DF``
   enclosing the field's Jacobian on ``B`` (both functions return it).
2. **Centre.**  ``phi_h(c) in E = T_K(c; h) + h^{K+1} X_{K+1}(B)`` (Taylor–Lagrange per component, the
   trajectory from ``c`` stays in ``B``), as in the Lohner step's point part.
3. **Spread.**  For ``y`` in ``S`` let ``u(s) = phi_s(y) - phi_s(c)``.  Then ``u' = M(s) u`` with
   ``M(s) = int_0^1 DF(phi_s(c) + theta u(s)) d theta``, and the segment lies in the convex ``B``, so
   ``d/ds |u|^2 = 2 int_0^1 u^T DF(z_theta) u d theta <= 2 mu |u|^2`` whenever ``mu`` bounds
   ``lambda_max((J + J^T) / 2)`` for every ``J`` in ``DF`` (:func:`lognorm_upper`).  Gronwall:
   ``|u(h)|_2 <= e^{mu h} r``.
4. **New set.**  ``c' = mid(E)`` (exact) and ``r' = e^{mu h} r + |rad(E)|_2``: every point of ``E`` is within
   ``|rad(E)|_2`` of ``c'``, so ``phi_h(S)`` lies in the ball ``(c', r')``.

No Jacobian of the flow is propagated (no tangent series, no frame): a step costs one Jacobian of the
field over ``B`` and one ``n x n`` ball product, where a Lohner step costs the tangent series in
``n`` directions.  The price: ``r`` grows like ``exp(int mu)`` instead of following the flow's own
shape, so this suits sets that are narrow and flows whose logarithmic norm is small (the real heads'
runs to a half-space: ``mu`` about 0.3-2 on MiniLM).

``lambda_max`` bound (:func:`lognorm_upper`): ``Sym = (DF + DF^T)/2`` as balls.  A float Cholesky factor ``R``
of ``mu' I - mid(Sym)`` (``mu'`` a float proposal) and ``Err = mu' I - Sym - R^T R`` in arb: for every ``J`` in ``DF``
the symmetric ``E = mu' I - J_sym - R^T R`` lies in ``Err``, ``x^T (mu' I - J_sym) x >= x^T E x >= -||E||_2 |x|^2``,
so ``lambda_max(J_sym) <= mu' + ||E||_2`` whatever ``R`` is.  ``||E||_2 = rho(E) <= rho(|Err|)`` (Wielandt:
``|E| <= |Err|`` entrywise) ``<= max_i (|Err| v)_i / v_i`` for any ``v > 0`` (Collatz-Wielandt); ``v`` is a float
estimate of the Perron vector of ``rad(Sym)``, and ``v = 1`` (the largest row sum) is taken when smaller.
Floats only propose ``mu'``, ``R`` and ``v``.  On MiniLM's heads the Perron vector makes the bound 2-3 times
tighter than the row sums: ``mu`` 0.61 against 1.46 at the first
step of layer 0 head 1, whose exact value at the centre is 0.26.  Without a factor the bound is ``||Sym||_2``
bounded by its largest absolute row sum.

Not guaranteed: tightness (``DF`` over a wide ``B`` is overestimated; ``r`` grows when ``mu > 0``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import final

import numpy as np
from flint import arb, arb_mat, fmpz_mat

from .apriori import picard_box, taylor_box
from .balls import ball, ipow, max_width
from .jacobian import field_jacobian
from .options import ValidatedOptions
from .series import Heads, horner, series
from .step import REJECT, _factor, dyadic_down, propose_step


def _abs_upper(M: arb_mat) -> arb_mat:
    """The entrywise upper bounds ``|M_ij| <= A_ij`` (exact, radius 0)."""
    return arb_mat(M.nrows(), M.ncols(), [x.abs_upper() for x in M.entries()])


def _norm2_upper(E: arb_mat, v: np.ndarray | None) -> arb:
    """An exact upper bound on ``||E'||_2`` for every real symmetric ``E'`` in the ball matrix ``E``.

    ``A = |E|`` entrywise (upper bounds) dominates ``|E'|``, so ``||E'||_2 = rho(E') <= rho(A)`` (Wielandt), and
    for any ``v > 0``, ``rho(A) <= max_i (A v)_i / v_i`` (Collatz-Wielandt); ``v = 1`` gives the largest row sum.
    ``v`` is a float proposal (an estimate of ``A``'s Perron vector); only its positivity matters (one that is not
    finite and positive is not used), and the smaller of the two bounds is returned.  The symmetry of ``E'`` is the
    caller's: for a non-symmetric matrix ``||E'||_2`` may exceed ``rho(|E'|)``."""
    A = _abs_upper(E)
    n = A.nrows()
    rows = (A * arb_mat(n, 1, [1] * n)).entries()
    best = rows[0]
    for r in rows[1:]:
        best = best.max(r)
    if v is not None and v.shape == (n,) and np.all(np.isfinite(v)) and np.all(v > 0):
        w = (A * arb_mat(n, 1, v.tolist())).entries()  # floats are exact in arb
        cw = w[0] / arb(float(v[0]))
        for i in range(1, n):
            cw = cw.max(w[i] / arb(float(v[i])))
        if cw.is_finite() and cw.upper() < best.upper():
            best = cw
    return arb(best.upper())


def _gram(R: np.ndarray) -> arb_mat:
    """``Rd^T Rd`` in arb for the dyadic ``Rd = round(R 2^k) 2^-k`` (``k`` puts the largest entry near ``2^52``), the
    product exact over the integers (``fmpz_mat``, about twice as fast as an arb product at ``n`` 320-576).  The caller
    uses ``Rd`` in its identity, so rounding ``R`` costs nothing but a slightly larger residual."""
    top = float(np.abs(R).max())
    k = 52 - math.frexp(top)[1] if top > 0 else 0
    Ri = fmpz_mat(np.rint(np.ldexp(R, k)).astype(np.int64).tolist())
    return arb_mat(Ri.transpose() * Ri) * arb(2) ** (-2 * k)


def _perron(R: np.ndarray) -> np.ndarray | None:
    """A positive float estimate of the Perron vector of the nonnegative ``R`` (a proposal; None when none is
    found): power iterations on ``R + sigma I`` (``sigma`` the mean row sum, so that an eigenvalue ``-rho`` of a
    bipartite pattern cannot keep the iteration from converging), floored so every entry stays positive."""
    with np.errstate(all="ignore"):
        v = R.sum(axis=1)
        top = float(v.max()) if v.size else 0.0
        if not math.isfinite(top) or top <= 0:
            return None
        sigma = float(v.mean())
        for _ in range(60):
            v = v / float(v.max())
            v = R @ v + sigma * v
            if not np.all(np.isfinite(v)) or float(v.max()) <= 0:
                return None
        v = v / float(v.max())
    v = np.maximum(v, 1e-6)
    return v if np.all(np.isfinite(v)) else None


def lognorm_upper(DF: arb_mat) -> arb:
    """An exact upper bound (radius 0) on ``lambda_max((J + J^T)/2)`` for every real ``J`` in the ball
    matrix ``DF`` (square); a non-finite entry raises ``ArithmeticError``.

    ``Sym = (DF + DF^T)/2`` as balls; a float proposal ``mu'`` and a float ``R`` with ``mu' I - mid(Sym) ~ R^T R``;
    ``Err = mu' I - Sym - R^T R`` in arb holds ``E = mu' I - J_sym - R^T R`` for every ``J`` in ``DF``, so
    ``x^T (mu' I - J_sym) x >= x^T E x >= -||E||_2 |x|^2`` and ``lambda_max(J_sym) <= mu' + ||E||_2`` whatever ``R``
    is; ``||E||_2`` is bounded by :func:`_norm2_upper` (the Collatz-Wielandt bound of ``|Err|`` with a float Perron
    vector proposal, or the largest absolute row sum).  Without a float factor the bound is ``||Sym||_2`` bounded
    the same way."""
    n = DF.nrows()
    if DF.ncols() != n or n == 0:
        raise ValueError(f"a non-empty square matrix was expected, got {DF.nrows()} x {DF.ncols()}")
    from numerics.support.blas import single_threaded_blas  # here, not at import: re-check paths never load numerics

    sym = (DF + DF.transpose()) * arb(0.5)
    ent = sym.entries()
    if not all(x.is_finite() for x in ent):
        raise ArithmeticError("the Jacobian enclosure is not finite")
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow leaves a non-finite mid: the fallback below
        mid = np.array([float(x.mid()) for x in ent]).reshape(n, n)
        mid = (mid + mid.T) / 2
        rad = np.array([float(x.rad()) for x in ent]).reshape(n, n)
    if np.all(np.isfinite(mid)):
        with single_threaded_blas():  # OpenBLAS threads make a 320 x 320 eigvalsh 6x slower here
            lam = float(np.linalg.eigvalsh(mid).max())
        with np.errstate(over="ignore"):
            scale = float(np.abs(mid).sum(axis=1).max()) + 1e-300
        v = _perron(rad) if np.all(np.isfinite(rad)) else None
        for margin in (1e-10, 1e-7, 1e-4):
            mu = lam + margin * scale
            if not math.isfinite(mu):
                break
            try:
                with single_threaded_blas():
                    R = np.linalg.cholesky(mu * np.eye(n) - mid).T  # mu I - mid ~ R^T R
            except np.linalg.LinAlgError:
                continue
            if not np.all(np.isfinite(R)):
                continue
            shift = arb_mat(n, n)
            for i in range(n):
                shift[i, i] = arb(mu)
            err = shift - sym - _gram(R)
            return arb((arb(mu) + _norm2_upper(err, v)).upper())
    return _norm2_upper(sym, None)


@final
@dataclass(frozen=True, eq=False)
class BallSet:
    """``{x : |x - centre|_2 <= radius}``: ``centre`` an ``N x d`` matrix of exact values (radius-0 balls),
    ``radius`` an exact upper bound (a radius-0 arb)."""

    centre: arb_mat
    radius: arb

    @staticmethod
    def from_balls(M: arb_mat) -> "BallSet":
        """A ball around the midpoints that contains the box of balls ``M`` (radius: the 2-norm of the radii)."""
        mids = arb_mat(M.nrows(), M.ncols(), [x.mid() for x in M.entries()])
        r2 = sum((x.rad() * x.rad() for x in M.entries()), arb(0))
        return BallSet(mids, arb(r2.sqrt().upper()))

    def hull(self) -> arb_mat:
        """The box ``centre +- radius`` in each coordinate (it contains the set)."""
        r = arb(0, self.radius.upper())
        return arb_mat(self.centre.nrows(), self.centre.ncols(), [c + r for c in self.centre.entries()])


@final
@dataclass(frozen=True, eq=False)
class BallStep:
    h: Fraction
    new: BallSet | None
    mu: float
    rejected: int
    remainder_width: float
    next_hint: float = math.inf
    reason: str = ""


def ball_step(S: BallSet, heads: Heads, causal: bool, h_left: Fraction, opts: ValidatedOptions,
              h_hint: float | None = None) -> BallStep:
    """Advance ``S`` by one step of length at most ``h_left`` (see the module docstring).  ``opts.order`` is
    the centre's Taylor order, ``opts.jacobian_order`` the order of the a-priori box's series."""
    K, q = opts.order, opts.jacobian_order
    Y = S.hull()
    pt = series(S.centre, heads, causal, K)
    by = series(Y, heads, causal, q)
    proposal = min(0.8 * propose_step(pt.X, opts.tol), opts.max_step)
    if h_hint is not None:
        proposal = min(proposal, h_hint)
    rejected = 0
    while True:
        h = h_left if proposal >= float(h_left) * (1 - 1e-12) else dyadic_down(proposal)
        if h < Fraction(opts.min_step) and h < h_left:
            return BallStep(h, None, math.inf, rejected, math.inf, reason=f"the step fell below min_step = {opts.min_step:g}")
        hb = ball(h)
        found = taylor_box(by.X[:q + 1], hb, heads, causal, jacobian=False) or picard_box(Y, hb, heads, causal)
        if found is None:
            rejected += 1
            proposal = float(h) / 2
            continue
        B, DF = found
        rem = series(B, heads, causal, K + 1).X[K + 1] * ipow(hb, K + 1)
        rw = max_width(rem)
        if rw > REJECT * opts.tol:
            rejected += 1
            proposal = float(h) * _factor(opts.tol, rw, K + 1)
            continue
        break
    if DF is None:  # from the Taylor test: the Jacobian on B, computed once the step is accepted
        DF = field_jacobian(B, heads, causal)
    try:
        mu = lognorm_upper(DF)
    except ArithmeticError:
        return BallStep(h, None, math.inf, rejected, rw, reason="the Jacobian enclosure is not finite")
    E = horner(pt.X, hb) + rem
    centre = arb_mat(E.nrows(), E.ncols(), [x.mid() for x in E.entries()])
    own = sum((x.rad() * x.rad() for x in E.entries()), arb(0)).sqrt()
    radius = (mu * hb).exp() * S.radius + own
    if not radius.is_finite():
        return BallStep(h, None, math.inf, rejected, rw, reason="the radius is not finite")
    hint = float(h) * _factor(opts.tol, rw, K + 1)
    return BallStep(h, BallSet(centre, arb(radius.upper())), float(mu.upper()), rejected, rw, hint)


def ball_width(S: BallSet) -> float:
    """The width ``2 r`` of every coordinate of the hull (rounded up)."""
    if not S.radius.is_finite():
        return math.inf
    return 2 * float(S.radius.upper()) * (1 + 2 ** -50)


__all__ = ["BallSet", "BallStep", "ball_step", "ball_width", "lognorm_upper"]
