"""Issue 22 (c): the validated layer map (eq. 4) against an independent 60-digit iteration.

Random instances (both masks, one or two heads, random rational ``P`` and ``U``, ``tau`` in
{1/4, 1/2, 1}) are iterated by :func:`verify.validated.iterate_layers`; after every layer each
ball must contain the oracle's token (``validated_oracle.layer_solution``: fixed point on Python
integers, about 60 digits).  The Lohner representation must stay tight for hundreds of layers,
where the plain ball iteration of :mod:`verify._depth.late_entry` overflows.
"""
from __future__ import annotations

import random
from fractions import Fraction

import flint
import pytest
from flint import arb, ctx

from validated_cases import random_matrix, unit_rational
from validated_oracle import layer_solution
from verify.validated import Field, LayerOptions, Tokens, ValidatedStatus, iterate_layers, layer_window
from verify.validated.balls import max_width
from theorems.verdict import Status

ORACLE_ERR = arb(1) / 10 ** 50


def _contained(enclosure, values) -> bool:
    with ctx.workprec(192):
        return all((ball + arb(0, ORACLE_ERR.upper())).contains(arb(v.numerator) / v.denominator)
                   for row, vals in zip(enclosure, values) for ball, v in zip(row, vals))


def _case(seed: int):
    rng = random.Random(seed)
    N, d, H = rng.randint(2, 5), rng.randint(2, 4), rng.choice([1, 2])
    beta = rng.choice([Fraction(1, 2), Fraction(1), Fraction(2)])
    P = [random_matrix(rng, d, Fraction(1, 2)) for _ in range(H)]
    U = [random_matrix(rng, d, Fraction(1, 2)) for _ in range(H)]
    tokens = [unit_rational(rng, d, hemisphere=True) for _ in range(N)]
    tau = rng.choice([Fraction(1, 4), Fraction(1, 2), Fraction(1)])
    return N, d, beta, P, U, rng.choice(["full", "causal"]), tokens, tau


@pytest.mark.parametrize("seed", range(12))
def test_layer_enclosures_contain_the_oracle(seed):
    N, d, beta, P, U, mask, tokens, tau = _case(seed)
    layers = 25
    traj = iterate_layers(Field(beta, P, U, mask), Tokens(tokens), tau, layers)
    assert traj.status is ValidatedStatus.SUCCESS, traj.message
    oracle = layer_solution(tokens, P, U, beta, mask, tau, layers)
    assert len(traj.enclosures) == len(oracle) == layers + 1
    for k, (enc, vals) in enumerate(zip(traj.enclosures, oracle)):
        assert _contained(enc, vals), (seed, k)
    assert 0 < traj.widths[-1] < 1e-20


@pytest.mark.parametrize("mask", ["full", "causal"])
def test_lohner_stays_tight_for_hundreds_of_layers(mask):
    rng = random.Random(5)
    N, d = 5, 3
    tokens = [unit_rational(rng, d, hemisphere=True) for _ in range(N)]
    half = [[Fraction(int(i == j), 2) for j in range(d)] for i in range(d)]
    eye = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    traj = iterate_layers(Field(Fraction(1), [half], None, mask), Tokens(tokens), Fraction(1, 2), 300)
    assert traj.status is ValidatedStatus.SUCCESS and traj.layers == 300
    assert max(traj.widths) < 1e-30
    oracle = layer_solution(tokens, [half], [eye], 1, mask, Fraction(1, 2), 300)
    assert _contained(traj.final, oracle[-1]) and _contained(traj.enclosures[150], oracle[150])
    if mask == "full":  # the plain ball iteration (no wrapping control) loses everything long before
        from verify._depth.late_entry import initial_balls, layer_balls
        with flint.ctx.workprec(128):
            X = initial_balls(tokens)
            for _ in range(100):
                X = layer_balls(X, [half], Fraction(1), Fraction(1, 2), False)
            assert not max_width(X) < 1e-3


def test_layer_window_and_first_causal_token():
    rng = random.Random(11)
    N, d = 4, 3
    tokens = [unit_rational(rng, d, hemisphere=True) for _ in range(N)]
    eye = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    traj = iterate_layers(Field(Fraction(1), [eye], None, "causal"), Tokens(tokens), Fraction(1), 60)
    with ctx.workprec(128):  # x_1 never moves under the causal mask (Theorem 4.2's first token)
        for enc in traj.enclosures:
            assert all(b.contains(arb(q.numerator) / q.denominator) for b, q in zip(enc[0], tokens[0]))
    window = layer_window(traj.enclosures, "cap_first", Fraction(1, 100))
    assert window.status is Status.HOLDS, window.reason
    assert window.T_low < window.T_high and window.T_high == window.first_le_step
    assert window.last_gt_step == int(window.T_low)


def test_layer_input_errors():
    from theorems.errors import InvalidInput
    eye = [[1, 0], [0, 1]]
    with pytest.raises(InvalidInput, match="tau"):
        iterate_layers(Field(1, [eye]), Tokens([[1, 0]]), 0, 3)
    with pytest.raises(InvalidInput, match="layers"):
        iterate_layers(Field(1, [eye]), Tokens([[1, 0]]), 1, -1)
    with pytest.raises(InvalidInput, match="prec"):
        LayerOptions(prec=10)
