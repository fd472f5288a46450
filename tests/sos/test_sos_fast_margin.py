"""Issue 14: the loose margin solve first, the default-accuracy pipeline only as its fallback.

Also the two exact speed-ups under it: the projection factored one independent block of rows at a
time, and the fraction-free LDL^T of the re-check; both are checked against the plain algorithms
they replace (differential tests), since only speed may change.
"""
from __future__ import annotations

import dataclasses
import random
from fractions import Fraction as F

import flint
import numpy as np
import pytest
import sympy

from theorems.errors import InvalidInput
from theorems.verdict import Status
from verify._sos import engine, prove_nonnegative
from verify._sos.exact_psd import check_psd
from verify._sos.parse import to_exact
from verify._sos.prove import build_program, default_degree
from verify._sos.rounding import Projector
from verify._sos.solve import DEFAULT, LOOSE, solve_margin

x, y, z = sympy.symbols("x y z")
MOTZKIN = x**4 * y**2 + x**2 * y**4 - 3 * x**2 * y**2 + 1
QUARTIC = 2 * x**4 + 2 * x**3 * y - x**2 * y**2 + 5 * y**4


def _program(p, variables, ineqs=(), eqs=(), degree=None, products=False):
    exact = to_exact(p, variables, "p")
    gs = [to_exact(g, variables, "g") for g in ineqs]
    hs = [to_exact(h, variables, "h") for h in eqs]
    return build_program(exact, len(variables), gs, hs, degree or default_degree(exact, gs, hs), products)


def _dense_sos(seed: int = 3):
    """A random dense SOS of degree 6 in 3 variables: one 20 x 20 Gram block, 210 unknowns."""
    rng = random.Random(seed)
    monomials = (x**2, y**2, z**2, x * y, y * z, x * z, x, y, z, 1, x**3, y**2 * z, x * y * z)
    forms = [sum(rng.randint(-2, 2) * m for m in monomials) for _ in range(6)]
    return sympy.expand(sum(f**2 for f in forms) + x**6 + y**6 + z**6 + 1)


SINGULAR = sympy.expand(((x - 1) ** 2 + (y - z) ** 2) * (1 + x**2 + y**2 + z**2) ** 2)
"""SOS with the real zeros (1, t, t): no Gram matrix is definite (210 unknowns)."""


def test_loose_point_rounds_without_any_accurate_solve():
    result = prove_nonnegative(_dense_sos(), [x, y, z], refute=False)
    assert result.status is Status.HOLDS and result.certificate.recheck().holds
    s = result.stats
    assert s.unknowns >= engine.LOOSE_FROM_UNKNOWNS and s.margin_solves == ("loose",)
    assert s.float_status == "" and s.float_solve_s == 0.0 and s.float_iterations == 0
    assert s.margin is not None and s.margin > 0 and s.margin_iterations > 0


def test_small_program_skips_the_loose_solve():
    result = prove_nonnegative(QUARTIC, [x, y], refute=False)
    assert result.status is Status.HOLDS and result.certificate.recheck().holds
    assert result.stats.unknowns < engine.LOOSE_FROM_UNKNOWNS and result.stats.margin_solves == ("default",)


def test_loose_solve_takes_fewer_iterations_than_the_default_one():
    program = _program(_dense_sos(), [x, y, z])
    system = program.system()
    loose = solve_margin(program, system, accuracy=LOOSE)
    tight = solve_margin(program, system, accuracy=DEFAULT)
    assert loose.accuracy == LOOSE and tight.accuracy == DEFAULT
    assert loose.usable and tight.usable and loose.margin > 0 and tight.margin > 0
    assert 0 < loose.iterations < tight.iterations
    assert abs(loose.margin - tight.margin) < 0.5 * tight.margin  # near the optimum, not at it


def test_unknown_accuracy_is_refused():
    program = _program(QUARTIC, [x, y])
    with pytest.raises(InvalidInput, match="accuracy"):
        solve_margin(program, program.system(), accuracy="sloppy")


def test_loose_point_that_does_not_round_falls_back_to_default_accuracy(monkeypatch):
    """The loose Gram matrices are pushed out of the PSD cone (margin still reported positive), so
    their exact PSD check fails at every denominator; the default-accuracy solve then proves it."""
    real = engine.solve_margin
    seen = []

    def spoiled(program, system, solver="CLARABEL", accuracy=DEFAULT):
        solution = real(program, system, solver, accuracy)
        seen.append(accuracy)
        if accuracy != LOOSE:
            return solution
        assert solution.usable and solution.margin > 0
        return dataclasses.replace(solution, grams=tuple(X - 10.0 * np.eye(len(X)) for X in solution.grams))

    monkeypatch.setattr(engine, "solve_margin", spoiled)
    result = prove_nonnegative(_dense_sos(), [x, y, z], refute=False)
    assert seen == [LOOSE, DEFAULT]
    assert result.status is Status.HOLDS and result.certificate.recheck().holds
    s = result.stats
    assert s.margin_solves == ("loose", "default") and s.margin_status == "optimal"
    assert s.rounding_attempts > len(result.options["denominators"])  # every loose attempt failed first
    assert s.float_status == ""  # the default margin rounded: no plain SDP


