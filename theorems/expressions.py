"""Parsing of numbers and expressions in the time variable ``t`` from user input.

Accepted: JSON numbers (ints are exact, floats are kept as floats), exact strings such as
``"3/7"`` or ``"sqrt(2)/2"``, and expressions in ``t`` built from a fixed whitelist of
functions.  Anything else is rejected with an :class:`~theorems.errors.InvalidInput` naming the
field.  Parsing never evaluates arbitrary Python (``parse_expr`` runs on a restricted namespace
and the result is checked to contain only ``t`` and whitelisted functions).
"""
from __future__ import annotations

import math
import re

import sympy
from sympy.parsing.sympy_parser import (
    convert_xor,
    parse_expr,
    standard_transformations,
)

from .errors import InvalidInput

t = sympy.Symbol("t", real=True, nonnegative=True)
"""The depth-time variable of the continuous model (SPEC §1)."""

_FUNCTIONS = {
    "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "exp": sympy.exp, "log": sympy.log,
    "sqrt": sympy.sqrt, "tanh": sympy.tanh, "atan": sympy.atan, "Abs": sympy.Abs, "abs": sympy.Abs,
    "sinh": sympy.sinh, "cosh": sympy.cosh, "pi": sympy.pi, "E": sympy.E, "Rational": sympy.Rational,
}
_ALLOWED_HEADS = (sympy.sin, sympy.cos, sympy.tan, sympy.exp, sympy.log, sympy.tanh, sympy.atan,
                  sympy.Abs, sympy.sinh, sympy.cosh)
_GLOBALS = {"__builtins__": {}, "Integer": sympy.Integer, "Rational": sympy.Rational,
            "Float": sympy.Float, "Symbol": sympy.Symbol, "Function": sympy.Function}
_TRANSFORMS = standard_transformations + (convert_xor,)
_SAFE_TEXT = re.compile(r"^[0-9A-Za-z_+\-*/^(). ,eE]*$")


def parse_scalar(value: object, field: str) -> sympy.Expr:
    """Parse one matrix entry or scalar. Returns a SymPy expression (possibly containing ``t``).

    Floats become ``sympy.Float`` (marking inexact data); ints and strings without a decimal
    point are exact.
    """
    if isinstance(value, bool) or value is None:
        raise InvalidInput(field, "a number or an expression string", value)
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(field, "a finite number", value)
        return sympy.Float(value, 17)
    if not isinstance(value, str):
        raise InvalidInput(field, "a number or an expression string", value)
    text = value.strip()
    if not text or not _SAFE_TEXT.match(text) or "__" in text:
        raise InvalidInput(field, "an expression in t such as '3/7' or 'sin(t)'", value,
                           "Only numbers, t, + - * / ^ ( ) and the functions "
                           + ", ".join(sorted(k for k in _FUNCTIONS if k[0].islower())) + " are allowed")
    try:
        expr = parse_expr(text, local_dict={"t": t, **_FUNCTIONS}, global_dict=_GLOBALS,
                          transformations=_TRANSFORMS, evaluate=True)
    except Exception as exc:  # sympy raises many types for bad syntax
        raise InvalidInput(field, "a parsable expression in t", value, f"Parser said: {exc}") from None
    if not isinstance(expr, sympy.Expr):
        raise InvalidInput(field, "a scalar expression", value)
    extra = expr.free_symbols - {t}
    if extra:
        raise InvalidInput(field, "an expression in the single variable t", value,
                           f"Unknown symbol(s): {', '.join(sorted(map(str, extra)))}")
    for fn in expr.atoms(sympy.Function):
        if not isinstance(fn, _ALLOWED_HEADS):
            raise InvalidInput(field, "whitelisted functions only", value, f"{fn.func} is not allowed")
    if expr.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan):
        raise InvalidInput(field, "a finite expression", value)
    if not expr.free_symbols:
        try:
            if not sympy.Float(expr.evalf(30)).is_finite or expr.is_real is False:
                raise InvalidInput(field, "a finite real number", value)
        except (TypeError, ValueError):
            raise InvalidInput(field, "a finite real number", value) from None
    return expr


def is_exact(expr: sympy.Expr) -> bool:
    """True when the expression carries no floating-point number."""
    return not expr.atoms(sympy.Float)
