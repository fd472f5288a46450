"""Shared pieces of the top-eigenvalue analysis (:mod:`._eigen`, :mod:`._eigen_algebraic`): witness
texts, the float hint, exact eigenvectors and rational intervals."""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from ..matrices import ConstantMatrix
from ._rational import fstr

_X = sympy.Symbol("x")
PRECISIONS = (128, 256, 512, 1024, 2048, 4096)

Interval = tuple[Fraction, Fraction]


def _short(expr: sympy.Expr, fallback: str) -> str:
    text = str(expr)
    return text if len(text) <= 400 else fallback


def _float_info(m: ConstantMatrix) -> dict[str, Any]:
    w, vecs = np.linalg.eigh(m.array)
    return {"eigenvalues_float": w[::-1].tolist(), "v_float": vecs[:, -1].tolist(),
            "gap_float": float(w[-1] - w[-2]) if len(w) > 1 else None}


def rat_to_sympy(rat: list[list[Fraction]]) -> list[list[sympy.Rational]]:
    return [[sympy.Rational(v.numerator, v.denominator) for v in row] for row in rat]


def _eigenvector(U: sympy.Matrix, lam: sympy.Expr) -> dict[str, Any]:
    """Exact eigenvector when ``lam`` is rational (or the dimension is tiny), else ``v_exact`` False."""
    if isinstance(lam, sympy.Rational) or U.rows <= 2:
        basis = (U - lam * sympy.eye(U.rows)).nullspace(simplify=True)
        if len(basis) == 1:
            v = basis[0].applyfunc(sympy.simplify)
            residual = (U * v - lam * v).applyfunc(sympy.simplify)
            if all(r == 0 for r in residual):
                return {"v": [str(c) for c in v], "v_exact": True}
    return {"v": None, "v_exact": False}


# --- irrational exact data ------------------------------------------------------------------


def _interval(iv: Interval) -> list[str]:
    return [fstr(iv[0]), fstr(iv[1])]


def _dec(q: Fraction) -> str:
    """Exact decimal text of a rational with a terminating expansion (else ``p/q``)."""
    for k in range(64):
        if (q * 10 ** k).denominator == 1:
            digits = str(abs(q.numerator * 10 ** k // q.denominator)).rjust(k + 1, "0")
            text = digits if k == 0 else f"{digits[:-k]}.{digits[-k:]}"
            return ("-" if q < 0 else "") + text
    return fstr(q)


def _in(iv: Interval) -> str:
    return f"in [{_dec(iv[0])}, {_dec(iv[1])}]"
