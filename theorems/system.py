"""The attention system of docs/model.md §1 as an immutable record.

An :class:`AttentionSystem` is ``d`` (ambient dimension), the tokens ``x_1..x_N`` on the unit
sphere ``S^{d-1}``, the temperature ``beta``, the mask (``"full"`` or ``"causal"``) and the
heads, each a pair of schedules ``P^h(t) = Q^h(t)^T K^h(t)`` and ``U^h(t)``.  Optional layer-norm
scales and shifts describe eq. 2 when the system comes from a model.

Validation happens in the constructor (shapes, finiteness, unit norm); the JSON reader in
:mod:`theorems.system_json` adds precise field paths to the messages.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import sympy

from .enclosure import check_condition, constant_interval
from .errors import InvalidInput, InvalidType
from .expressions import exact_value
from .matrices import MatrixSchedule
from .schedule_reading import admit_schedule

Mask = Literal["full", "causal"]
TOKEN_NORM_TOL = 1e-12
"""Float tokens are accepted when ``| |x|^2 - 1 | <= TOKEN_NORM_TOL`` (decimal round-off only)."""


@dataclass(frozen=True, eq=False)
class Head:
    P: MatrixSchedule
    U: MatrixSchedule


@dataclass(frozen=True, eq=False)
class LayerNormSpec:
    """Scales ``g`` and shifts ``b`` of one layer normalisation (eq. 2), exact or float."""

    scale: tuple[sympy.Expr, ...]
    shift: tuple[sympy.Expr, ...]


@dataclass(frozen=True, eq=False)
class AttentionSystem:
    """Tokens, temperature, mask and heads of the continuous attention model (paper eq. 5)."""

    d: int
    beta: sympy.Expr
    mask: Mask
    heads: tuple[Head, ...]
    tokens: np.ndarray
    tokens_exact: sympy.ImmutableMatrix | None = None
    layer_norm: LayerNormSpec | None = None
    name: str = "instance"
    description: str = ""
    tokens_rescaled: tuple[int, ...] = ()
    """0-based tokens that the reader divided by their exact norm (written with floats, within
    ``TOKEN_NORM_TOL`` of the sphere; :mod:`theorems.token_reading`)."""

    def __post_init__(self) -> None:
        if self.d < 1:
            raise InvalidInput("d", "a positive integer", self.d)
        if self.mask not in ("full", "causal"):
            raise InvalidInput("mask", "'full' or 'causal'", self.mask)
        if not self.heads:
            raise InvalidInput("heads", "at least one head", [])
        if not (self.beta.is_number and check_condition("positive", self.beta).status == "proven"):
            raise InvalidInput("beta", "a constant proven positive", str(self.beta))
        heads = []
        for h, head in enumerate(self.heads):
            if not isinstance(head, Head):
                raise InvalidType(f"heads[{h}]", "a Head(P, U)", type(head).__name__)
            heads.append(Head(admit_schedule(head.P, self.d, f"heads[{h}].P"),
                              admit_schedule(head.U, self.d, f"heads[{h}].U")))
        object.__setattr__(self, "heads", tuple(heads))
        if self.tokens_exact is not None:
            exact = _exact_tokens(self.tokens_exact, self.d)
            object.__setattr__(self, "tokens_exact", exact)
            object.__setattr__(self, "tokens", _token_floats(exact, self.tokens))
        tokens = np.asarray(self.tokens, dtype=float)
        if tokens.ndim != 2 or tokens.shape[1] != self.d or tokens.shape[0] < 1:
            raise InvalidInput("tokens", f"a list of N >= 1 vectors of length d={self.d}", tokens.shape)
        if not np.all(np.isfinite(tokens)):
            raise InvalidInput("tokens", "finite numbers", "a non-finite entry")
        if self.tokens_exact is not None:
            for i in range(self.tokens_exact.rows):
                _check_exact_unit(i, self.tokens_exact.row(i))
        else:
            dev = np.abs(np.sum(tokens ** 2, axis=1) - 1.0)
            bad = int(np.argmax(dev))
            if dev[bad] > TOKEN_NORM_TOL:
                raise InvalidInput(f"tokens[{bad}]", f"a unit vector (float tokens: | |x|^2 - 1 | <= {TOKEN_NORM_TOL:g})",
                                   f"norm {_shown_norm(float(np.sqrt(np.sum(tokens[bad] ** 2))))}",
                                   "Set \"normalize_tokens\": true in the instance to rescale the tokens explicitly")
        tokens = tokens.copy()  # never the caller's array, and read-only: the checks above stay true
        tokens.setflags(write=False)
        object.__setattr__(self, "tokens", tokens)

    @property
    def N(self) -> int:
        return int(self.tokens.shape[0])

    @property
    def H(self) -> int:
        return len(self.heads)

    @property
    def beta_float(self) -> float:
        return float(self.beta)

    def P_at(self, time: float) -> np.ndarray:
        """Array of shape ``(H, d, d)`` with every head's ``P`` at ``time``."""
        return np.stack([h.P.at(time) for h in self.heads])

    def U_at(self, time: float) -> np.ndarray:
        return np.stack([h.U.at(time) for h in self.heads])

    @property
    def time_invariant(self) -> bool:
        return all(h.P.time_invariant and h.U.time_invariant for h in self.heads)

    def with_tokens(self, tokens: np.ndarray, tokens_exact: sympy.ImmutableMatrix | None = None) -> "AttentionSystem":
        return AttentionSystem(self.d, self.beta, self.mask, self.heads, np.asarray(tokens, float),
                               tokens_exact, self.layer_norm, self.name, self.description)


