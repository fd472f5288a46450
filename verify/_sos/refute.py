"""Refutation by exact rational witnesses: a point of the set where the polynomial is negative.

Candidates come from a grid of small rationals (:func:`grid_witness`, cheap: run before a proof)
and, when there is no equality constraint, from
a floating-point local minimisation (of ``p`` plus a penalty for leaving the set) whose minimiser
is rounded to rationals (:func:`local_witness`, SciPy: run only after a failed proof).  A candidate is
a witness only after an *exact* check: every ``g_k(x) >= 0``, every ``h_l(x) = 0`` and
``p(x) < 0`` in :class:`fractions.Fraction` arithmetic.  Not finding a witness proves nothing.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final

import numpy as np

from . import poly

_GRID = [Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-1, 2), Fraction(2), Fraction(-2),
         Fraction(1, 3), Fraction(-1, 3), Fraction(3, 2), Fraction(-3, 2), Fraction(2, 3), Fraction(-2, 3),
         Fraction(3), Fraction(-3), Fraction(1, 4), Fraction(-1, 4), Fraction(3, 4), Fraction(-3, 4)]


@final
@dataclass(frozen=True)
class Witness:
    point: tuple[Fraction, ...]
    value: Fraction


def _float_eval(p: poly.Poly, n: int):
    if not p:
        return lambda X: np.zeros(X.shape[0])
    exps = np.array(list(p.keys()), dtype=float).reshape(len(p), n)
    coefs = np.array([float(c) for c in p.values()])

    def f(X: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(X)
        with np.errstate(all="ignore"):
            terms = np.prod(X[:, None, :] ** exps[None, :, :], axis=2)
        return terms @ coefs
    return f


def _exact_witness(point: Sequence[Fraction], p: poly.Poly, ineqs: Sequence[poly.Poly], eqs: Sequence[poly.Poly]) -> Witness | None:
    if any(poly.evaluate(h, point) != 0 for h in eqs):
        return None
    if any(poly.evaluate(g, point) < 0 for g in ineqs):
        return None
    value = poly.evaluate(p, point)
    return Witness(tuple(point), value) if value < 0 else None


def find_witness(p: poly.Poly, n: int, ineqs: Sequence[poly.Poly] = (), eqs: Sequence[poly.Poly] = (),
                 seed: int = 0, samples: int = 400, starts: int = 6) -> Witness | None:
    """Search a rational point of ``{g >= 0, h = 0}`` with ``p < 0``; ``None`` when none is found."""
    return (grid_witness(p, n, ineqs, eqs, seed, samples)
            or local_witness(p, n, ineqs, eqs, seed, starts))


def grid_witness(p: poly.Poly, n: int, ineqs: Sequence[poly.Poly] = (), eqs: Sequence[poly.Poly] = (),
                 seed: int = 0, samples: int = 400) -> Witness | None:
    """The cheap half of :func:`find_witness`: small rationals only (numpy, no optimiser)."""
    rng = random.Random(seed)
    if len(_GRID) ** n <= samples:
        grid = [tuple(pt) for pt in itertools.product(_GRID, repeat=n)]
    else:
        grid = [tuple(rng.choice(_GRID) for _ in range(n)) for _ in range(samples)]
    f = _float_eval(p, n)
    X = np.array([[float(v) for v in pt] for pt in grid]).reshape(len(grid), n)
    with np.errstate(all="ignore"):
        values = f(X)
    order = np.argsort(values)
    for idx in order[:60]:
        if values[idx] > 1e-9 * (1 + abs(values[idx])):
            break
        found = _exact_witness(grid[idx], p, ineqs, eqs)
        if found:
            return found
    return None


def local_witness(p: poly.Poly, n: int, ineqs: Sequence[poly.Poly] = (), eqs: Sequence[poly.Poly] = (),
                  seed: int = 0, starts: int = 6) -> Witness | None:
    """The expensive half of :func:`find_witness`: local minimisation (SciPy), rounded to rationals."""
    if eqs:
        return None  # a rounded float minimiser essentially never satisfies h(x) = 0 exactly
    from scipy.optimize import minimize  # lazily: SciPy's import is ~0.3-0.5 s of a cold start

    f = _float_eval(p, n)
    gs = [_float_eval(g, n) for g in ineqs]
    hs = [_float_eval(h, n) for h in eqs]

    def objective(x: np.ndarray) -> float:
        if not np.all(np.isfinite(x)) or float(np.max(np.abs(x))) > 1e6:
            return 1e30
        x2 = x[None, :]
        with np.errstate(all="ignore"):
            penalty = sum(float(np.minimum(g(x2), 0.0)[0]) ** 2 for g in gs) + sum(float(h(x2)[0]) ** 2 for h in hs)
            total = float(f(x2)[0]) + 1e3 * penalty + 1e-6 * float(x @ x) ** 2
        return total if np.isfinite(total) else 1e30

    nprng = np.random.default_rng(seed)
    for _ in range(starts):
        x0 = nprng.uniform(-1.5, 1.5, size=n)
        try:
            res = minimize(objective, x0, method="Nelder-Mead" if n <= 2 else "BFGS",
                           options={"maxiter": 400})
        except (ValueError, FloatingPointError, OverflowError):
            continue
        with np.errstate(all="ignore"):
            if not np.all(np.isfinite(res.x)) or not float(f(res.x[None, :])[0]) < 0:
                continue
        for D in (1, 2, 4, 8, 16, 64, 256, 4096, 2 ** 20):
            point = tuple(Fraction(round(float(v) * D), D) for v in res.x)
            found = _exact_witness(point, p, ineqs, eqs)
            if found:
                return found
    return None
