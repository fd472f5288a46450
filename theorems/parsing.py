"""The one safe parser for user expressions: instance entries, ``--field``, ``--on`` and ``sos``.

A hand-written tokenizer and recursive-descent parser over a fixed grammar; nothing is evaluated
while parsing and no Python is ever run (no ``eval``, no ``parse_expr``, no attribute access: a
``.`` is only legal inside a number).  Grammar (``^`` and ``**`` are powers, right-associative;
``-x^2`` is ``-(x^2)``; juxtaposition before a name or ``(``, as in ``2x^3 y``, is a product;
two numbers side by side, as in ``0.5.5``, are an error)::

    expr   := term (("+" | "-") term)*
    term   := factor (("*" | "/") factor | <juxtaposition> factor_starting_with_NAME_or_"(")*
    factor := ("+" | "-") factor | power
    power  := atom (("^" | "**") factor)?
    atom   := NUMBER | NAME | FUNC "(" expr ")" | "(" expr ")"

Numbers are exact: ``0.1`` is ``1/10`` and ``1.5e-3`` is ``3/2000`` (a decimal string is the
rational it spells).  The SymPy tree is built bottom-up only after the limits below are checked
for each node, so ``9^9^9``, ``t^(10^100)`` or a 5000-digit literal are refused in microseconds.

Besides the expression, :func:`parse` returns the **domain conditions** of every operation in the
text *as written* (before SymPy's automatic simplification, which can silently remove a
singularity as in ``t/t``): ``b != 0`` for a division or negative power, ``x > 0`` for ``log``,
``x >= 0`` for ``sqrt`` and positive fractional powers, ``x > 0`` for other non-integer powers,
``cos(x) != 0`` for ``tan``.  The instance reader proves or refutes them on ``t in [0, oo)``
(:mod:`theorems.expressions`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable

import sympy

from .errors import InvalidInput

MAX_TEXT = 20_000
MAX_TOKENS = 4_000
MAX_DEPTH = 60
MAX_LITERAL_DIGITS = 400
MAX_DECIMAL_EXPONENT = 400
MAX_NUMBER_DIGITS = 2_000
"""Largest exact constant (digits of numerator plus denominator) that constant folding may build."""
MAX_POWER = 1_000
"""Largest integer exponent of a non-constant base, and largest numerator/denominator of a
fractional exponent."""

FUNCTIONS: dict[str, Callable[[sympy.Expr], sympy.Expr]] = {
    "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "exp": sympy.exp, "log": sympy.log,
    "sqrt": sympy.sqrt, "tanh": sympy.tanh, "atan": sympy.atan, "abs": sympy.Abs, "Abs": sympy.Abs,
    "sinh": sympy.sinh, "cosh": sympy.cosh,
}
CONSTANTS = {"pi": sympy.pi, "E": sympy.E}

_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z][A-Za-z0-9_]*)"
                    r"|(?P<op>\*\*|[-+*/^(),]))")


@dataclass(frozen=True)
class Parsed:
    """A parsed expression and the domain conditions of its operations as written."""

    expr: sympy.Expr
    conditions: tuple[tuple[str, sympy.Expr, str], ...]
    """``(kind, g, what)`` with kind ``positive``, ``nonnegative`` or ``nonzero``."""


@dataclass(frozen=True)
class Grammar:
    """What a field accepts: its variables, and whether functions and constants are allowed."""

    variables: dict[str, sympy.Symbol]
    functions: bool = True
    free_names: Callable[[str], sympy.Symbol] | None = None
    """When set, an unknown identifier becomes a variable (``verify sos`` without ``--vars``)."""


def _digits(q: sympy.Rational) -> int:
    return (abs(int(q.p)).bit_length() + int(q.q).bit_length()) * 30103 // 100000 + 1


class _Parser:
    def __init__(self, text: str, grammar: Grammar, field: str) -> None:
        self.text, self.grammar, self.field = text, grammar, field
        self.tokens = self._tokenize(text)
        self.pos = 0
        self.depth = 0
        self.conditions: list[tuple[str, sympy.Expr, str]] = []

    def fail(self, expected: str, hint: str = "") -> InvalidInput:
        return InvalidInput(self.field, expected, self.text, hint)

    def _tokenize(self, text: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m:
                bad = text[pos:].lstrip()[:1]
                raise self.fail("a parsable expression (numbers, names, + - * / ^ ( ))",
                                f"Unexpected character {bad!r} at position {pos + 1}")
            kind = m.lastgroup
            out.append((kind, m.group(kind)))
            pos = m.end()
            if len(out) > MAX_TOKENS:
                raise self.fail(f"an expression of at most {MAX_TOKENS} tokens", "Limit: expression size")
        if not out:
            raise self.fail("a non-empty expression")
        return out

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok is None or (value is not None and tok[1] != value):
            found = "the end" if tok is None else repr(tok[1])
            raise self.fail("a parsable expression", f"Expected {value or 'more input'!r}, found {found}")
        self.pos += 1
        return tok

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"an expression nested at most {MAX_DEPTH} deep", "Limit: nesting depth")

    def parse(self) -> sympy.Expr:
        e = self.expr()
        if self.peek() is not None:
            raise self.fail("a parsable expression", f"Unexpected {self.peek()[1]!r}")
        return e

    def expr(self) -> sympy.Expr:
        self.nest()
        acc = self.term()
        while (tok := self.peek()) is not None and tok[1] in "+-" and tok[0] == "op":
            self.take()
            rhs = self.term()
            acc = self.check(acc + rhs if tok[1] == "+" else acc - rhs)
        self.depth -= 1
        return acc

    def term(self) -> sympy.Expr:
        acc = self.factor()
        while (tok := self.peek()) is not None:
            if tok[1] in ("*", "/"):
                self.take()
                rhs = self.factor()
                if tok[1] == "/":
                    acc = self.check(acc * self.reciprocal(rhs))
                else:
                    acc = self.check(acc * rhs)
            elif tok[0] == "name" or tok[1] == "(":  # juxtaposition; never two numbers ("0.5.5")
                acc = self.check(acc * self.factor())
            else:
                break
        return acc

    def factor(self) -> sympy.Expr:
        tok = self.peek()
        if tok is not None and tok[1] in ("+", "-") and tok[0] == "op":
            self.take()
            self.nest()
            inner = self.factor()
            self.depth -= 1
            return inner if tok[1] == "+" else self.check(-inner)
        return self.power()

    def power(self) -> sympy.Expr:
        base = self.atom()
        tok = self.peek()
        if tok is not None and tok[1] in ("^", "**"):
            self.take()
            self.nest()
            exponent = self.factor()
            self.depth -= 1
            return self.pow(base, exponent)
        return base

    def atom(self) -> sympy.Expr:
        kind, value = self.take()
        if kind == "num":
            return self.number(value)
        if kind == "name":
            return self.name(value)
        if value == "(":
            inner = self.expr()
            self.take(")")
            return inner
        raise self.fail("a parsable expression", f"Unexpected {value!r}")

    def number(self, text: str) -> sympy.Expr:
        mantissa, _, exp = text.lower().partition("e")
        digits = len(mantissa.replace(".", "").lstrip("0"))
        if digits > MAX_LITERAL_DIGITS:
            raise self.fail(f"numbers of at most {MAX_LITERAL_DIGITS} digits", "Limit: literal size")
        if exp and abs(int(exp)) > MAX_DECIMAL_EXPONENT:
            raise self.fail(f"decimal exponents of at most {MAX_DECIMAL_EXPONENT}", "Limit: literal size")
        value = Fraction(mantissa if mantissa != "." else "0") * Fraction(10) ** int(exp or 0)
        return sympy.Rational(value.numerator, value.denominator)

    def name(self, name: str) -> sympy.Expr:
        g = self.grammar
        if name in g.variables:
            if self.peek() == ("op", "("):
                raise self.fail("a parsable expression", f"{name!r} is a variable, not a function; write {name}*(...)")
            return g.variables[name]
        if g.functions and name in FUNCTIONS:
            self.take("(")
            arg = self.expr()
            self.take(")")
            return self.call(name, arg)
        if g.functions and name in CONSTANTS:
            return CONSTANTS[name]
        if g.free_names is not None and name not in FUNCTIONS and name not in CONSTANTS:
            return g.free_names(name)
        if name in FUNCTIONS or name in CONSTANTS:
            raise self.fail("a polynomial (no functions or constants such as sin, exp, pi)", f"Reserved name: {name}")
        known = sorted(g.variables) + (sorted(FUNCTIONS) + sorted(CONSTANTS) if g.functions else [])
        hint = "" if g.functions else "; add them to --vars"
        raise self.fail("known names only", f"Unknown symbol(s): {name}{hint}; allowed: {', '.join(known) or 'none'}")

    def call(self, name: str, arg: sympy.Expr) -> sympy.Expr:
        if name == "log":
            self.conditions.append(("positive", arg, f"the argument of log({arg})"))
        elif name == "sqrt":
            self.conditions.append(("nonnegative", arg, f"the argument of sqrt({arg})"))
        elif name == "tan":
            self.conditions.append(("nonzero", sympy.cos(arg), f"cos of the argument of tan({arg})"))
        return self.check(FUNCTIONS[name](arg))

    def reciprocal(self, b: sympy.Expr) -> sympy.Expr:
        self.conditions.append(("nonzero", b, f"the denominator {b}"))
        if b == 0:
            raise self.fail("an expression without division by zero", "Division by 0")
        return self.check(sympy.Pow(b, -1))

    def pow(self, base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr:
        if exponent.is_Rational:
            q = sympy.Rational(exponent)
            if abs(int(q.p)) > MAX_POWER * (1 if q.q == 1 else 1) or int(q.q) > MAX_POWER:
                if not (base.is_Rational and q.q == 1 and abs(base) <= 1):
                    raise self.fail(f"exponents with numerator and denominator at most {MAX_POWER}",
                                    "Limit: exponent size")
            if base.is_Rational and q.q == 1 and _digits(sympy.Rational(base)) * abs(int(q.p)) > MAX_NUMBER_DIGITS:
                raise self.fail(f"constants of at most {MAX_NUMBER_DIGITS} digits", "Limit: exponent size")
            if base.is_Rational and q.q != 1 and _digits(sympy.Rational(base)) > 100:
                raise self.fail("fractional powers of constants of at most 100 digits", "Limit: exponent size")
            if q.q == 1:
                if q < 0:
                    self.conditions.append(("nonzero", base, f"the base of {base}^({q})"))
                    if base == 0:
                        raise self.fail("an expression without division by zero", "0 to a negative power")
            else:
                kind = "nonnegative" if q > 0 else "positive"
                self.conditions.append((kind, base, f"the base of {base}^({q})"))
        else:
            if not self.grammar.functions:
                raise self.fail("a polynomial (integer exponents only)", f"Exponent {exponent}")
            self.conditions.append(("positive", base, f"the base of {base}^({exponent})"))
        return self.check(sympy.Pow(base, exponent))

    def check(self, e: sympy.Expr) -> sympy.Expr:
        """Limits on every node built: finite, and exact constants of bounded size."""
        if e.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan):
            raise self.fail("a finite expression", "The expression is undefined (division by zero?)")
        if e.is_Rational and _digits(sympy.Rational(e)) > MAX_NUMBER_DIGITS:
            raise self.fail(f"constants of at most {MAX_NUMBER_DIGITS} digits", "Limit: number size")
        return e


def parse(text: object, grammar: Grammar, field: str) -> Parsed:
    """Parse ``text`` under ``grammar``; :class:`InvalidInput` naming ``field`` on any problem."""
    if not isinstance(text, str):
        raise InvalidInput(field, "an expression string", text)
    if len(text) > MAX_TEXT:
        raise InvalidInput(field, f"an expression of at most {MAX_TEXT} characters", f"{len(text)} characters",
                           "Limit: text length")
    parser = _Parser(text, grammar, field)
    expr = parser.parse()
    return Parsed(expr, tuple(parser.conditions))


def symbols(names: Iterable[str], **assumptions: bool) -> dict[str, sympy.Symbol]:
    return {n: sympy.Symbol(n, **assumptions) for n in names}


__all__ = ["CONSTANTS", "FUNCTIONS", "Grammar", "MAX_DEPTH", "MAX_NUMBER_DIGITS", "MAX_POWER", "MAX_TEXT",
           "MAX_TOKENS", "Parsed", "parse", "symbols"]