def test_no_interior_point_takes_the_old_path():
    """SINGULAR minus 1e-10 (false at (1, 0, 0)): no positive margin at either accuracy; the plain
    SDP runs and nothing is proved."""
    result = prove_nonnegative(SINGULAR - sympy.Rational(1, 10**10), [x, y, z], refute=False)
    assert result.status is Status.UNKNOWN and result.certificate is None
    assert result.stats.margin_solves[:2] == ("loose", "default")
    assert result.stats.float_status in ("optimal", "optimal_inaccurate") and result.stats.float_iterations > 0


CLAIMS = [
    ("dense SOS", _dense_sos(), [x, y, z], {}, Status.HOLDS),
    ("dense SOS - 2", _dense_sos() - 2, [x, y, z], {}, Status.HOLDS),
    ("dense SOS, seed 8", _dense_sos(8), [x, y, z], {"refute": False}, Status.HOLDS),
    ("singular SOS", SINGULAR, [x, y, z], {}, None),
    ("singular SOS - 1e-10, false", SINGULAR - sympy.Rational(1, 10**10), [x, y, z], {"refute": False},
     Status.UNKNOWN),
    ("singular SOS - 1e-10, refuted", SINGULAR - sympy.Rational(1, 10**10), [x, y, z], {}, Status.FAILS),
    ("quartic", QUARTIC, [x, y], {}, Status.HOLDS),
    ("(1+x^2+y^2) Motzkin", sympy.expand((1 + x**2 + y**2) * MOTZKIN), [x, y], {}, Status.HOLDS),
    ("Motzkin, PSD not SOS", MOTZKIN, [x, y], {"refute": False}, Status.UNKNOWN),
    ("xy + 1 on the circle", x * y + 1, [x, y], {"eqs": [x**2 + y**2 - 1], "degree": 4}, Status.HOLDS),
]


@pytest.mark.parametrize("name, p, variables, kwargs, expected", CLAIMS, ids=[c[0] for c in CLAIMS])
def test_verdict_equals_the_default_accuracy_pipeline(monkeypatch, name, p, variables, kwargs, expected):
    """The reference: the same engine with its loose step run at default accuracy (the pipeline
    before issue 14's loose solve, plus one redundant solve)."""
    fast = prove_nonnegative(p, variables, **kwargs)
    monkeypatch.setattr(engine, "LOOSE", DEFAULT)
    reference = prove_nonnegative(p, variables, **kwargs)
    assert fast.status is reference.status, (fast.verdict.reason, reference.verdict.reason)
    if fast.status is Status.HOLDS:
        assert fast.certificate.recheck().holds
    if expected is not None:
        assert fast.status is expected


def _dense_projection(system, z_round):
    """The projection as before the block split: one RREF of the whole ``A W^{-1} A^T``."""
    m = len(system.rhs)
    gram = flint.fmpq_mat(m, m)
    for col, weight in zip(system.columns, system.weights):
        for r1, v1 in col:
            for r2, v2 in col:
                value = F(v1) * v2 / weight
                gram[r1, r2] = gram[r1, r2] + flint.fmpq(value.numerator, value.denominator)
    reduced, rank = gram.rref()
    pivots, col = [], 0
    for r in range(rank):
        while reduced[r, col] == 0:
            col += 1
        pivots.append(col)
        col += 1
    residual = [-v for v in system.rhs]
    for value, column in zip(z_round, system.columns):
        for r, a in column:
            residual[r] += a * value
    y_by_row = {}
    if pivots:
        sub = flint.fmpq_mat(len(pivots), len(pivots), [gram[a, b] for a in pivots for b in pivots])
        rhs = flint.fmpq_mat(len(pivots), 1, [flint.fmpq(residual[r].numerator, residual[r].denominator)
                                               for r in pivots])
        yv = sub.solve(rhs)
        y_by_row = {r: F(int(yv[a, 0].p), int(yv[a, 0].q)) for a, r in enumerate(pivots)}
    out = [value - sum((a * y_by_row.get(r, 0) for r, a in column), F(0)) / weight
           for value, column, weight in zip(z_round, system.columns, system.weights)]
    return out, pivots


PROGRAMS = [
    ("one Gram block", lambda: _program(_dense_sos(), [x, y, z]), True),
    ("one small Gram block", lambda: _program(QUARTIC, [x, y]), True),
    ("products on a box", lambda: _program(1 - x**2 * y**2, [x, y], ineqs=[1 - x**2, 1 - y**2], degree=4,
                                           products=True), False),
    ("equality multipliers", lambda: _program(x * y + 1, [x, y], eqs=[x**2 + y**2 - 1], degree=4), False),
    ("mixed constraints", lambda: _program(x**3 + z, [x, y, z], ineqs=[x, z - x**2], eqs=[y - x], degree=4), False),
]


