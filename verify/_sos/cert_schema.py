"""Strict reading of certificate JSON: every field checked, every size bounded.

A certificate file comes from anywhere, so it is read as untrusted input before
:meth:`~verify._sos.certificate.Certificate.recheck` ever runs: variable names must be identifiers
(``^[A-Za-z][A-Za-z0-9_]{0,63}$``, distinct; they are printed in the claim, so a name such as
``"-x"`` or one with a newline could change what the claim says), every polynomial is a list of
``[exponents, "p/q"]`` pairs with exponent tuples of the right arity, Gram matrices are square
and match their basis, indices refer to existing constraints, no unknown keys.  The sizes are
bounded (``LIMITS``) so that a re-check cannot be made to run for hours or to exhaust memory.
Every problem raises :class:`~theorems.errors.InvalidInput` naming the field by its JSON path.

Standard library and :mod:`theorems.errors` only: the re-check never imports the solver.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Mapping

from theorems.errors import InvalidInput

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
MAX_VARIABLES = 64
MAX_GRAM = 400
"""Largest Gram block (basis length), as in the search (``verify._sos.prove.MAX_GRAM``)."""
MAX_TERMS = 512
"""Most SOS terms, equality terms or constraints in one certificate."""
MAX_POLY_TERMS = 100_000
MAX_EXPONENT = 1000
MAX_INT_DIGITS = 4000
"""Digits of a numerator or a denominator (below Python's 4300-digit int/str conversion limit)."""
MAX_NUMBERS = 1_000_000
"""Most rationals in one certificate (all polynomials and Gram entries together)."""
MAX_LABEL = 1000
LIMITS = {"variables": MAX_VARIABLES, "gram": MAX_GRAM, "terms": MAX_TERMS, "polynomial_terms": MAX_POLY_TERMS,
          "exponent": MAX_EXPONENT, "digits": MAX_INT_DIGITS, "numbers": MAX_NUMBERS, "label": MAX_LABEL}
_INT = re.compile(r"[+-]?[0-9]+")


class Budget:
    """Counts the rationals read so far against :data:`MAX_NUMBERS`."""

    def __init__(self) -> None:
        self.numbers = 0

    def take(self, count: int, field: str) -> None:
        self.numbers += count
        if self.numbers > MAX_NUMBERS:
            raise InvalidInput(field, f"a certificate with at most {MAX_NUMBERS} rationals in all", "more")


def obj(data: Any, field: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> Mapping[str, Any]:
    """``data`` is a JSON object with every ``required`` key and no key outside the two lists."""
    if not isinstance(data, Mapping):
        raise InvalidInput(field, "a JSON object", type(data).__name__)
    for key in data:
        if key not in required and key not in optional:
            raise InvalidInput(f"{field}.{key}" if isinstance(key, str) else field, "a known key", key,
                               f"allowed keys: {', '.join(required + optional)}")
    for key in required:
        if key not in data:
            raise InvalidInput(f"{field}.{key}", "a required field", None)
    return data


def lst(data: Any, field: str, limit: int, what: str) -> list:
    if not isinstance(data, list):
        raise InvalidInput(field, f"a list of {what}", type(data).__name__)
    if len(data) > limit:
        raise InvalidInput(field, f"at most {limit} {what}", f"{len(data)} entries")
    return data


def text(data: Any, field: str, limit: int = MAX_LABEL) -> str:
    if not isinstance(data, str):
        raise InvalidInput(field, "a string", type(data).__name__)
    if len(data) > limit:
        raise InvalidInput(field, f"a string of at most {limit} characters", f"{len(data)} characters")
    return data


def integer(data: Any, field: str, low: int, high: int) -> int:
    if isinstance(data, bool) or not isinstance(data, int) or not low <= data <= high:
        raise InvalidInput(field, f"an integer between {low} and {high}", data)
    return data


def variables(data: Any, field: str) -> tuple[str, ...]:
    names = lst(data, field, MAX_VARIABLES, "variable names")
    if not names:
        raise InvalidInput(field, "at least one variable name", names)
    for k, name in enumerate(names):
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise InvalidInput(f"{field}[{k}]", "an identifier matching ^[A-Za-z][A-Za-z0-9_]{0,63}$", name)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InvalidInput(field, "distinct variable names", f"{dup!r} listed twice")
    return tuple(names)


def _int_text(part: str, field: str) -> int:
    if not _INT.fullmatch(part):
        raise InvalidInput(field, "a rational written as 'p/q' or 'p' (decimal integers)", part)
    if len(part.lstrip("+-")) > MAX_INT_DIGITS:
        raise InvalidInput(field, f"integers of at most {MAX_INT_DIGITS} digits", f"{len(part)} digits")
    return int(part)


def rational(data: Any, field: str) -> Fraction:
    """An exact rational: a string ``"p/q"`` / ``"p"`` or a JSON integer; floats are inexact."""
    if isinstance(data, bool):
        raise InvalidInput(field, "a rational as a string such as '3/7'", data)
    if isinstance(data, int):
        if data.bit_length() > MAX_INT_DIGITS * 3:  # 3 bits per digit, conservatively
            raise InvalidInput(field, f"integers of at most {MAX_INT_DIGITS} digits", "a longer integer")
        return Fraction(data)
    if not isinstance(data, str):
        raise InvalidInput(field, "a rational as a string such as '3/7'", data)
    if len(data) > 2 * MAX_INT_DIGITS + 3:
        raise InvalidInput(field, f"a rational with at most {MAX_INT_DIGITS} digits above and below the bar",
                           f"{len(data)} characters")
    num, bar, den = data.strip().partition("/")
    p = _int_text(num, field)
    q = _int_text(den, field) if bar else 1
    if q == 0:
        raise InvalidInput(field, "a nonzero denominator", data)
    return Fraction(p, q)


def monomial(data: Any, n: int, field: str) -> tuple[int, ...]:
    if not isinstance(data, list) or len(data) != n:
        raise InvalidInput(field, f"a list of {n} exponents (one per variable)", data)
    for k, e in enumerate(data):
        integer(e, f"{field}[{k}]", 0, MAX_EXPONENT)
    return tuple(data)


def polynomial(data: Any, n: int, field: str, budget: Budget) -> dict[tuple[int, ...], Fraction]:
    """``[[exponents, "p/q"], ...]`` with distinct monomials; zero coefficients are dropped."""
    items = lst(data, field, MAX_POLY_TERMS, "[exponents, coefficient] pairs")
    budget.take(len(items), field)
    out: dict[tuple[int, ...], Fraction] = {}
    for k, item in enumerate(items):
        if not (isinstance(item, list) and len(item) == 2):
            raise InvalidInput(f"{field}[{k}]", "a pair [exponents, coefficient]", type(item).__name__)
        mono = monomial(item[0], n, f"{field}[{k}][0]")
        coef = rational(item[1], f"{field}[{k}][1]")
        if mono in out:
            raise InvalidInput(f"{field}[{k}]", "distinct monomials", f"{list(mono)} listed twice")
        if coef:
            out[mono] = coef
    return out


def sos_term(data: Any, n: int, n_ineqs: int, field: str, budget: Budget):
    """``(multiplier, basis, gram)`` of one term ``g_S * m^T Q m``."""
    t = obj(data, field, ("multiplier", "basis", "gram"))
    mult = lst(t["multiplier"], f"{field}.multiplier", MAX_TERMS, "constraint indices")
    for i, k in enumerate(mult):
        if not n_ineqs:
            raise InvalidInput(f"{field}.multiplier[{i}]", "an index into ineqs (the certificate has none)", k)
        integer(k, f"{field}.multiplier[{i}]", 0, n_ineqs - 1)
    if list(mult) != sorted(set(mult)):
        raise InvalidInput(f"{field}.multiplier", "distinct constraint indices in increasing order", mult)
    basis = lst(t["basis"], f"{field}.basis", MAX_GRAM, "monomials")
    if not basis:
        raise InvalidInput(f"{field}.basis", "at least one monomial", basis)
    basis_t = tuple(monomial(m, n, f"{field}.basis[{i}]") for i, m in enumerate(basis))
    if len(set(basis_t)) != len(basis_t):
        raise InvalidInput(f"{field}.basis", "distinct monomials", "a repeated monomial")
    size = len(basis_t)
    gram = lst(t["gram"], f"{field}.gram", size, "rows")
    if len(gram) != size:
        raise InvalidInput(f"{field}.gram", f"a {size}x{size} matrix (the basis has {size} monomials)", f"{len(gram)} rows")
    budget.take(size * size, f"{field}.gram")
    rows = []
    for i, row in enumerate(gram):
        if not isinstance(row, list) or len(row) != size:
            raise InvalidInput(f"{field}.gram[{i}]", f"a row of {size} rationals", type(row).__name__ if not isinstance(row, list) else f"{len(row)} entries")
        rows.append(tuple(rational(x, f"{field}.gram[{i}][{j}]") for j, x in enumerate(row)))
    return tuple(mult), basis_t, tuple(rows)


def header(data: Any, field: str, fmt: str, version: int, kind: str, keys: tuple[str, ...]) -> Mapping[str, Any]:
    """Top-level object of one certificate kind: format, version, kind, label/claim strings, no other keys."""
    d = obj(data, field, ("format", "version", "kind") + keys, ("label", "claim"))
    if d["format"] != fmt:
        raise InvalidInput(f"{field}.format", repr(fmt), d["format"])
    if d["kind"] != kind:
        raise InvalidInput(f"{field}.kind", repr(kind), d["kind"])
    if isinstance(d["version"], bool) or d["version"] != version:
        raise InvalidInput(f"{field}.version", str(version), d["version"])
    text(d.get("label", ""), f"{field}.label")
    text(d.get("claim", ""), f"{field}.claim", 1_000_000)  # recomputed from the data, never trusted
    return d


def escape_label(label: str) -> str:
    """Free text made safe to print on one line: control characters escaped, repr-style."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in label)
