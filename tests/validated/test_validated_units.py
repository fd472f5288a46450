"""Unit tests of ``verify.validated``: input records, statuses, invariants, stacks, metrics, windows."""
from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from flint import arb, ctx

from theorems.errors import InvalidInput, UnknownName
from theorems.verdict import Status
from validated_oracle import ode_solution
from verify.validated import (Field, Tokens, ValidatedOptions, ValidatedStatus, depth_window, integrate_validated)
from verify.validated.balls import ball
from verify.validated.metrics import cap_first, diameter, e_first, e_pair

EYE3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
TOKENS = [[Fraction(3, 5), Fraction(4, 5), 0], [0, Fraction(3, 5), Fraction(4, 5)], [Fraction(4, 5), 0, Fraction(3, 5)]]
U1 = [[Fraction(1, 2), 1, 0], [-1, 0, Fraction(1, 4)], [0, Fraction(-1, 2), 1]]


def _contains(enclosure, values, err=Fraction(1, 10 ** 40)) -> bool:
    with ctx.workprec(192):
        e = ball(err)
        return all((b + arb(0, e.upper())).contains(ball(v))
                   for row, vals in zip(enclosure, values) for b, v in zip(row, vals))


def test_input_errors_name_the_argument():
    with pytest.raises(InvalidInput, match="beta"):
        Field(0, [EYE3])
    with pytest.raises(InvalidInput, match=r"P\[0\]\[1\]"):
        Field(1, [[[1, 0, 0], [0, 1], [0, 0, 1]]])
    with pytest.raises(InvalidInput, match="mask"):
        Field(1, [EYE3], None, "sliding")
    with pytest.raises(InvalidInput, match="unit vector") as info:
        Tokens([[1, 1, 0]])
    assert "normalize=True" in str(info.value)
    with pytest.raises(InvalidInput, match="t_end"):
        integrate_validated(Field(1, [EYE3]), Tokens(TOKENS))
    with pytest.raises(InvalidInput, match="d = 3"):
        integrate_validated([(1, Field(1, [[[1, 0], [0, 1]]]))], Tokens(TOKENS))
    with pytest.raises(InvalidInput, match="order"):
        ValidatedOptions(order=1)
    with pytest.raises(UnknownName, match="diameter"):
        depth_window(integrate_validated(Field(1, [EYE3]), Tokens(TOKENS), Fraction(1, 64)), "diametre", 1)
    assert Field(1, [EYE3]).U == Field(1, [EYE3], [EYE3]).U  # U=None means the identity
    assert Tokens([["0.6", "0.8"]]).centers[0] == (Fraction(3, 5), Fraction(4, 5))  # decimals are exact


def test_precision_is_scoped_and_records_are_frozen():
    before = ctx.prec
    traj = integrate_validated(Field(1, [EYE3]), Tokens(TOKENS), Fraction(1, 16), options=ValidatedOptions(prec=96))
    assert ctx.prec == before
    with pytest.raises(dataclasses.FrozenInstanceError):
        traj.status = ValidatedStatus.MAX_STEPS
    assert traj.to_json()["options"]["prec"] == 96 and traj.to_json()["status"] == "success"
    with pytest.raises(InvalidInput, match="t"):
        traj.enclosure_at(Fraction(1))
    with pytest.raises(InvalidInput, match="step"):
        traj.steps[0].at(traj.steps[0].t1 + 1)


def test_causal_first_token_is_fixed_and_the_sphere_is_kept():
    """With U = I the first causal token does not move (Theorem 4.2); every token stays unit."""
    traj = integrate_validated(Field(Fraction(3, 2), [U1], None, "causal"), Tokens(TOKENS), Fraction(1, 2))
    assert traj.status is ValidatedStatus.SUCCESS and len(traj.steps) >= 3
    with ctx.workprec(128):
        for step in traj.steps:
            assert all(b.contains(ball(q)) for b, q in zip(step.tube[0], TOKENS[0]))
            for row in step.end:
                assert sum((x * x for x in row), arb(0)).contains(arb(1))


def test_tube_contains_the_oracle_inside_the_step():
    field = Field(1, [EYE3], [U1], "full")
    traj = integrate_validated(field, Tokens(TOKENS), Fraction(1, 8))
    step = traj.steps[0]
    times = [step.t0 + (step.t1 - step.t0) * Fraction(k, 5) for k in range(1, 6)]
    for t, values in zip(times, ode_solution(TOKENS, [EYE3], [U1], 1, "full", times)):
        assert _contains(step.tube, values) and _contains(step.at(t), values)


