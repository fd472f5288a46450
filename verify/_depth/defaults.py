"""Default instances of ``verify depth`` (exact rational data).

* 3.2: the catalogue's example (a copy of ``theorems.catalogue.examples.example_3_2``: full attention, ``P(t) = sin(t) A + B``, tokens in the hemisphere of
  ``(1, 1, 1)``).
* 4.2: the catalogue's example has ``<x_1, x_3(0)> = -2/15 < 0``, outside the hemisphere around ``x_1``
  where the all-token bound is proved, so ``verify depth 4.2`` uses the same two constant heads with
  tokens that all satisfy ``<x_1, x_i(0)> >= 2/3``.
"""
from __future__ import annotations

from theorems import AttentionSystem, simple_system

_P_A = [[1, "1/2", 0], [0, "1/2", "-1/3"], ["1/4", 0, 1]]
_P_B = [["1/2", 0, "1/5"], ["1/3", -1, 0], [0, "1/4", "1/2"]]
_CAUSAL_TOKENS = [["2/3", "2/3", "1/3"], [0, 1, 0], ["2/7", "3/7", "6/7"], ["3/5", 0, "4/5"], [1, 0, 0]]


_HEMISPHERE_TOKENS = [[1, 0, 0], ["3/5", "4/5", 0], [0, "3/5", "4/5"], ["2/3", "1/3", "2/3"]]


def default_instance(theorem_id: str) -> AttentionSystem:
    if theorem_id == "4.2":
        return simple_system([_P_A, _P_B], "identity", _CAUSAL_TOKENS, beta=1, mask="causal", name="depth-4.2")
    P = [[f"sin(t)*({a}) + ({b})" for a, b in zip(ra, rb)] for ra, rb in zip(_P_A, _P_B)]
    return simple_system(P, "identity", _HEMISPHERE_TOKENS, beta=1, mask="full", name="example-3.2")
