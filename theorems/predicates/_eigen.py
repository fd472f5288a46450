"""Exact top-eigenvalue analysis of a symmetric constant matrix (Assumption 4.4).

Rational data (exact rationals, or floats read as the rationals they hold): the characteristic
polynomial is computed exactly (python-flint), its real roots are isolated by rational intervals
with multiplicities (SymPy ``Poly.intervals``, exact), so ``lambda_1`` is simple iff its root has
multiplicity 1 (for a symmetric matrix algebraic and geometric multiplicity agree) and
``gap >= lo(lambda_1) - hi(lambda_2) > 0`` is a proven rational lower bound.

Irrational exact data: :mod:`theorems.predicates._eigen_algebraic`.  Larger float problems are unknown
(the float gap is reported as a measurement).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import flint
import sympy

from ..matrices import ConstantMatrix
from ..verdict import Status
from ._rational import fstr, rational_lower, rational_matrix, to_fraction
from ._eigen_algebraic import EXACT_ALGEBRAIC_DIM, _algebraic_top
from ._eigen_support import _X, _eigenvector, _float_info, _short, rat_to_sympy

EXACT_RATIONAL_DIM = 32
EXACT_FLOAT_DIM = 12


def top_eigen(m: ConstantMatrix) -> tuple[Status, dict[str, Any]]:
    """``(status, witness)`` for "the largest eigenvalue of symmetric ``m`` is simple"."""
    d = m.dim
    if d == 1:
        lam = m.exact[0, 0] if m.exact is not None else sympy.Rational(float(m.array[0, 0]))
        return Status.HOLDS, {"lambda_1": str(lam), "lambda_2": None, "gap": None, "gap_lower_bound": None,
                              "v": ["1"], "v_exact": True, "multiplicity": 1, "exact": True}
    rat = rational_matrix(m)
    if rat is not None:
        limit = EXACT_RATIONAL_DIM if m.exact is not None else EXACT_FLOAT_DIM
        if d <= limit:
            return _rational_top(rat, m)
        return Status.UNKNOWN, {"reason": f"dimension {d} exceeds the exact eigenvalue limit {limit}",
                                "exact": False, **_float_info(m)}
    if d <= EXACT_ALGEBRAIC_DIM:
        return _algebraic_top(m)
    return Status.UNKNOWN, {"reason": f"irrational exact entries in dimension {d} exceed the limit "
                                      f"{EXACT_ALGEBRAIC_DIM}", "exact": False, **_float_info(m)}


def _rational_top(rat: list[list[Fraction]], m: ConstantMatrix) -> tuple[Status, dict[str, Any]]:
    d = len(rat)
    mat = flint.fmpq_mat(d, d, [flint.fmpq(v.numerator, v.denominator) for row in rat for v in row])
    coeffs = [sympy.Rational(int(c.p), int(c.q)) for c in mat.charpoly().coeffs()][::-1]
    poly = sympy.Poly(coeffs, _X, domain="QQ")
    roots = sorted(poly.intervals(), key=lambda item: item[0][0])
    (lo1, hi1), mult1 = roots[-1]
    n_distinct = len(roots)
    index1 = d - 1  # CRootOf indexes real roots ascending, with multiplicity
    radicals = m.exact is not None and d <= 4  # float data give huge radicals: keep CRootOf
    lam1 = poly.real_roots()[index1] if radicals else sympy.CRootOf(poly, index1)
    lam1_text = _short(lam1, f"largest root of the characteristic polynomial, in [{lo1}, {hi1}]")
    base = {"characteristic_polynomial": _short(poly.as_expr(), "(long; recompute with flint charpoly)"),
            "multiplicity": int(mult1), "lambda_1": lam1_text, **_float_info(m)}
    if mult1 > 1:
        return Status.FAILS, {"reason": f"lambda_1 has multiplicity {mult1}", "exact": True,
                              "lambda_1_interval": [str(lo1), str(hi1)], **base}
    if n_distinct < 2:
        raise ValueError("a simple top root of a degree >= 2 polynomial must have a second root")
    index2 = index1 - 1
    lam2 = poly.real_roots()[index2] if radicals else sympy.CRootOf(poly, index2)
    eps = sympy.Rational(1, 10 ** 6)
    while True:
        ivs = sorted(poly.intervals(eps=eps), key=lambda item: item[0][0])
        gap_lb = to_fraction(ivs[-1][0][0]) - to_fraction(ivs[-2][0][1])
        if gap_lb > 0 and (eps * 10 ** 9 <= sympy.Rational(gap_lb.numerator, gap_lb.denominator)):
            break
        eps = eps / 10 ** 6 if gap_lb <= 0 else sympy.Rational(gap_lb.numerator, gap_lb.denominator) / 10 ** 10
    short_lb = rational_lower(float(gap_lb))
    gap_lb = short_lb if 0 < short_lb <= gap_lb else gap_lb
    gap = sympy.simplify(lam1 - lam2) if radicals else lam1 - lam2
    witness = {**base, "lambda_2": _short(lam2, f"second largest root, in [{ivs[-2][0][0]}, {ivs[-2][0][1]}]"),
               "gap": _short(gap, "lambda_1 - lambda_2 (see the intervals)"), "gap_lower_bound": fstr(gap_lb),
               "lambda_1_interval": [str(ivs[-1][0][0]), str(ivs[-1][0][1])],
               "lambda_2_interval": [str(ivs[-2][0][0]), str(ivs[-2][0][1])], "exact": True}
    witness.update(_eigenvector(sympy.Matrix(rat_to_sympy(rat)), lam1))
    if not witness["v_exact"]:
        witness["v"] = witness["v_float"]
    return Status.HOLDS, witness