@pytest.mark.parametrize("name, make, diagonal", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_block_projection_equals_the_dense_projection(name, make, diagonal):
    system = make().system()
    projector = Projector(system)
    rng = random.Random(len(system.rhs))
    checked = 0
    for _ in range(4):
        z_round = [F(rng.randint(-999, 999), rng.choice([1, 256, 4096])) for _ in system.columns]
        expected, pivots = _dense_projection(system, z_round)
        got, why = projector.project(z_round)
        assert projector.pivots == pivots
        if why:  # the system is inconsistent: the dense projection misses some row too
            residual = [-v for v in system.rhs]
            for value, column in zip(expected, system.columns):
                for r, a in column:
                    residual[r] += a * value
            assert any(residual) and got == []
        else:
            assert got == expected
            checked += 1
    assert checked > 0
    sizes = [len(rows) for rows, _ in projector.blocks]
    assert (max(sizes) == 1) is diagonal  # one Gram block of weight 1: A W^-1 A^T is diagonal


def _reference_ldl(matrix):
    """The rational LDL^T the re-check used before the fraction-free one: (ok, reason, pivots, rank)."""
    size = len(matrix)
    for i in range(size):
        for j in range(i + 1, size):
            if matrix[i][j] != matrix[j][i]:
                return None
    work = [[F(v) for v in row] for row in matrix]
    pivots = []
    for k in range(size):
        d = work[k][k]
        if d < 0:
            return False, f"negative pivot d_{k} = {d} in LDL^T elimination", tuple(pivots + [d]), 0
        if d == 0:
            for i in range(k + 1, size):
                if work[i][k] != 0:
                    return (False, f"zero pivot d_{k} with nonzero entry ({i},{k}) = {work[i][k]} in its Schur "
                                   f"complement", tuple(pivots + [d]), 0)
            pivots.append(d)
            continue
        pivots.append(d)
        for i in range(k + 1, size):
            factor = work[i][k] / d
            for j in range(k + 1, size):
                work[i][j] -= factor * work[k][j]
    rank = sum(1 for p in pivots if p > 0)
    return True, f"PSD (exact LDL^T, rank {rank} of {size})", tuple(pivots), rank


def _random_symmetric(rng: random.Random):
    n = rng.randint(0, 8)
    r = rng.randint(0, n)
    B = [[F(rng.randint(-3, 3), rng.choice([1, 1, 2, 3, 7])) for _ in range(r)] for _ in range(n)]
    M = [[sum((B[i][k] * B[j][k] for k in range(r)), F(0)) for j in range(n)] for i in range(n)]
    kind = rng.random()
    if kind < 0.3 and n:
        i = rng.randrange(n)
        M[i][i] -= F(1, rng.randint(1, 50))
    elif kind < 0.45 and n >= 2:
        i, j = rng.sample(range(n), 2)
        M[i][j] = M[j][i] = M[i][j] + F(rng.randint(-5, 5), 3)
    elif kind < 0.6 and n >= 2:  # a zero diagonal entry whose column is not zero
        i = rng.randrange(n)
        for row in M:
            row[i] = F(0)
        M[i] = [F(0)] * n
        j = (i + 1) % n
        M[i][j] = M[j][i] = F(rng.randint(1, 4), rng.randint(1, 4))
    if rng.random() < 0.25:
        M = [[int(v) if v.denominator == 1 else v for v in row] for row in M]
    return M


def test_fraction_free_ldl_equals_the_rational_elimination():
    rng = random.Random(14)
    outcomes = {}
    for _ in range(1500):
        M = _random_symmetric(rng)
        expected = _reference_ldl(M)
        got = check_psd(M)
        assert (got.ok, got.reason, got.pivots, got.rank) == expected, M
        key = "PSD" if got.ok else got.reason.split()[0]
        outcomes[key] = outcomes.get(key, 0) + 1
    assert set(outcomes) == {"PSD", "negative", "zero"} and min(outcomes.values()) > 100, outcomes


def test_fraction_free_ldl_on_a_rounded_gram_block():
    """A 40 x 40 interior Gram point rounded to denominator 2^26 (PSD), and the same matrix with its
    last diagonal entry lowered by its last pivot plus 1/D (that pivot becomes -1/D: indefinite)."""
    rng = np.random.default_rng(40)
    A = rng.standard_normal((40, 40))
    G = A @ A.T / 40 + 0.05 * np.eye(40)
    D = 2**26
    psd = [[F(round(float(G[min(i, j), max(i, j)]) * D), D) for j in range(40)] for i in range(40)]
    first = check_psd(psd)
    assert (first.ok, first.reason, first.pivots, first.rank) == _reference_ldl(psd)
    assert first.ok and first.rank == 40
    indefinite = [row[:] for row in psd]
    indefinite[39][39] -= first.pivots[39] + F(1, D)
    second = check_psd(indefinite)
    assert (second.ok, second.reason, second.pivots, second.rank) == _reference_ldl(indefinite)
    assert not second.ok and second.pivots[39] == F(-1, D)


def test_stats_json_lists_the_margin_solves():
    data = prove_nonnegative(_dense_sos(), [x, y, z]).stats.to_json()
    assert data["margin_solves"] == ["loose"] and data["margin_iterations"] > 0 and data["float_iterations"] == 0
