"""Coq text for exact data: identifiers, rational literals in ``R``, polynomials and SymPy expressions.

Every number goes into Coq exactly: an integer ``n`` is the real literal ``n`` (``IZR`` of a binary
integer), a rational ``n/d`` is ``(n / d)``, never a decimal or a float.  Variables are printed as
``v_NAME`` so that they can never shadow a definition of the exported file (definitions never start with
``v_``) or a name of Coq's library (``exp``, ``R``, ``sqrt``).
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Mapping, Sequence

import sympy

from theorems.errors import InvalidInput

_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")


def step_name(step_id: str, field: str = "step id") -> str:
    """A step id as a Coq identifier: ids come from the report and must already be identifiers."""
    if not isinstance(step_id, str) or not _IDENT.match(step_id):
        raise InvalidInput(field, "an identifier [A-Za-z][A-Za-z0-9_]* of at most 64 characters", step_id)
    return step_id


def var(name: str) -> str:
    """A variable of a goal: ``v_`` and the name with every other character replaced by ``_`` and its code."""
    body = "".join(c if c.isascii() and (c.isalnum() or c == "_") else f"_{ord(c):x}_" for c in name)
    return f"v_{body}"


def rational(value: Fraction | int | sympy.Rational) -> str:
    """An exact rational as a real literal: ``3``, ``(- 3)``, ``(3 / 7)``, ``(- (3 / 7))``."""
    q = Fraction(int(value.p), int(value.q)) if isinstance(value, sympy.Rational) else Fraction(value)
    body = str(abs(q.numerator)) if q.denominator == 1 else f"({abs(q.numerator)} / {q.denominator})"
    return f"(- {body})" if q < 0 else body


def monomial(exponents: Sequence[int], names: Sequence[str]) -> str:
    factors = []
    for e, n in zip(exponents, names):
        if e == 1:
            factors.append(n)
        elif e > 1:
            factors.append(f"{n} ^ {e}")
    return " * ".join(factors) if factors else "1"


def polynomial(poly: Mapping[tuple[int, ...], Fraction], names: Sequence[str]) -> str:
    """``sum c_m * m`` over the sorted monomials (``0`` for the zero polynomial)."""
    terms = []
    for mono, coef in sorted(poly.items()):
        if not coef:
            continue
        m = monomial(mono, names)
        terms.append(rational(coef) if m == "1" else f"{rational(coef)} * ({m})")
    return " + ".join(terms) if terms else "0"


def expr(e: sympy.Expr, names: Mapping[sympy.Symbol, str] | None = None) -> str:
    """A SymPy expression built from symbols, rationals, ``+``, ``*``, integer powers, ``sqrt`` and ``exp``.

    Anything else (floats, other functions) raises :class:`~theorems.errors.InvalidInput`: such a step is
    then reported as not exported, never approximated."""
    names = names or {}
    if isinstance(e, sympy.Symbol):
        return names.get(e, var(e.name))
    if isinstance(e, sympy.Rational):  # Integer is a Rational
        return rational(e)
    if isinstance(e, sympy.Add):
        return "(" + " + ".join(expr(a, names) for a in sympy.Add.make_args(e)) + ")"
    if isinstance(e, sympy.Mul):
        return "(" + " * ".join(expr(a, names) for a in sympy.Mul.make_args(e)) + ")"
    if isinstance(e, sympy.Pow):
        base, exponent = e.args
        if exponent == sympy.Rational(1, 2):
            return f"(sqrt {expr(base, names)})"
        if isinstance(exponent, sympy.Integer):
            n = int(exponent)
            if n >= 0:
                return f"({expr(base, names)} ^ {n})"
            return f"(/ ({expr(base, names)} ^ {-n}))"
    if isinstance(e, sympy.exp):
        return f"(exp {expr(e.args[0], names)})"
    raise InvalidInput("expression", "symbols, rationals, +, *, integer powers, sqrt and exp", str(e),
                       "this step cannot be stated in Coq exactly and is reported as not exported")


def conjunction(props: Sequence[str]) -> str:
    return " /\\ ".join(f"({p})" for p in props) if props else "True"