def _exact_tokens(value: object, d: int) -> sympy.ImmutableMatrix:
    """Exact tokens given in Python: an ``N x d`` matrix of real constants (a SymPy ``Float`` is the
    binary rational it holds), each proven finite by an arb enclosure."""
    try:
        m = sympy.ImmutableMatrix(value)
    except (TypeError, ValueError, sympy.SympifyError) as exc:
        raise InvalidType("tokens_exact", "an N x d matrix of exact numbers", type(value).__name__) from exc
    if m.cols != d or m.rows < 1:
        raise InvalidInput("tokens_exact", f"a list of N >= 1 vectors of length d={d}", m.shape)
    m = m.applyfunc(exact_value)
    for i in range(m.rows):
        for j in range(m.cols):
            v = m[i, j]
            if v.free_symbols or (not v.is_Rational and constant_interval(v) is None):
                raise InvalidInput(f"tokens[{i}][{j}]", "a real constant (tokens do not depend on t)", str(v))
    return m


def _token_floats(exact: sympy.ImmutableMatrix, given: object) -> np.ndarray:
    """The float array of exact tokens, computed from them; a given array must agree with it."""
    derived = np.array([[float(v) if v.is_Rational else float(v.evalf(20)) for v in exact.row(i)]
                        for i in range(exact.rows)], dtype=float)
    given = np.asarray(given, dtype=float)
    if given.shape != derived.shape or not np.allclose(given, derived, rtol=0, atol=1e-9):
        raise InvalidInput("tokens", "the float values of tokens_exact (both describe the same tokens)",
                           f"an array of shape {given.shape} that differs from them")
    return derived


def _shown_norm(norm: float) -> str:
    """``norm`` with enough digits to show how far it is from 1 (``1.0000000002``, never ``1``)."""
    gap = abs(norm - 1.0)
    digits = 6 if gap == 0 or not math.isfinite(gap) else max(6, 2 + math.ceil(-math.log10(gap)))
    return f"{norm:.{min(digits, 17)}g}"


def _check_exact_unit(i: int, row) -> None:
    """Accept an exact token only when ``|x|^2 - 1`` is *proved* to vanish (exact arithmetic or a
    SymPy simplification to 0); never after rounding or guessing a closed form."""
    residual = sympy.simplify(sympy.expand(sum(v ** 2 for v in row)) - 1)
    if residual == 0:
        return
    hint = "Set \"normalize_tokens\": true to rescale explicitly, or give the coordinates so that |x| = 1 exactly"
    value = sympy.N(residual, 50)
    if value.is_Number and abs(value) > sympy.Float("1e-40", 50):
        raise InvalidInput(f"tokens[{i}]", "a unit vector (exact data must have norm exactly 1)",
                           f"|x|^2 - 1 = {sympy.N(residual, 6)}", hint)
    raise InvalidInput(f"tokens[{i}]", "a unit vector whose norm can be proved to be exactly 1",
                       f"|x|^2 - 1 = {residual} (could not be simplified to 0)", hint)
