"""Hypotheses of ``4.4-hemisphere`` (this project's reading of Assumption 4.4): ``lambda_1 > 0`` and every
token in the open v-hemisphere ``<v, x_i(0)> > 0``.

Both are decided in exact rational arithmetic; floats only propose a candidate (a rational vector
``w`` near ``v``), which is then checked exactly.  Data: one head, ``U`` constant and symmetric with
rational entries (float data are the binary rationals they hold); tokens rational (floats likewise).
Irrational data are ``unknown``.

* ``lambda_1 > 0``: holds with a rational witness ``w`` with ``w^T U w > 0`` (then ``lambda_1 >= w^T U w/|w|^2 > 0``);
  fails when the characteristic polynomial has no root in ``(0, oo)`` (Sturm count, exact).
* v-hemisphere: with ``w`` rational, ``mu = w^T U w / |w|^2`` and the proven ``lambda_2 <= hi_2 < mu``
  (root isolation), the angle ``theta`` between ``w`` and the eigenvector ``v`` (oriented by ``<v, w> > 0``)
  satisfies ``sin^2 theta <= rho^2 / (mu - hi_2)^2`` with ``rho^2 = |U w - mu w|^2 / |w|^2`` (Davis-Kahan: expand
  ``w/|w| = cos theta v + sin theta y``).  Since ``cos theta <v, x> >= <w, x>/|w| - sin theta |x|``, every token with
  ``<w, x>^2 > sin^2 theta |w|^2 |x|^2`` and ``<w, x> > 0`` has ``<v, x> > 0``.  When ``lambda_1`` is rational the
  exact eigenvector is used directly.  Fails with an exact witness: two tokens of opposite signs, or
  a token with ``<v, x> = 0`` (exact ``v``), or with ``<w, x>`` of the other sign beyond the bound.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from ..system import AttentionSystem
from ..verdict import Verdict, fails, holds, unknown
from ._rational import fstr, rational_direction, rational_matrix, solve_rational, to_fraction
from .base import Predicate
from .value_map import constant_value

_X = sympy.Symbol("x")


def _matrix(system: AttentionSystem) -> tuple[list[list[Fraction]] | None, str]:
    if system.H != 1:
        return None, f"{system.H} heads: the hypothesis is stated for one head"
    status, value, _ = constant_value(system.heads[0].U)
    if value is None:
        return None, "U is not (provably) time-invariant"
    rat = rational_matrix(value)
    if rat is None:
        return None, "U has irrational entries: only rational data are decided exactly here"
    if any(rat[i][j] != rat[j][i] for i in range(len(rat)) for j in range(len(rat))):
        return None, "U is not symmetric"
    return rat, ""


def _quad(U, w) -> Fraction:
    return sum((w[i] * U[i][j] * w[j] for i in range(len(w)) for j in range(len(w))), Fraction(0))


def _dot(a, b) -> Fraction:
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _charpoly(U) -> sympy.Poly:
    return sympy.Matrix([[sympy.Rational(v.numerator, v.denominator) for v in row] for row in U]).charpoly(_X)


def _candidates(U) -> list[list[Fraction]]:
    """Rational vectors near the float top eigenvector (rounded at several scales), then the basis vectors."""
    w, vecs = np.linalg.eigh(np.array([[float(v) for v in row] for row in U]))
    top = vecs[:, -1]
    out = [[Fraction(round(float(c) * 2 ** k)) / 2 ** k for c in top] for k in (8, 16, 32, 48)]
    d = len(U)
    out += [[Fraction(int(i == k)) for i in range(d)] for k in range(d)]
    return [c for c in out if any(c)]


def _refined_candidates(U, iterations: int = 3) -> list[list[Fraction]]:
    """Rational vectors much closer to ``v``: exact inverse iteration ``(U - s I) w' = w`` from the
    float candidate, with the rational shift ``s`` just above ``lambda_1`` (its isolating interval
    refined to ``1e-60``).  Each step divides the other components by ``|lambda_j - s| / |lambda_1 - s|``;
    a hint only (the Davis-Kahan bound of the caller decides)."""
    d = len(U)
    if d > 16:
        return []
    roots = sorted(_charpoly(U).intervals(eps=sympy.Rational(1, 10 ** 60)), key=lambda item: item[0][0])
    (lo1, hi1), _ = roots[-1]
    s = to_fraction(hi1) + (to_fraction(hi1) - to_fraction(lo1)) + Fraction(1, 10 ** 70)
    M = [[U[i][j] - (s if i == j else 0) for j in range(d)] for i in range(d)]
    w = _candidates(U)[3]
    out = []
    for _ in range(iterations):
        w = solve_rational(M, w)
        if w is None:
            return out
        top = max(abs(c) for c in w)
        w = [c / top for c in w]
        out.append(w)
    return out


def positive_witness(U) -> list[Fraction] | None:
    for w in _candidates(U):
        if _quad(U, w) > 0:
            return w
    return None


class TopEigenvaluePositive(Predicate):
    """``lambda_1(U) > 0`` exactly (one head, ``U`` constant symmetric rational)."""
    reads = ("U",)

    id = "lambda_1_positive"
    statement = "the largest eigenvalue of U is positive: lambda_1 > 0"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        U, why = _matrix(system)
        if U is None:
            return unknown(self.id, why)
        w = positive_witness(U)
        if w is not None:
            q = _quad(U, w)
            return holds(self.id, f"w^T U w = {fstr(q)} > 0 for the rational w below, so lambda_1 >= w^T U w/|w|^2 > 0",
                         {"w": [fstr(c) for c in w], "w^T U w": fstr(q), "|w|^2": fstr(_dot(w, w))})
        poly = _charpoly(U)
        positive = poly.count_roots(0, None) - (1 if poly.eval(0) == 0 else 0)
        if positive == 0:
            return fails(self.id, "the characteristic polynomial has no root in (0, oo) (exact Sturm count): lambda_1 <= 0",
                         {"characteristic_polynomial": str(poly.as_expr()), "roots_in_(0,oo)": 0})
        return unknown(self.id, "no rational witness found although a positive root exists (refine the candidate)",
                       {"characteristic_polynomial": str(poly.as_expr())})


def _tokens(system: AttentionSystem) -> list[list[Fraction]] | None:
    """Rational positive multiples of the tokens (signs of ``<v, x_i>`` depend on directions only)."""
    if system.tokens_exact is None:
        return [[to_fraction(v) for v in row] for row in system.tokens.tolist()]
    rows = [rational_direction(system.tokens_exact.row(i)) for i in range(system.N)]
    return None if any(r is None for r in rows) else rows


def _top_bounds(U) -> tuple[Fraction, Fraction, int] | None:
    """``(lo_1, hi_2, multiplicity of lambda_1)`` from exact root isolation (``hi_2`` None-safe for d = 1)."""
    poly = _charpoly(U)
    roots = sorted(poly.intervals(eps=sympy.Rational(1, 10 ** 12)), key=lambda item: item[0][0])
    (lo1, _), mult = roots[-1]
    hi2 = roots[-2][0][1] if len(roots) > 1 else None
    return to_fraction(lo1), (to_fraction(hi2) if hi2 is not None else None), int(mult)


def _exact_top_vector(U) -> list[Fraction] | None:
    """The exact (rational) top eigenvector when ``lambda_1`` is rational and simple, else None."""
    poly = _charpoly(U)
    rational = [r for r in sympy.roots(poly, filter="Q")]
    if not rational:
        return None
    top = max(rational)
    lo1, _, mult = _top_bounds(U)
    if mult > 1 or top < sympy.Rational(lo1.numerator, lo1.denominator):
        return None  # the largest root is irrational
    M = sympy.Matrix([[sympy.Rational(v.numerator, v.denominator) for v in row] for row in U]) - top * sympy.eye(len(U))
    basis = M.nullspace()
    if len(basis) != 1:
        return None
    return [to_fraction(c) for c in basis[0]]


def v_hemisphere_certificate(U, tokens) -> tuple[str, dict[str, Any]]:
    """``("holds" | "fails" | "unknown", witness)``; the witness's rationals re-check the answer."""
    d = len(U)
    if d == 1:
        signs = {(t[0] > 0) - (t[0] < 0) for t in tokens}
        return ("holds" if len(signs) == 1 and 0 not in signs else "fails"), {"v": ["1" if 1 in signs else "-1"]}
    lo1, hi2, mult = _top_bounds(U)
    if mult > 1:
        return "unknown", {"reason": "lambda_1 is not simple"}
    exact = _exact_top_vector(U)
    if exact is not None:
        inner = [_dot(exact, x) for x in tokens]
        signs = {(c > 0) - (c < 0) for c in inner}
        witness = {"v_exact": [fstr(c) for c in exact], "inner_v_x": [fstr(c) for c in inner]}
        if signs in ({1}, {-1}):
            return "holds", {**witness, "orientation": signs.pop()}
        return "fails", {**witness, "reason": "a token has <v, x_i> = 0" if 0 in signs else "tokens on both sides of v^perp"}
    for w in _candidates(U)[:4] + _refined_candidates(U):
        n2 = _dot(w, w)
        mu = _quad(U, w) / n2
        if hi2 is None or mu <= hi2:
            continue
        res = [sum((U[i][j] * w[j] for j in range(d)), Fraction(0)) - mu * w[i] for i in range(d)]
        sin2 = (_dot(res, res) / n2) / (mu - hi2) ** 2
        if sin2 >= 1:
            continue
        inner = [_dot(w, x) for x in tokens]
        sure = [c * c > sin2 * n2 * _dot(x, x) for c, x in zip(inner, tokens)]
        signs = [(c > 0) - (c < 0) if s else 0 for c, s in zip(inner, sure)]
        witness = {"w": [fstr(c) for c in w], "sin2_theta_upper": fstr(sin2), "lambda_2_upper": fstr(hi2),
                   "mu": fstr(mu), "inner_w_x": [fstr(c) for c in inner], "decided": sure}
        if all(sure):
            if len(set(signs)) == 1:
                witness["orientation"] = signs[0]
                return "holds", witness
            return "fails", {**witness, "reason": "tokens on both sides of v^perp"}
        if 1 in signs and -1 in signs:
            return "fails", {**witness, "reason": "tokens on both sides of v^perp"}
    return "unknown", {"reason": "a token is too close to v^perp to decide its side exactly with these candidates"}


