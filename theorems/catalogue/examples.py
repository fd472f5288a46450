"""Built-in example instances, one per result, each satisfying every hypothesis of its result.

All data are exact rationals so that every predicate can answer in exact arithmetic; the
tokens are rational points of the unit sphere (Pythagorean quadruples).
"""
from __future__ import annotations

from ..system import AttentionSystem
from ..system_build import simple_system
from ..system_json import system_from_dict

# Rational unit vectors in R^3: (2/3, 2/3, 1/3), (3/5, 4/5, 0), ...
_HEMISPHERE_TOKENS = [[1, 0, 0], ["3/5", "4/5", 0], [0, "3/5", "4/5"], ["2/3", "1/3", "2/3"]]
_GENERIC_TOKENS = [["2/3", "2/3", "1/3"], [0, 1, 0], ["-3/5", 0, "4/5"], ["2/7", "-3/7", "6/7"], ["-2/3", "1/3", "-2/3"]]
_P_A = [[1, "1/2", 0], [0, "1/2", "-1/3"], ["1/4", 0, 1]]
_P_B = [["1/2", 0, "1/5"], ["1/3", -1, 0], [0, "1/4", "1/2"]]


def example_weights() -> AttentionSystem:
    return simple_system([_P_A, _P_B], "identity", _GENERIC_TOKENS, beta=1, mask="full", name="example-weights")


def example_3_2() -> AttentionSystem:
    """Full attention, one head, ``P(t) = sin(t) A + B`` (bounded, Lipschitz), ``U = I``."""
    P = [[f"sin(t)*({a}) + ({b})" for a, b in zip(ra, rb)] for ra, rb in zip(_P_A, _P_B)]
    return simple_system(P, "identity", _HEMISPHERE_TOKENS, beta=1, mask="full", name="example-3.2")


def example_4_2() -> AttentionSystem:
    """Causal attention, two constant heads, ``U = I``, tokens spread over the sphere."""
    return simple_system([_P_A, _P_B], "identity", _GENERIC_TOKENS, beta=1, mask="causal", name="example-4.2")


def example_4_4_sym() -> AttentionSystem:
    """Causal, one head, ``U = diag(1, -1/2, -2)`` (symmetric, simple top eigenvalue, gap 3/2)."""
    U = [[1, 0, 0], [0, "-1/2", 0], [0, 0, -2]]
    return simple_system(_P_A, U, _GENERIC_TOKENS, beta=1, mask="causal", name="example-4.4-sym")


def example_grad_energy() -> AttentionSystem:
    """Full, one head, ``P = U`` symmetric and constant."""
    S = [[1, "1/2", 0], ["1/2", "1/2", "1/4"], [0, "1/4", "-1/3"]]
    return simple_system(S, S, _HEMISPHERE_TOKENS, beta=1, mask="full", name="example-grad-energy")


def example_ln1() -> AttentionSystem:
    """A system carrying one layer norm with equal scales ``g = (2, 2, 2)``."""
    data = {
        "name": "example-LN1", "d": 3, "beta": 1, "mask": "full",
        "heads": [{"P": _P_A, "U": "identity"}], "tokens": _HEMISPHERE_TOKENS,
        "layer_norm": {"scale": [2, 2, 2], "shift": ["1/10", 0, "-1/10"]},
    }
    return system_from_dict(data)
