"""The options of one SOS search, as one frozen record (like cvxpy's solver options).

:func:`verify._sos.prove.prove_exact` takes a :class:`SOSOptions`; :func:`verify._sos.prove_nonnegative`
keeps its keyword arguments and builds one.  Validation happens here, at construction, so a bad
option is refused before any work (:class:`~theorems.errors.InvalidInput` naming the option).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence, final

from theorems.errors import InvalidInput

from .rounding import DEFAULT_DENOMINATORS

SOLVERS = ("CLARABEL", "SCS")
"""The SDP solvers :mod:`verify._sos.solve` accepts (defined here so that options import no solver)."""


def normalize_solver(solver: str) -> str:
    name = str(solver).upper()
    if name not in SOLVERS:
        raise InvalidInput("solver", f"one of {', '.join(s.lower() for s in SOLVERS)}", solver)
    return name


@final
@dataclass(frozen=True)
class SOSOptions:
    """``degree``: largest total degree of every term (None: the largest input degree rounded up to
    even); ``products``: products of constraints (True all, or the most factors, >= 2); ``solver``;
    ``refute``: first look for a rational counterexample; ``denominators``: rounding denominators,
    tried smallest first; ``label``: a name stored in the certificate; ``first_order``: start large
    programs with the SCS margin solve (:data:`verify._sos.engine.FIRST_ORDER_FROM`);
    ``term_sparsity``: split large Gram blocks by term sparsity (:mod:`verify._sos.sparsity`, exact).
    ``zeros``: known exact zeros of ``p`` in the set, a list of rational points (checked exactly,
    then every Gram block is restricted to the face they force: :mod:`verify._sos.facial_zeros`),
    or ``"auto"`` (when the plain search fails, zeros on the grid ``{-1, 0, 1}^n`` are tried), or
    None (off).  None of these changes what is proved, only how the search finds it."""

    degree: int | None = None
    products: bool | int = False
    solver: str = "CLARABEL"
    refute: bool = True
    denominators: Sequence[int] = DEFAULT_DENOMINATORS
    label: str = ""
    first_order: bool = True
    term_sparsity: bool = True
    zeros: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "solver", normalize_solver(self.solver))
        d = self.degree
        if d is not None and (isinstance(d, bool) or not isinstance(d, int)):
            raise InvalidInput("degree", "an integer >= deg p, or None", d)
        pr = self.products
        if not (isinstance(pr, (bool, int)) and (pr is True or pr is False or pr >= 2)):
            raise InvalidInput("products", "True, False or the largest number of factors (>= 2)", pr)
        dens = self.denominators
        if not dens or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in dens):
            raise InvalidInput("denominators", "a non-empty list of positive integers", dens)
        object.__setattr__(self, "denominators", tuple(int(x) for x in dens))
        if not isinstance(self.refute, bool):
            raise InvalidInput("refute", "a bool", self.refute)
        for name in ("first_order", "term_sparsity"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(name, "a bool", getattr(self, name))
        object.__setattr__(self, "zeros", _zeros(self.zeros))
        if not isinstance(self.label, str):
            raise InvalidInput("label", "a string", self.label)

    def to_json(self, degree: int) -> dict[str, Any]:
        """The options as recorded in a result's provenance (with the degree actually used)."""
        return {"degree": degree, "products": self.products, "solver": self.solver, "refute": self.refute,
                "denominators": list(self.denominators), "first_order": self.first_order,
                "term_sparsity": self.term_sparsity} | ({} if self.zeros is None else {"zeros": _zeros_json(self.zeros)})


def _zeros(value: Any) -> Any:
    if value is None or value == "auto":
        return value
    why = 'None, "auto" or a list of points, each a list of exact rationals (int, Fraction or "p/q")'
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InvalidInput("zeros", why, value)
    points = []
    for point in value:
        if isinstance(point, (str, bytes)) or not isinstance(point, Sequence):
            raise InvalidInput("zeros", why, value)
        coords = []
        for x in point:
            if isinstance(x, (bool, float)):
                raise InvalidInput("zeros", why, value)
            try:
                coords.append(Fraction(x))
            except (TypeError, ValueError, ZeroDivisionError):
                raise InvalidInput("zeros", why, value) from None
        points.append(tuple(coords))
    return tuple(points)


def _zeros_json(zeros: Any) -> Any:
    return zeros if zeros == "auto" else [[str(x) for x in point] for point in zeros]


__all__ = ["SOLVERS", "SOSOptions", "normalize_solver"]
