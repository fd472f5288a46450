"""``4.4-hemisphere``: this project's reading of what Assumption 4.4 most likely intends (docs/model.md §2).

Causal attention, one head, ``U`` symmetric and time-invariant with a simple largest eigenvalue
``lambda_1 > 0`` (eigenvector ``v``), ``P`` bounded, and every token in the open v-hemisphere
``<v, x_i(0)> > 0`` (``v``'s sign chosen by the tokens) ==> every token converges to ``v``.
The example instance satisfies every hypothesis exactly (rational data, rational eigenvector).
"""
from __future__ import annotations

from ..predicates.bounded import PBounded
from ..predicates.structure import EqualLNScales, MaskIs, OneHead
from ..predicates.top_eigen_sign import TopEigenvaluePositive, VHemisphere
from ..predicates.value_map import USimpleTopEigenvalue, USymmetric, UTimeInvariant
from ..system import AttentionSystem
from ..system_build import simple_system
from .base import Theorem

_P = [[1, "1/2", 0], [0, "1/2", "-1/3"], ["1/4", 0, 1]]
_U = [[1, "1/2", 0], ["1/2", 1, 0], [0, 0, "-1/2"]]
"""Eigenvalues 3/2 (v = (1, 1, 0)/sqrt 2), 1/2, -1/2: lambda_1 = 3/2 > 0, gap 1."""
_TOKENS = [["2/3", "2/3", "1/3"], [1, 0, 0], [0, "3/5", "4/5"], ["6/7", "-2/7", "3/7"], ["3/5", 0, "-4/5"]]
"""Rational unit vectors with x_1 + x_2 > 0 (the open v-hemisphere)."""


def example_4_4_hemisphere() -> AttentionSystem:
    return simple_system(_P, _U, _TOKENS, beta=1, mask="causal", name="example-4.4-hemisphere")


def theorem_4_4_hemisphere(citation: str) -> Theorem:
    return Theorem(
        id="4.4-hemisphere", kind="theorem", title="Causal attention, one head, same-sign consensus in the v-hemisphere",
        setting="causal attention, one head",
        hypotheses=(MaskIs("causal"), OneHead(), USymmetric(), UTimeInvariant(), USimpleTopEigenvalue(),
                    TopEigenvaluePositive(), PBounded(), VHemisphere(), EqualLNScales()),
        conclusion=("every token converges to v, the top eigenvector of U oriented so that <v, x_i(0)> > 0 for all i "
                    "(same-sign consensus); the open v-hemisphere is forward invariant"),
        citation=citation + ", Assumption 4.4 (this project's reading of what it most likely intends)",
        reading=("This project's reading, not a numbered result: the later-token reading of 4.4-sym (docs/model.md §2) is false "
                 "(see 4.4-sym); adding lambda_1 > 0 and starting every token in the open v-hemisphere makes the "
                 "v-hemisphere invariant and the causal cascade ISS, so every token converges to v."),
        example=example_4_4_hemisphere,
    )
