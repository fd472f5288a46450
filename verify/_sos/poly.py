"""Exact sparse polynomials over the rationals: ``{exponent tuple: Fraction}``.

This is the arithmetic the certificate re-check trusts, so it is deliberately small and uses only
the standard library (:class:`fractions.Fraction`): no SymPy, no NumPy, no solver.  A polynomial in
``n`` variables is a mapping from exponent tuples of length ``n`` to nonzero rationals; zero
coefficients are never stored, so two polynomials are equal exactly when their dicts are equal.
"""
from __future__ import annotations

import math
from fractions import Fraction
from operator import add as _add_ints
from typing import Iterable, Mapping, Sequence

from theorems.errors import InvalidInput

Monomial = tuple[int, ...]
Poly = dict[Monomial, Fraction]


def zero() -> Poly:
    return {}


def constant(value: Fraction | int, n: int) -> Poly:
    value = Fraction(value)
    return {(0,) * n: value} if value else {}


def monomial(exponents: Sequence[int], coefficient: Fraction | int = 1) -> Poly:
    c = Fraction(coefficient)
    return {tuple(int(e) for e in exponents): c} if c else {}


def add_into(target: Poly, other: Mapping[Monomial, Fraction], scale: Fraction | int = 1) -> None:
    """``target += scale * other`` in place, dropping coefficients that cancel to zero."""
    if not scale:
        return
    for mono, coef in other.items():
        value = target.get(mono, 0) + scale * coef
        if value:
            target[mono] = value
        else:
            target.pop(mono, None)


def add(*polys: Mapping[Monomial, Fraction]) -> Poly:
    out: Poly = {}
    for p in polys:
        add_into(out, p)
    return out


def sub(p: Mapping[Monomial, Fraction], q: Mapping[Monomial, Fraction]) -> Poly:
    out = dict(p)
    add_into(out, q, -1)
    return out


def scale(p: Mapping[Monomial, Fraction], factor: Fraction | int) -> Poly:
    factor = Fraction(factor)
    return {m: c * factor for m, c in p.items()} if factor else {}


def mono_mul(a: Monomial, b: Monomial) -> Monomial:
    return tuple(map(_add_ints, a, b))


def mul(p: Mapping[Monomial, Fraction], q: Mapping[Monomial, Fraction]) -> Poly:
    out: Poly = {}
    for ma, ca in p.items():
        for mb, cb in q.items():
            m = mono_mul(ma, mb)
            value = out.get(m, 0) + ca * cb
            if value:
                out[m] = value
            else:
                out.pop(m, None)
    return out


def product(polys: Iterable[Mapping[Monomial, Fraction]], n: int) -> Poly:
    out = constant(1, n)
    for p in polys:
        out = mul(out, p)
    return out


def power(p: Mapping[Monomial, Fraction], k: int, n: int) -> Poly:
    return product([p] * k, n)


def degree(p: Mapping[Monomial, Fraction]) -> int:
    """Total degree; the zero polynomial has degree -1."""
    return max((sum(m) for m in p), default=-1)


def evaluate(p: Mapping[Monomial, Fraction], point: Sequence[Fraction]) -> Fraction:
    total = Fraction(0)
    for mono, coef in p.items():
        term = coef
        for x, e in zip(point, mono):
            if e:
                term *= x ** e
        total += term
    return total


def derivative(p: Mapping[Monomial, Fraction], index: int) -> Poly:
    out: Poly = {}
    for mono, coef in p.items():
        e = mono[index]
        if e:
            m = list(mono)
            m[index] = e - 1
            out[tuple(m)] = coef * e
    return out


