"""Forward-mode derivatives over any scalar type (``flint.arb`` balls, ``float``, ``mpmath.mpf``).

A :class:`Dual` is a value ``v`` and its gradient ``g`` with respect to ``n`` independent
variables.  The arithmetic rules are the chain rule term by term; with ``arb`` scalars every
operation rounds outward, so for a ball argument ``Y`` the gradient enclosure contains
``grad f(y)`` for every ``y`` in ``Y`` (the range of the Jacobian over a box, needed by the
Krawczyk test and by the stability check).  The elementary functions are passed in as a
:class:`Scalars` record, so the same formula serves the proof (arb) and the hints (float).

Not guaranteed: nothing here; the rigour comes from the scalar type.  With ``float`` scalars the
result is an approximation only.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence, final


@final
@dataclass(frozen=True)
class Scalars:
    """The scalar world: ``exp``, ``sqrt``, conversion of exact rationals, and zero."""

    exp: Callable[[Any], Any]
    sqrt: Callable[[Any], Any]
    const: Callable[[Any], Any]
    zero: Any


@final
class Dual:
    """``value + sum_k grad[k] * dy_k`` (first order); ``grad`` is a tuple of length ``n``."""

    __slots__ = ("value", "grad")

    def __init__(self, value: Any, grad: Sequence[Any]) -> None:
        self.value = value
        self.grad = tuple(grad)

    @staticmethod
    def variable(value: Any, k: int, n: int, zero: Any) -> "Dual":
        return Dual(value, tuple(zero + 1 if i == k else zero for i in range(n)))

    @staticmethod
    def constant(value: Any, n: int, zero: Any) -> "Dual":
        return Dual(value, (zero,) * n)

    def __add__(self, other: "Dual") -> "Dual":
        return Dual(self.value + other.value, tuple(a + b for a, b in zip(self.grad, other.grad)))

    def __sub__(self, other: "Dual") -> "Dual":
        return Dual(self.value - other.value, tuple(a - b for a, b in zip(self.grad, other.grad)))

    def __mul__(self, other: "Dual") -> "Dual":
        u, v = self.value, other.value
        return Dual(u * v, tuple(a * v + u * b for a, b in zip(self.grad, other.grad)))

    def scale(self, c: Any) -> "Dual":
        """Multiplication by a constant scalar (no gradient)."""
        return Dual(self.value * c, tuple(a * c for a in self.grad))

    def __truediv__(self, other: "Dual") -> "Dual":
        v = other.value
        q = self.value / v
        return Dual(q, tuple((a - q * b) / v for a, b in zip(self.grad, other.grad)))


def d_exp(x: Dual, s: Scalars) -> Dual:
    e = s.exp(x.value)
    return Dual(e, tuple(a * e for a in x.grad))


def d_sqrt(x: Dual, s: Scalars) -> Dual:
    r = s.sqrt(x.value)
    half_inv = 1 / (2 * r)
    return Dual(r, tuple(a * half_inv for a in x.grad))


def d_sum(terms: Sequence[Dual], n: int, zero: Any) -> Dual:
    out = Dual.constant(zero, n, zero)
    for t in terms:
        out = out + t
    return out
