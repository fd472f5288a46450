"""Small builders shared by the soundness families (exact literals, random rationals, placement)."""
from __future__ import annotations

import random
from fractions import Fraction

from soundness_helpers import Case, instance


def q(x: Fraction) -> str:
    """Exact rational literal, parenthesised."""
    x = Fraction(x)
    s = str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    return f"({s})"


def rat(rng: random.Random, lo: float, hi: float, den: int = 7) -> Fraction:
    return Fraction(rng.randint(int(lo * den) + 1, int(hi * den) - 1), den)


def _place(rng: random.Random, entry: str, base_diag=(1, 1, 1)) -> list[list]:
    """A 3x3 matrix with diagonal ``base_diag`` and ``entry`` at a random position."""
    m = [[(base_diag[i] if i == j else 0) for j in range(3)] for i in range(3)]
    i, j = rng.randrange(3), rng.randrange(3)
    m[i][j] = entry
    return m


def _p_case(cid, cls, theorem, entry, witness, rng, note="") -> Case:
    false = ("P_bounded", "P_uniformly_continuous") if theorem == "3.2" else ("P_bounded",)
    return Case(cid, cls, theorem, false, instance(theorem, P=_place(rng, entry)), witness, note=note)
