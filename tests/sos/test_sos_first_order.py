"""The first-order (SCS) margin solve of large programs (verify._sos.first_order, engine.search).

Large programs are slow to test, so the thresholds are lowered here (monkeypatch) and the same
claims are run with every program on the first-order path *and* split by term sparsity, against
the interior-point path without the split: the verdicts must agree, false claims are never
certified, thin-margin and singular programs certify exactly or come back unknown.
"""
from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
import sympy

from theorems.verdict import Status
from verify._sos import engine, prove, prove_nonnegative
from verify._sos import first_order as fo
from verify._sos.parse import to_exact
from verify._sos.prove import build_program, default_degree

x, y, z = sympy.symbols("x y z")
MOTZKIN = x**4 * y**2 + x**2 * y**4 - 3 * x**2 * y**2 + 1
QUARTIC = 2 * x**4 + 2 * x**3 * y - x**2 * y**2 + 5 * y**4
SINGULAR = sympy.expand(((x - 1) ** 2 + (y - z) ** 2) * (1 + x**2 + y**2 + z**2) ** 2)


def _dense_sos(seed: int = 3):
    rng = random.Random(seed)
    monomials = (x**2, y**2, z**2, x * y, y * z, x * z, x, y, z, 1, x**3, y**2 * z, x * y * z)
    forms = [sum(rng.randint(-2, 2) * m for m in monomials) for _ in range(6)]
    return sympy.expand(sum(f**2 for f in forms) + x**6 + y**6 + z**6 + 1)


def _program(p, variables, ineqs=(), eqs=(), degree=None, products=False):
    exact = to_exact(p, variables, "p")
    gs = [to_exact(g, variables, "g") for g in ineqs]
    hs = [to_exact(h, variables, "h") for h in eqs]
    return build_program(exact, len(variables), gs, hs, degree or default_degree(exact, gs, hs), products)


@pytest.fixture
def everything_large(monkeypatch):
    """Every program takes the first-order path and the term-sparsity split."""
    monkeypatch.setattr(engine, "FIRST_ORDER_FROM", 1)
    monkeypatch.setattr(prove, "TERM_SPARSITY_FROM", 1)


def test_conic_slack_maps_back_to_the_gram_matrices():
    """``s = b - A x`` on the cone rows of a known point reads back as ``X_b`` (and ``t``)."""
    program = _program(x * y + 1, [x, y], ineqs=[1 - x**2, 1 - x**4], eqs=[x**2 + y**2 - 1], degree=4)
    assert sorted(len(b.basis) for b in program.blocks) == [1, 3, 6]  # a 1 x 1 block: the nonnegative cone
    data = fo.ConicData(program, program.system())
    rng = np.random.default_rng(0)
    grams, z = [], []
    for block in program.blocks:
        size = len(block.basis)
        A = rng.standard_normal((size, size))
        X = A + A.T
        grams.append(X)
        z += [X[i, j] for i in range(size) for j in range(i, size)]
    params = rng.standard_normal(len(program.params))
    t = 0.37
    point = np.concatenate([z, params, [t]])
    s = data.b - data.A @ point
    back = data.grams(point, s)
    assert len(back) == len(grams)
    for X, Y in zip(grams, back):
        assert np.max(np.abs(X - Y)) < 1e-12
    assert s[len(program.system().rhs)] == pytest.approx(1 - t, abs=1e-15)  # the row 1 - t >= 0
    assert data.cone["z"] == len(program.system().rhs)


def test_large_program_takes_the_scs_path_only(everything_large):
    result = prove_nonnegative(_dense_sos(), [x, y, z], refute=False)
    assert result.status is Status.HOLDS and result.certificate.recheck().holds
    s = result.stats
    assert s.margin_solves == (fo.LOOSE,) and s.margin is not None and s.margin > 0
    assert s.float_status == "" and s.margin_iterations > 0