class VHemisphere(Predicate):
    """Every token in one open v-hemisphere: ``<v, x_i(0)> > 0`` for all i (v oriented by the tokens)."""
    reads = ("U", "tokens")

    id = "v_hemisphere"
    statement = "every token lies in the open v-hemisphere: <v, x_i(0)> > 0 (v: top eigenvector of U, sign chosen)"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        U, why = _matrix(system)
        if U is None:
            return unknown(self.id, why)
        tokens = _tokens(system)
        if tokens is None:
            return unknown(self.id, "tokens with irrational coordinates are not decided exactly here")
        status, witness = v_hemisphere_certificate(U, tokens)
        if system.tokens_exact is not None and not all(v.is_Rational for v in system.tokens_exact):
            witness = {**witness, "token_directions": [[fstr(c) for c in row] for row in tokens],
                       "token_directions_note": "the inner products above are of these rational positive multiples "
                                                "of the tokens (same signs)"}
        if status == "holds":
            side = "+" if witness.get("orientation", 1) > 0 else "-"
            how = (f"the exact rational eigenvector {side}v = {side}({', '.join(witness['v_exact'])})" if "v_exact" in witness
                   else f"v oriented along {side}w (exact Davis-Kahan bound sin^2 theta <= {witness.get('sin2_theta_upper')})")
            return holds(self.id, f"every token satisfies <v, x_i> > 0 for {how}", witness)
        if status == "fails":
            return fails(self.id, "some token is not in the open v-hemisphere (tokens on both sides of v^perp)", witness)
        return unknown(self.id, witness.get("reason", "undecided"), witness)
