"""Safe parsing of user polynomials and constraint lists, and conversion to exact polynomials.

Text goes through the toolkit's one safe parser (:mod:`theorems.parsing`: a fixed grammar, no
evaluation while parsing, limits on size, nesting, digits and exponents) with functions and
constants disabled and only the declared variables (or, without ``--vars``, any identifier).
Decimals are the exact rationals they spell (``0.1`` is ``1/10``); the result must be a
polynomial with rational coefficients in the variables.  Never evaluates arbitrary Python.
"""
from __future__ import annotations

import keyword
import re
from fractions import Fraction
from typing import Iterable, Sequence

import sympy

from theorems.errors import InvalidInput
from theorems.parsing import CONSTANTS, FUNCTIONS, Grammar, parse

from . import poly

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_RESERVED = set(FUNCTIONS) | set(CONSTANTS) | {"ln", "asin", "acos", "max", "min", "I", "oo", "S", "N", "O", "Q"}


def symbols_from_names(names: Sequence[str] | str, field: str = "--vars") -> tuple[sympy.Symbol, ...]:
    if isinstance(names, str):
        names = [s.strip() for s in names.split(",") if s.strip()]
    elif isinstance(names, (list, tuple)):
        names = list(names)
    else:  # None, 5, b"x", a set (no order): not variable names
        raise InvalidInput(field, "variable names as one string 'x, y' or a list of strings", names)
    if not names:
        raise InvalidInput(field, "at least one variable name", names)
    for name in names:
        if not isinstance(name, str) or not _NAME.match(name) or keyword.iskeyword(name) or "__" in name:
            raise InvalidInput(field, "identifiers such as x, y, a_1", name)
    if len(set(names)) != len(names):
        raise InvalidInput(field, "distinct variable names", names)
    return tuple(sympy.Symbol(n, real=True) for n in names)


def parse_polynomial(text: str, symbols: Sequence[sympy.Symbol] | None, field: str) -> sympy.Expr:
    """Parse ``text`` as a polynomial; with ``symbols=None`` any identifier becomes a variable."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(field, "a polynomial such as 'x^2 - 2*x*y + 3'", text)
    declared = {s.name: s for s in symbols} if symbols is not None else {}

    def free(name: str) -> sympy.Symbol:
        if keyword.iskeyword(name) or name in _RESERVED or not _NAME.match(name):
            raise InvalidInput(field, "variable names that are not reserved words", name)
        return declared.setdefault(name, sympy.Symbol(name, real=True))

    reserved = sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)) & _RESERVED - set(declared))
    if reserved:
        raise InvalidInput(field, "a polynomial (no functions or constants such as sin, exp, pi)", text,
                           f"Reserved name(s): {', '.join(reserved)}")
    grammar = Grammar(variables=dict(declared), functions=False, free_names=free if symbols is None else None)
    parsed = parse(text, grammar, field)
    expr = parsed.expr
    for kind, g, what in parsed.conditions:
        if kind == "nonzero" and g.free_symbols:
            raise InvalidInput(field, "a polynomial (division by constants only)", text, f"Division by {g}")
    if not isinstance(expr, sympy.Expr) or expr.atoms(sympy.Function):
        raise InvalidInput(field, "a polynomial (no functions)", text)
    if symbols is not None:
        extra = expr.free_symbols - set(symbols)
        if extra:
            raise InvalidInput(field, f"a polynomial in {', '.join(s.name for s in symbols)}", text,
                               f"Unknown symbol(s): {', '.join(sorted(map(str, extra)))}; add them to --vars")
    return expr


def parse_constraints(text: str, symbols: Sequence[sympy.Symbol] | None,
                      field: str = "--on") -> tuple[list[sympy.Expr], list[sympy.Expr]]:
    """``"g1 >= 0, g2 <= h, h == 0"`` -> (inequalities ``g >= 0``, equalities ``h = 0``)."""
    ineqs: list[sympy.Expr] = []
    eqs: list[sympy.Expr] = []
    if text is None or not text.strip():
        return ineqs, eqs
    for k, part in enumerate(p.strip() for p in text.split(",")):
        where = f"{field} constraint {k + 1}"
        if not part:
            raise InvalidInput(where, "a constraint such as 'x >= 0'", part)
        for op in (">=", "<=", "==", "="):
            if op in part:
                lhs, rhs = part.split(op, 1)
                if any(o in rhs for o in ("<", ">", "=")):
                    raise InvalidInput(where, "one comparison per constraint", part)
                left = parse_polynomial(lhs, symbols, where)
                right = parse_polynomial(rhs, symbols, where)
                if op == ">=":
                    ineqs.append(sympy.expand(left - right))
                elif op == "<=":
                    ineqs.append(sympy.expand(right - left))
                else:
                    eqs.append(sympy.expand(left - right))
                break
        else:
            hint = "strict inequalities are not supported; use >=" if ("<" in part or ">" in part) else ""
            raise InvalidInput(where, "a constraint 'lhs >= rhs', 'lhs <= rhs' or 'lhs == rhs'", part, hint)
    return ineqs, eqs


def to_exact(expr: object, symbols: Sequence[sympy.Symbol], field: str) -> poly.Poly:
    """An exact :mod:`verify._sos.poly` polynomial from a SymPy expression / Poly / number."""
    if isinstance(expr, sympy.Poly):
        expr = expr.as_expr()
    if isinstance(expr, (int, Fraction)) and not isinstance(expr, bool):
        expr = sympy.Rational(expr.numerator, expr.denominator) if isinstance(expr, Fraction) else sympy.Integer(expr)
    if isinstance(expr, str):
        expr = parse_polynomial(expr, symbols, field)
    if not isinstance(expr, sympy.Expr):
        raise InvalidInput(field, "a SymPy polynomial expression", expr)
    if expr.atoms(sympy.Float):
        raise InvalidInput(field, "exact rational coefficients", expr, "Use sympy.Rational(1, 10) instead of 0.1")
    by_name = {s.name: s for s in symbols}
    expr = expr.xreplace({s: by_name[s.name] for s in expr.free_symbols
                          if isinstance(s, sympy.Symbol) and s.name in by_name})
    extra = expr.free_symbols - set(symbols)
    if extra:
        raise InvalidInput(field, f"a polynomial in {', '.join(map(str, symbols))}", expr,
                           f"Unknown symbol(s): {', '.join(sorted(map(str, extra)))}")
    try:
        exact_poly = sympy.Poly(sympy.expand(expr), *symbols, domain="QQ") if symbols else None
    except (sympy.PolynomialError, sympy.CoercionFailed, ValueError) as exc:
        raise InvalidInput(field, "a polynomial with rational coefficients", expr, str(exc)) from None
    out: poly.Poly = {}
    for mono, coef in exact_poly.terms():
        c = sympy.Rational(coef)
        if c:
            out[tuple(int(e) for e in mono)] = Fraction(int(c.p), int(c.q))
    return out


def to_exact_all(exprs: Iterable[object], symbols: Sequence[sympy.Symbol], field: str) -> list[poly.Poly]:
    return [to_exact(e, symbols, f"{field}[{k}]") for k, e in enumerate(exprs)]