def gram_poly(weight: Mapping[Monomial, Fraction], basis: Sequence[Monomial],
              gram: Sequence[Sequence[Fraction]]) -> Poly:
    """``weight * m^T Q m`` for the monomial vector ``m = basis`` and symmetric ``Q = gram``.

    Summed over the integers: every entry is written over the common denominator ``L`` of the
    matrix, the numerators are added per monomial and each sum is divided by ``L`` once (exact, and
    without a gcd per addition)."""
    size = len(basis)
    entries = [[q if isinstance(q, Fraction) else Fraction(q) for q in row] for row in gram]
    common = math.lcm(*(q.denominator for row in entries for q in row if q)) if size else 1
    sums: dict[Monomial, int] = {}
    for i in range(size):
        row, left = entries[i], basis[i]
        for j in range(size):
            q = row[j]
            if q:
                m = tuple(map(_add_ints, left, basis[j]))
                sums[m] = sums.get(m, 0) + q.numerator * (common // q.denominator)
    quad: Poly = {m: Fraction(v, common) for m, v in sums.items() if v}
    return mul(weight, quad)


def monomials_up_to(n: int, low: int, high: int) -> list[Monomial]:
    """All exponent tuples in ``n`` variables with total degree in ``[low, high]`` (graded order)."""
    out: list[Monomial] = []

    def rec(prefix: list[int], left: int, slots: int) -> None:
        if slots == 1:
            out.append(tuple(prefix + [left]))
            return
        for e in range(left, -1, -1):
            rec(prefix + [e], left - e, slots - 1)

    for total in range(max(low, 0), high + 1):
        if n == 0:
            if total == 0:
                out.append(())
            continue
        rec([], total, n)
    return out


def to_text(p: Mapping[Monomial, Fraction], names: Sequence[str]) -> str:
    """A readable rendering such as ``2*x^4 - 1/3*x*y + 5``; for display only, never parsed back."""
    if not p:
        return "0"
    parts: list[str] = []
    for mono in sorted(p, key=lambda m: (-sum(m), tuple(-e for e in m))):
        coef = p[mono]
        factors = [f"{name}^{e}" if e > 1 else name for name, e in zip(names, mono) if e]
        magnitude = abs(coef)
        if factors:
            body = "*".join(factors) if magnitude == 1 else f"{magnitude}*" + "*".join(factors)
        else:
            body = str(magnitude)
        sign = "-" if coef < 0 else "+"
        parts.append((sign, body))
    first_sign, first = parts[0]
    text = ("-" if first_sign == "-" else "") + first
    for sign, body in parts[1:]:
        text += f" {sign} {body}"
    return text


def to_json(p: Mapping[Monomial, Fraction]) -> list[list]:
    """``[[exponents, "num/den"], ...]`` sorted for stable output; rationals as exact strings."""
    return [[list(m), str(p[m])] for m in sorted(p)]


def from_json(data: object, n: int, field: str) -> Poly:
    """Inverse of :func:`to_json`; raises :class:`InvalidInput` naming ``field`` on malformed data."""
    if not isinstance(data, list):
        raise InvalidInput(field, "a list of [exponents, coefficient] pairs", type(data).__name__)
    out: Poly = {}
    for k, item in enumerate(data):
        if not (isinstance(item, list) and len(item) == 2):
            raise InvalidInput(f"{field}[{k}]", "[exponents, coefficient]", item)
        mono = parse_monomial(item[0], n, f"{field}[{k}][0]")
        coef = parse_rational(item[1], f"{field}[{k}][1]")
        if mono in out:
            raise InvalidInput(f"{field}[{k}]", "each monomial listed once", list(mono), "this monomial is listed twice")
        if coef:
            out[mono] = coef
    return out


def parse_monomial(data: object, n: int, field: str) -> Monomial:
    if not (isinstance(data, list) and len(data) == n
            and all(isinstance(e, int) and not isinstance(e, bool) and e >= 0 for e in data)):
        raise InvalidInput(field, f"{n} nonnegative integer exponents", data)
    return tuple(data)


def parse_rational(data: object, field: str) -> Fraction:
    """Exact rational from a string such as ``"-3/7"`` or an int; floats are refused (inexact)."""
    if isinstance(data, bool):
        raise InvalidInput(field, "a rational as a string", data)
    if isinstance(data, int):
        return Fraction(data)
    if not isinstance(data, str) or len(data) > 10_000:
        raise InvalidInput(field, "a rational as a string such as '3/7'", data)
    text = data.strip()
    num, _, den = text.partition("/")
    if not _is_int(num) or (den and not _is_int(den)):
        raise InvalidInput(field, "a rational such as '3/7'", data)
    if den and int(den) == 0:
        raise InvalidInput(field, "a nonzero denominator", data, "zero denominator")
    return Fraction(int(num), int(den) if den else 1)


def _is_int(text: str) -> bool:
    body = text[1:] if text[:1] in "+-" else text
    return body.isdigit() and body.isascii()
