"""Numbers and expressions in the time variable ``t`` from user input (docs/format.md).

Accepted: JSON numbers (ints are exact; floats are float data, kept as the binary rational they
hold), strings that are exact numbers (``"3/7"``, ``"0.1"`` is exactly ``1/10``,
``"sqrt(2)/2"``), and expressions in ``t`` of the function class: ``+ - * / ^``, ``sin``, ``cos``,
``tan``, ``exp``, ``log``, ``sqrt``, ``tanh``, ``atan``, ``abs``, ``sinh``, ``cosh``, ``pi``,
``E``.  Strings go through the one safe parser (:mod:`theorems.parsing`): no evaluation while
parsing, limits on size, nesting, digits and exponents.

Every operation's domain condition, taken from the text as written, is decided on
``t in [0, oo)`` by the arb engine (:func:`theorems.enclosure.check_condition`):

* proven: nothing to say;
* violated (a point ``t0``, or an interval holding a zero of a denominator): the entry is
  rejected with :class:`~theorems.errors.InvalidInput` naming the field and where;
* open: the entry is kept, and its open conditions travel with it (:func:`parse_entry`), so
  that every predicate about it answers *unknown*.  A constant (no ``t``) whose condition
  stays open is rejected: there is no ``t`` to defer to.
"""
from __future__ import annotations

import math

import sympy

from .enclosure import T, check_condition, constant_interval
from .errors import InvalidInput
from .parsing import Grammar, parse

t = T
"""The depth-time variable of the continuous model (docs/model.md §1)."""

MAX_MAGNITUDE_EXP10 = 150
"""Constants and float data must satisfy ``|c| <= 10^150``: the float simulation must hold them,
and so must the squares in the float norm bounds of large matrices."""

_GRAMMAR = Grammar(variables={"t": t})
_CONSTANT_GRAMMAR = Grammar(variables={})


def parse_entry(value: object, field: str, *, allow_t: bool = True,
                exact_floats: bool = False) -> tuple[sympy.Expr, tuple[str, ...]]:
    """Parse one matrix entry or scalar: ``(expression, open domain conditions)``.

    Ints and strings are exact.  A float becomes ``sympy.Float`` (float data) or, with
    ``exact_floats`` (a float that stands next to exact entries), the exact binary rational it
    denotes (:func:`float_rational`): exact data are never rounded because a float stands beside them.
    """
    if isinstance(value, bool) or value is None:
        raise InvalidInput(field, "a number or an expression string", value)
    if isinstance(value, int):
        if abs(value).bit_length() > 1000:
            raise InvalidInput(field, "an integer of at most about 300 digits", f"an integer of {abs(value).bit_length()} bits")
        return _magnitude(sympy.Integer(value), field, value), ()
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(field, "a finite number", value)
        if abs(value) > 10.0 ** MAX_MAGNITUDE_EXP10:
            raise InvalidInput(field, f"a number of magnitude at most 1e{MAX_MAGNITUDE_EXP10}", value,
                               "Limit: number size")
        return (float_rational(value) if exact_floats else sympy.Float(value, 17)), ()
    if not isinstance(value, str):
        raise InvalidInput(field, "a number or an expression string", value)
    parsed = parse(value, _GRAMMAR if allow_t else _CONSTANT_GRAMMAR, field)
    expr = parsed.expr
    if not isinstance(expr, sympy.Expr):
        raise InvalidInput(field, "a scalar expression", value)
    open_conditions: list[str] = []
    for kind, g, what in parsed.conditions:
        outcome = check_condition(kind, g)
        if outcome.status == "violated":
            raise InvalidInput(field, "an expression defined for every t >= 0", value,
                               f"{what} must be {_WORDS[kind]}, but {outcome.where}")
        if outcome.status == "open":
            if not expr.has(t) and not g.has(t):
                raise InvalidInput(field, "a constant whose definedness can be decided", value,
                                   f"could not decide whether {what} is {_WORDS[kind]}")
            open_conditions.append(f"{what} {_WORDS[kind]} for all t >= 0")
    for constant in _constant_parts(expr):
        _magnitude(constant, field, value)
    return expr, tuple(open_conditions)


def float_rational(value: float) -> sympy.Rational:
    """The exact binary rational a (finite) float denotes: ``0.1`` is ``3602879701896397/2^55``."""
    num, den = float(value).as_integer_ratio()
    return sympy.Rational(num, den)


def exact_value(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with every ``sympy.Float`` replaced by the exact binary rational it holds."""
    floats = expr.atoms(sympy.Float)
    return expr.xreplace({f: sympy.Rational(f) for f in floats}) if floats else expr


def all_float(value: object) -> bool:
    """True when every leaf of a JSON value (nested lists) is a float: *float data*.  A value with
    any int or string leaf is exact data, and its floats are read as their binary rationals."""
    stack, seen = [value], False
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float):
            seen = True
        else:
            return False
    return seen


def _constant_parts(expr: sympy.Expr) -> list[sympy.Expr]:
    """The maximal constant sub-expressions (``exp(1000)`` in ``exp(1000)*sin(t)``)."""
    if not expr.has(t):
        return [expr]
    return [part for arg in expr.args for part in _constant_parts(arg)]


def parse_scalar(value: object, field: str, *, exact_floats: bool = False) -> sympy.Expr:
    """Parse a value whose definedness must be settled now (an entry with open domain
    conditions is rejected here; matrix entries use :func:`parse_entry`)."""
    expr, open_conditions = parse_entry(value, field, exact_floats=exact_floats)
    if open_conditions:
        raise InvalidInput(field, "an expression proven defined for every t >= 0", value,
                           "Open: " + "; ".join(open_conditions))
    return expr


def parse_positive_constant(value: object, field: str) -> sympy.Expr:
    """A constant proven ``> 0`` by the arb engine (``exp(-1000)`` is positive, not 0)."""
    expr = parse_scalar(value, field)
    if expr.free_symbols:
        raise InvalidInput(field, "a positive constant (no t)", value)
    outcome = check_condition("positive", expr)
    if outcome.status != "proven":
        raise InvalidInput(field, "a positive constant", value,
                           "it is not positive" if outcome.status == "violated" else "positivity could not be proven")
    return expr


def _magnitude(expr: sympy.Expr, field: str, shown: object) -> sympy.Expr:
    iv = constant_interval(expr)
    if iv is None:
        raise InvalidInput(field, "a finite real constant", shown)
    top = iv.abs_upper()
    if top is None or _big(top):
        raise InvalidInput(field, f"a constant of magnitude at most 1e{MAX_MAGNITUDE_EXP10}", shown,
                           "Limit: number size (float simulation and norm bounds)")
    return expr


def _big(top) -> bool:
    from flint import arb

    return bool(top > arb(10) ** MAX_MAGNITUDE_EXP10)


_WORDS = {"positive": "> 0", "nonnegative": ">= 0", "nonzero": "!= 0"}


def is_exact(expr: sympy.Expr) -> bool:
    """True when the expression carries no floating-point number."""
    return not expr.atoms(sympy.Float)
