"""Tamper suite: changing any single rational of a golden equilibrium certificate by +1/7 makes the
re-check fail, except the entries listed in IRRELEVANT, which are shown to leave it valid.

IRRELEVANT entries are data of the system that neither the equilibrium nor its Jacobian depend on,
so the changed certificate is a valid certificate for the changed system (it is the stored system
that the claim is about).  Every other number (box midpoints and radii, A, S, beta, the rest of
P and U) is checked.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from eq_helpers import CASES, golden
from theorems.errors import InvalidInput
from verify.equilibrium import EquilibriumCertificate

P = ("system", "heads", 0, "P")
IRRELEVANT = {
    # tokens 1-3 at e1 and x_4 in the plane x_3 = 0: P[2][2] enters the field only through x_3^2 terms,
    # which vanish to second order there (not in the equilibrium equations, not in the Jacobian).
    "4.4-sym-later": {P + (2, 2)},
    # (e1, -e1) is an equilibrium for every P, and its Jacobian sees P only through <x_i, P x_j> = +-P[0][0]
    # (the other entries multiply the e1 component of the field, which the chart kills at y = 0).
    "4.4-same-sign": {P + (a, b) for a in range(3) for b in range(3) if (a, b) != (0, 0)},
}


def _rational_paths(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("claim", "label", "format", "kind", "refutes"):
                continue
            yield from _rational_paths(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _rational_paths(value, path + (i,))
    elif isinstance(node, str):
        try:
            Fraction(node)
        except ValueError:
            return
        yield path


def _changed(data, path, fn):
    data = copy.deepcopy(data)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = fn(target[path[-1]])
    return data


def _accepted(data) -> bool:
    try:
        return EquilibriumCertificate.from_json(data).recheck().holds
    except InvalidInput:
        return False


@pytest.mark.parametrize("theorem_id", sorted(CASES))
def test_every_rational_change_is_detected(theorem_id):
    original = golden(theorem_id)
    assert _accepted(original)
    paths = list(_rational_paths(original))
    assert len(paths) >= 40
    kinds = {p[0] for p in paths}
    assert {"system", "box", "stability"} <= kinds
    accepted = {p for p in paths if _accepted(_changed(original, p, lambda s: str(Fraction(s) + Fraction(1, 7))))}
    assert accepted == IRRELEVANT[theorem_id]


@pytest.mark.parametrize("theorem_id", sorted(CASES))
@pytest.mark.parametrize("path, fn", [
    (("charts", -1, "sign"), lambda s: -s),
    (("charts", -1, "pivot"), lambda k: (k + 1) % 3),
    (("witness", 0), lambda w: w - 1 if w else w + 1),
    (("stability",), lambda blocks: blocks[::-1]),
])
def test_structural_changes_are_detected(theorem_id, path, fn):
    original = golden(theorem_id)
    assert not _accepted(_changed(original, path, fn))


def test_refuted_claim_cannot_be_swapped():
    data = copy.deepcopy(golden("4.4-sym-later"))
    data["refutes"] = "same-sign-consensus"
    data["witness"] = [0, 3]
    assert not _accepted(data)  # U = diag(1, -1/2, -2) is not positive definite