def test_layer_stack_restarts_at_the_boundary():
    first, second = Field(1, [EYE3], [U1], "full"), Field(2, [EYE3], None, "causal")
    stack = [(Fraction(1, 8), first), (Fraction(1, 16), second)]
    traj = integrate_validated(stack, Tokens(TOKENS))
    assert traj.status is ValidatedStatus.SUCCESS and Fraction(1, 8) in traj.times and traj.reached == Fraction(3, 16)
    assert {s.segment for s in traj.steps} == {0, 1}
    mid = ode_solution(TOKENS, [EYE3], [U1], 1, "full", [Fraction(1, 8)])[0]
    end = ode_solution(mid, [EYE3], [EYE3], 2, "causal", [Fraction(1, 16)])[0]
    assert _contains(traj.enclosure_at(Fraction(1, 8)), mid, Fraction(1, 10 ** 35))
    assert _contains(traj.final, end, Fraction(1, 10 ** 35))
    cut = integrate_validated(stack, Tokens(TOKENS), Fraction(1, 10))
    assert cut.reached == Fraction(1, 10) and {s.segment for s in cut.steps} == {0}


def test_boxes_around_the_tokens_contain_every_start():
    r = Fraction(1, 1000)
    traj = integrate_validated(Field(1, [EYE3], [U1]), Tokens(TOKENS, radius=r), Fraction(1, 8))
    assert traj.status is ValidatedStatus.SUCCESS
    for shift in (r, -r / 2):
        start = [[v + shift for v in row] for row in TOKENS]  # off the sphere, inside the boxes
        values = ode_solution(start, [EYE3], [U1], 1, "full", [Fraction(1, 8)], normalize=False)[0]
        assert _contains(traj.final, values, Fraction(1, 10 ** 35))
    assert 1e-4 < traj.final_width < 1e-2


def test_normalized_tokens_and_width_limit_status():
    traj = integrate_validated(Field(1, [EYE3]), Tokens([[1, 1, 0], [0, 1, 2]], normalize=True), Fraction(1, 8))
    assert traj.status is ValidatedStatus.SUCCESS
    stopped = integrate_validated(Field(1, [EYE3]), Tokens(TOKENS), Fraction(2),
                                  options=ValidatedOptions(max_width=1e-30))
    assert stopped.status is ValidatedStatus.WIDTH_LIMIT and "max_width" in stopped.message
    assert 0 < stopped.reached < 2 and stopped.steps  # the steps done so far are kept


def test_metrics_on_exact_configurations():
    with ctx.workprec(128):
        ortho = [[arb(1), arb(0)], [arb(0), arb(1)]]
        assert diameter(ortho).contains(arb(1)) and cap_first(ortho).contains(arb(1))
        assert e_pair(ortho).contains(arb(0.5)) and e_first(ortho).contains(arb(0.5))
        same = [[ball(Fraction(3, 5)), ball(Fraction(4, 5))]] * 3
        assert all(m(same).contains(arb(0)) and m(same).rad() < 1e-30 for m in (diameter, cap_first, e_pair, e_first))
        off = [[arb(2), arb(0)], [arb(0), arb(3)]]  # off the sphere: the cosine, not the inner product
        assert diameter(off).contains(arb(1))


def test_windows_never_certify_what_the_enclosure_does_not_show():
    traj = integrate_validated(Field(1, [EYE3]), Tokens(TOKENS), Fraction(1, 4))
    never = depth_window(traj, "diameter", Fraction(1, 10 ** 6))  # consensus is far away at t = 1/4
    assert never.status is Status.UNKNOWN and never.T_high is None and never.T_low is not None
    already = depth_window(traj, "diameter", 2)  # the metric is <= 2 throughout: no lower end
    assert already.status is Status.UNKNOWN and already.T_low is None and already.T_high == 0


def test_permuting_the_tokens_permutes_the_enclosures():
    """Full attention is permutation-equivariant: both runs contain the same true tokens, so the
    permuted enclosures must overlap coordinate by coordinate (and be about as wide)."""
    field = Field(Fraction(3, 2), [U1], [EYE3], "full")
    order = [2, 0, 1]
    a = integrate_validated(field, Tokens(TOKENS), Fraction(1, 4))
    b = integrate_validated(field, Tokens([TOKENS[i] for i in order]), Fraction(1, 4))
    for t in (Fraction(1, 8), Fraction(1, 4)):
        A, Bm = a.enclosure_at(t), b.enclosure_at(t)
        for k, i in enumerate(order):
            assert all(x.overlaps(y) for x, y in zip(A[i], Bm[k]))
    assert 0.1 < a.final_width / b.final_width < 10


def test_enclosures_respect_the_hemisphere_invariance():
    """Theorem 3.2's invariance (U = I, full, any P): ``min_i <z, x_i>`` never decreases.  With
    ``z = (1, 1, 1)`` every token starts at ``<z, x_i> = 7/5``, so every true ``<z, x_i(t)> >= 7/5``:
    no enclosure may lie below (a consistency check of soundness), and the enclosures prove the
    tokens stay in the open hemisphere of ``z``."""
    traj = integrate_validated(Field(2, [U1], None, "full"), Tokens(TOKENS), Fraction(1, 2))
    assert traj.status is ValidatedStatus.SUCCESS
    with ctx.workprec(128):
        floor = ball(Fraction(7, 5))
        for step in traj.steps:
            for enc in (step.tube, step.end):
                for row in enc:
                    value = sum(row, arb(0))
                    assert not value < floor and value > 0
