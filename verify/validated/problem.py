"""Exact input of a validated run: the constant data of eq. 5 on one segment, layer stacks, tokens.

A :class:`Field` is one constant instance of the right-hand side (paper eq. 5, docs/model.md §1)::

    dx_i/dt = Proj_{x_i}( sum_h sum_{j in M(i)} a^h_ij U^h x_j ),   Proj_x = I - x x^T,
    a^h_ij  = exp(beta <x_i, P^h x_j>) / sum_{l in M(i)} exp(beta <x_i, P^h x_l>),

with ``M(i) = {1..N}`` (``mask="full"``) or ``{1..i}`` (``mask="causal"``).  ``beta``, ``P^h`` and
``U^h`` are exact rationals (:class:`fractions.Fraction`; a decimal string is the rational it
spells, a float the binary rational it holds).  A piecewise-constant layer stack is a sequence of
``(duration, Field)`` pairs; the integrators restart the expansion at every boundary.

:class:`Tokens` is the initial set: boxes ``{x : |x_ic - c_ic| <= radius}`` around exact rational
centres.  Centres must be exact unit vectors unless ``normalize=True``, in which case the centre
of token ``i`` is ``c_i / |c_i|`` (irrational in general: it enters as an arb ball).  With
``radius > 0`` the boxes contain points off the sphere; every enclosure then holds for all of them.

Nothing here evaluates anything: :mod:`.balls` turns these records into arb balls at a precision
the caller scopes.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational
from typing import Literal, Sequence, final

from theorems.errors import InvalidInput, InvalidType

Mask = Literal["full", "causal"]
Matrix = tuple[tuple[Fraction, ...], ...]


def exact(value: object, where: str) -> Fraction:
    """The exact rational a number or numeric string denotes (``InvalidInput`` otherwise)."""
    if isinstance(value, bool):
        raise InvalidType(where, "a rational number", value)
    if isinstance(value, (Fraction, int, Rational)):
        return Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidInput(where, "a finite number", value)
        return Fraction(value)
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise InvalidInput(where, "a rational such as '3/5' or '0.25'", value) from None
    raise InvalidType(where, "a rational number (int, Fraction, float or string)", type(value).__name__)


def _matrix(rows: object, d: int | None, where: str) -> Matrix:
    if not isinstance(rows, Sequence) or isinstance(rows, str) or not rows:
        raise InvalidInput(where, "a non-empty list of rows", rows)
    size = d if d is not None else len(rows)
    if len(rows) != size:
        raise InvalidInput(where, f"{size} rows", len(rows))
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, Sequence) or isinstance(row, str) or len(row) != size:
            raise InvalidInput(f"{where}[{i}]", f"a row of length {size}", row)
        out.append(tuple(exact(v, f"{where}[{i}][{j}]") for j, v in enumerate(row)))
    return tuple(out)


@final
@dataclass(frozen=True)
class Field:
    """Constant data of eq. 5: ``beta > 0``, heads ``P[h]``, ``U[h]`` (``d x d``), the mask.

    ``U=None`` means ``U^h = I`` for every head."""

    beta: Fraction
    P: tuple[Matrix, ...]
    U: tuple[Matrix, ...] | None = None
    mask: Mask = "full"

    def __post_init__(self) -> None:
        beta = exact(self.beta, "beta")
        if beta <= 0:
            raise InvalidInput("beta", "a rational > 0", self.beta)
        if not isinstance(self.P, Sequence) or isinstance(self.P, str) or not self.P:
            raise InvalidInput("P", "a non-empty list of d x d matrices (one per head)", self.P)
        P = tuple(_matrix(m, None, f"P[{h}]") for h, m in enumerate(self.P))
        d = len(P[0])
        P = tuple(_matrix(m, d, f"P[{h}]") for h, m in enumerate(P))
        if self.U is None:
            eye = tuple(tuple(Fraction(int(i == j)) for j in range(d)) for i in range(d))
            U = tuple(eye for _ in P)
        else:
            if not isinstance(self.U, Sequence) or len(self.U) != len(P):
                raise InvalidInput("U", f"{len(P)} matrices (one per head, as P)", self.U)
            U = tuple(_matrix(m, d, f"U[{h}]") for h, m in enumerate(self.U))
        if self.mask not in ("full", "causal"):
            raise InvalidInput("mask", "'full' or 'causal'", self.mask)
        object.__setattr__(self, "beta", beta)
        object.__setattr__(self, "P", P)
        object.__setattr__(self, "U", U)

    @property
    def d(self) -> int:
        return len(self.P[0])

    @property
    def H(self) -> int:
        return len(self.P)

    @property
    def causal(self) -> bool:
        return self.mask == "causal"

    @staticmethod
    def identity(d: int, beta: object = 1, mask: Mask = "full", heads: int = 1) -> "Field":
        """``P^h = U^h = I`` (the setting of Theorems 3.2 and 4.2 with the identity query-key map)."""
        eye = tuple(tuple(Fraction(int(i == j)) for j in range(d)) for i in range(d))
        return Field(exact(beta, "beta"), tuple(eye for _ in range(heads)), None, mask)


@final
@dataclass(frozen=True)
class Tokens:
    """Initial tokens: exact rational centres ``(N, d)``, a common box radius, optional normalisation."""

    centers: Matrix
    radius: Fraction = Fraction(0)
    normalize: bool = False

    def __post_init__(self) -> None:
        rows = self.centers
        if not isinstance(rows, Sequence) or isinstance(rows, str) or not rows:
            raise InvalidInput("tokens", "a non-empty list of N vectors", rows)
        d = len(rows[0]) if isinstance(rows[0], Sequence) else 0
        if d < 1:
            raise InvalidInput("tokens[0]", "a vector of length d >= 1", rows[0])
        out = []
        for i, row in enumerate(rows):
            if not isinstance(row, Sequence) or isinstance(row, str) or len(row) != d:
                raise InvalidInput(f"tokens[{i}]", f"a vector of length {d}", row)
            vec = tuple(exact(v, f"tokens[{i}][{c}]") for c, v in enumerate(row))
            norm2 = sum(v * v for v in vec)
            if norm2 == 0:
                raise InvalidInput(f"tokens[{i}]", "a nonzero vector", row)
            if not self.normalize and norm2 != 1:
                raise InvalidInput(f"tokens[{i}]", "an exact unit vector", f"|x|^2 = {norm2}",
                                   "pass normalize=True to use x/|x| (enclosed in balls), or exact unit rationals")
            out.append(vec)
        radius = exact(self.radius, "radius")
        if radius < 0:
            raise InvalidInput("radius", "a rational >= 0", self.radius)
        if not isinstance(self.normalize, bool):
            raise InvalidType("normalize", "a bool", self.normalize)
        object.__setattr__(self, "centers", tuple(out))
        object.__setattr__(self, "radius", radius)

    @property
    def N(self) -> int:
        return len(self.centers)

    @property
    def d(self) -> int:
        return len(self.centers[0])


Stack = tuple[tuple[Fraction, Field], ...]


def as_stack(field: Field | Sequence[tuple[object, Field]], t_end: object | None, d: int) -> Stack:
    """One constant :class:`Field` up to ``t_end``, or a layer stack of ``(duration, Field)``
    (then ``t_end`` may cut it short).  Durations must be positive rationals."""
    if isinstance(field, Field):
        if t_end is None:
            raise InvalidInput("t_end", "a rational > 0 (required with a single Field)", t_end)
        stack = [(exact(t_end, "t_end"), field)]
    else:
        if not isinstance(field, Sequence) or not field:
            raise InvalidType("field", "a Field or a non-empty list of (duration, Field)", type(field).__name__)
        stack = []
        for k, item in enumerate(field):
            if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Field)):
                raise InvalidInput(f"field[{k}]", "a pair (duration, Field)", item)
            stack.append((exact(item[0], f"field[{k}][0]"), item[1]))
        if t_end is not None:
            limit, cut, total = exact(t_end, "t_end"), [], Fraction(0)
            for duration, f in stack:
                if total >= limit:
                    break
                cut.append((min(duration, limit - total), f))
                total += cut[-1][0]
            stack = cut
    for k, (duration, f) in enumerate(stack):
        if duration <= 0:
            raise InvalidInput(f"field[{k}] duration", "a rational > 0", duration)
        if f.d != d:
            raise InvalidInput(f"field[{k}]", f"d = {d} (the tokens' dimension)", f.d)
    return tuple(stack)


__all__ = ["Field", "Mask", "Stack", "Tokens", "as_stack", "exact"]