def test_a_point_that_does_not_round_is_refined_then_clarabel(monkeypatch, everything_large):
    real = fo.solve_first_order
    seen = []

    def spoiled(data, accuracy=fo.LOOSE, warm=None):
        seen.append((accuracy, warm is not None))  # the tight solve starts from the loose point
        solution, warm = real(data, accuracy, warm)
        return dataclasses.replace(solution, grams=tuple(X - 10.0 * np.eye(len(X)) for X in solution.grams)), warm

    monkeypatch.setattr(fo, "solve_first_order", spoiled)
    result = prove_nonnegative(_dense_sos(), [x, y, z], refute=False)
    assert seen == [(fo.LOOSE, False), (fo.TIGHT, True)]
    assert result.status is Status.HOLDS and result.certificate.recheck().holds
    assert result.stats.margin_solves[:3] == (fo.LOOSE, fo.TIGHT, "loose")


def test_without_room_for_clarabel_the_verdict_is_unknown(monkeypatch, everything_large):
    monkeypatch.setattr(engine, "CLARABEL_NEWTON_MAX", 0)
    monkeypatch.setattr(fo, "solve_first_order", lambda data, accuracy=fo.LOOSE, warm=None: (fo.FloatSolution(
        (), np.zeros(0), "solver_error: spoiled", 0.0, None, accuracy, None), None))
    result = prove_nonnegative(_dense_sos(), [x, y, z], refute=False)
    assert result.status is Status.UNKNOWN and result.certificate is None
    assert "Clarabel fallback" in result.verdict.reason and "not run" in result.verdict.reason


CLAIMS = [
    ("dense SOS", _dense_sos(), [x, y, z], {"refute": False}, Status.HOLDS),
    ("dense SOS - 2", _dense_sos() - 2, [x, y, z], {"refute": False}, Status.HOLDS),
    ("singular SOS", SINGULAR, [x, y, z], {"refute": False}, None),
    ("singular SOS - 1e-10, false", SINGULAR - sympy.Rational(1, 10**10), [x, y, z], {"refute": False},
     Status.UNKNOWN),
    ("thin margin: (x - y)^2 + 1e-9 (x^2 + y^2)", (x - y) ** 2 + sympy.Rational(1, 10**9) * (x**2 + y**2),
     [x, y], {"refute": False}, None),
    ("quartic", QUARTIC, [x, y], {"refute": False}, Status.HOLDS),
    ("(1+x^2+y^2) Motzkin", sympy.expand((1 + x**2 + y**2) * MOTZKIN), [x, y], {"refute": False}, Status.HOLDS),
    ("Motzkin, PSD not SOS", MOTZKIN, [x, y], {"refute": False}, Status.UNKNOWN),
    ("xy + 1 on the circle", x * y + 1, [x, y], {"eqs": [x**2 + y**2 - 1], "degree": 4, "refute": False},
     Status.HOLDS),
    ("x y - 1e-12 on the box, false", x * y - sympy.Rational(1, 10**12), [x, y],
     {"ineqs": [x, y, 1 - x, 1 - y], "products": True, "refute": False}, None),
]


@pytest.mark.parametrize("name, p, variables, kwargs, expected", CLAIMS, ids=[c[0] for c in CLAIMS])
def test_verdicts_equal_the_interior_point_path(monkeypatch, name, p, variables, kwargs, expected):
    reference = prove_nonnegative(p, variables, first_order=False, term_sparsity=False, **kwargs)
    monkeypatch.setattr(engine, "FIRST_ORDER_FROM", 1)
    monkeypatch.setattr(prove, "TERM_SPARSITY_FROM", 1)
    large = prove_nonnegative(p, variables, **kwargs)
    assert large.status in (Status.HOLDS, Status.UNKNOWN)  # no refutation search ran
    if large.status is Status.HOLDS:
        assert large.certificate.recheck().holds
    if name.endswith("false"):
        assert large.status is Status.UNKNOWN and reference.status is Status.UNKNOWN
    assert large.status is reference.status, (large.verdict.reason, reference.verdict.reason)
    if expected is not None:
        assert large.status is expected
