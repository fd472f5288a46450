"""Structural hypotheses: the mask type, one head, and equal layer-norm scales (docs/model.md §1, §6).

``EqualLNScales`` reads claim LN1: with ``g = c 1``, ``c != 0``, layer normalisation is the
projection onto a translated sphere, so the sphere model applies; unequal scales give an
ellipsoid (open case).  Floats are compared as the exact values they hold and the relative spread
``(max g - min g) / mean |g|`` is reported; any nonzero spread fails.
"""
from __future__ import annotations

from typing import ClassVar

import sympy

from ..errors import InvalidInput
from ..system import AttentionSystem
from ..verdict import Verdict, fails, holds, unknown
from .base import Predicate
from .value_map import _nonzero_at


def _nonzero(value: sympy.Expr) -> bool | None:
    """True when proved nonzero (exactly, or by an enclosure excluding 0), False when it simplifies
    to 0, None when neither can be shown."""
    if value.is_Rational:
        return value != 0
    value = sympy.simplify(value)
    if value == 0:
        return False
    return True if _nonzero_at(value) is not None else None


class MaskIs(Predicate):
    """The system uses the given mask (``"full"`` or ``"causal"``); id ``mask_full`` / ``mask_causal``."""

    id: str
    statement: str
    MASKS: ClassVar[tuple[str, ...]] = ("full", "causal")

    def __init__(self, mask: str) -> None:
        if mask not in self.MASKS:
            raise InvalidInput("mask", "'full' or 'causal'", mask)
        self.mask = mask
        self.id = f"mask_{mask}"
        self.statement = f"the attention mask is {mask}"

    def __repr__(self) -> str:
        return f"MaskIs({self.mask!r})"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        witness = {"mask": system.mask, "required": self.mask}
        if system.mask == self.mask:
            return holds(self.id, f"the system uses {self.mask} attention", witness)
        return fails(self.id, f"the system uses {system.mask} attention, the result needs {self.mask}", witness)


class DimensionAtLeast(Predicate):
    """The ambient dimension is at least ``k`` (id ``dim_at_least_k``).  Theorem 4.2 needs ``d >= 2``:
    on ``S^0 = {-1, +1}`` the projection ``Proj_x = 1 - x^2`` vanishes, every configuration is an
    equilibrium, and the starts with a token at ``-x_1`` (a set of positive counting measure) never
    reach consensus.  The failure witness is that equilibrium, checked exactly."""

    id: str
    statement: str

    def __init__(self, k: int) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInput("k", "a positive integer", k)
        self.k = k
        self.id = f"dim_at_least_{k}"
        self.statement = f"the ambient dimension is at least {k} (d >= {k})"

    def __repr__(self) -> str:
        return f"DimensionAtLeast({self.k})"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        if system.d >= self.k:
            return holds(self.id, f"d = {system.d} >= {self.k}", {"d": system.d})
        witness = {"d": system.d, "required": self.k}
        if system.d == 1:
            # Proj_x F = (1 - x^2) F: exactly 0 at x = +-1 for every F, whatever P, U and beta.
            witness.update({"equilibrium": [["1"], ["-1"]], "projection_at_tokens": ["1 - 1^2 = 0", "1 - (-1)^2 = 0"],
                            "claim": "x_1 = 1, x_2 = -1 (and every start with some token at -x_1) is an equilibrium of "
                                     "eq. 5 on S^0, so x_2 never tends to x_1; with N >= 2 these starts are 2^(N-1) - 1 "
                                     "of the 2^(N-1) configurations with x_1 = 1: positive counting measure"})
        return fails(self.id, f"d = {system.d} < {self.k}" + (": on S^0 every start is an equilibrium (the field "
                     "Proj_x F vanishes), so 'almost every start converges' is false" if system.d == 1 else ""),
                     witness)


class OneHead(Predicate):
    """Exactly one attention head (``H = 1``), as in Assumption 4.4."""

    id = "one_head"
    statement = "the system has exactly one head (H = 1)"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        if system.H == 1:
            return holds(self.id, "one head", {"H": 1})
        return fails(self.id, f"the system has {system.H} heads", {"H": system.H})


class EqualLNScales(Predicate):
    """All layer-norm scales equal and nonzero (``g = c 1``, ``c != 0``).  Witness: ``scale`` (the
    common value) or ``spread`` (exact string for exact data) and ``relative_spread`` (float).
    A system without layer normalisation holds vacuously (its tokens already live on the sphere)."""
    reads = ("layer_norm",)

    id = "equal_ln_scales"
    statement = "all layer-norm scales are equal and nonzero (g = c 1, c != 0)"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        ln = system.layer_norm
        if ln is None:
            return holds(self.id, "no layer normalisation in this system (tokens already on the sphere)",
                         {"layer_norm": None})
        scales = []
        for i, g in enumerate(ln.scale):
            g = sympy.sympify(g)
            if g.free_symbols:
                raise InvalidInput(f"layer_norm.scale[{i}]", "a constant", str(g))
            # A float scale is compared as the exact rational it holds, never rounded.
            scales.append(sympy.Rational(float(g)) if isinstance(g, sympy.Float) else g)
        floats = [float(g) for g in scales]
        mean_abs = sum(abs(v) for v in floats) / len(floats)
        rel = (max(floats) - min(floats)) / mean_abs if mean_abs > 0 else 0.0
        decided = [_nonzero(g - scales[0]) for g in scales]
        differing = [i for i, nz in enumerate(decided) if nz]
        witness = {"relative_spread": rel, "D": len(scales)}
        if not differing and any(nz is None for nz in decided):
            return unknown(self.id, "could not decide whether some scales differ from g[0]",
                           {**witness, "entries": [i for i, nz in enumerate(decided) if nz is None]})
        if differing:
            i = differing[0]
            return fails(self.id, f"scales differ: g[0] = {scales[0]} but g[{i}] = {scales[i]} "
                         f"(relative spread {rel:.3g})",
                         {**witness, "entries": [0, i], "spread": str(sympy.simplify(scales[i] - scales[0]))})
        if _nonzero(scales[0]) is None:
            return unknown(self.id, "could not decide whether the common scale is nonzero", {**witness, "scale": str(scales[0])})
        if not _nonzero(scales[0]):
            return fails(self.id, "all scales are zero (c = 0): LN collapses to its shift",
                         {**witness, "scale": "0"})
        return holds(self.id, f"all {len(scales)} scales equal {scales[0]}", {**witness, "scale": str(scales[0])})


__all__ = ["DimensionAtLeast", "EqualLNScales", "MaskIs", "OneHead"]
