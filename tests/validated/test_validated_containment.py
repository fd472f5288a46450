"""Issue 22 (a): the validated enclosure of eq. 5 contains an independent high-precision solution.

200 random instances (``validated_cases.case``: N <= 6, d <= 4, beta <= 2, one or two heads, random
rational P and U, full and causal masks, horizons up to 3/32) are integrated by
:func:`verify.validated.integrate_validated`; at two sample times (inside the first step and at
the end) every coordinate's ball must contain the oracle's value (``validated_oracle``: fixed
point on Python integers with about 60 digits and mpmath's ``exp``, truncation below ``2^-130``),
up to the oracle's own error ``ORACLE_ERR``.  The oracle values are stored in
``golden/oracle_values.json`` (regenerate with ``make_validated_golden.py``); a few instances are
recomputed live so that the file cannot drift from the oracle.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from flint import arb, ctx

from validated_cases import CASES, case, fingerprint
from validated_oracle import ode_solution
from verify.validated import Field, Tokens, ValidatedOptions, ValidatedStatus, integrate_validated

GOLDEN = Path(__file__).resolve().parent / "golden" / "oracle_values.json"
ORACLE_ERR = Fraction(1, 10 ** 36)
"""Bound on the oracle's error plus the rounding of the stored 40-digit decimals."""
OPTIONS = ValidatedOptions(order=12, tol=1e-12, jacobian_order=2)
MAX_WIDTH = 1e-8
"""Tightness side of the check: a sound but useless enclosure would pass containment alone."""


def _run(c):
    return integrate_validated(Field(c["beta"], c["P"], c["U"], c["mask"]), Tokens(c["tokens"]), c["t_end"],
                               options=OPTIONS)


def _contains(enclosure, values) -> list[str]:
    """Coordinates whose ball, widened by the oracle error, misses the oracle value."""
    bad = []
    with ctx.workprec(192):
        err = arb(ORACLE_ERR.numerator) / ORACLE_ERR.denominator
        for i, (row, vals) in enumerate(zip(enclosure, values)):
            for c, (ball, v) in enumerate(zip(row, vals)):
                value = arb(v) if isinstance(v, str) else arb(v.numerator) / v.denominator
                if not (ball + arb(0, err.upper())).contains(value):
                    bad.append(f"x[{i}][{c}]: {ball} vs {value}")
    return bad


@pytest.fixture(scope="module")
def golden():
    data = json.loads(GOLDEN.read_text())
    assert len(data["cases"]) == CASES
    return data["cases"]


def test_enclosures_contain_the_oracle_on_200_instances(golden):
    checked = 0
    masks = set()
    for entry in golden:
        c = case(entry["index"])
        assert entry["fingerprint"] == fingerprint(c), "validated_cases changed: rerun make_validated_golden.py"
        traj = _run(c)
        assert traj.status is ValidatedStatus.SUCCESS, (entry["index"], traj.message)
        assert traj.reached == c["t_end"]
        for t, values in zip(c["times"], entry["values"]):
            enclosure = traj.enclosure_at(t)
            assert not _contains(enclosure, values), (entry["index"], t, _contains(enclosure, values)[:3])
            width = max(float(2 * x.rad()) for row in enclosure for x in row)
            assert 0 < width < MAX_WIDTH or t == 0, (entry["index"], width)
            checked += 1
        masks.add(c["mask"])
    assert checked == 2 * CASES and masks == {"full", "causal"}


@pytest.mark.parametrize("index", [0, 57, 123, 199])
def test_golden_values_match_the_live_oracle(golden, index):
    c = case(index)
    live = ode_solution(c["tokens"], c["P"], c["U"], c["beta"], c["mask"], c["times"])
    with ctx.workprec(192):
        for stored, fresh in zip(golden[index]["values"], live):
            for srow, frow in zip(stored, fresh):
                for s, f in zip(srow, frow):
                    assert abs(arb(s) - arb(f.numerator) / f.denominator) < arb(1) / 10 ** 38


@pytest.mark.parametrize("index", [3, 88])
def test_oracle_is_self_consistent(index):
    """The oracle with steps capped at 1/40 agrees with its default run to 1e-38 (evidence that
    its truncation criterion holds on these instances)."""
    c = case(index)
    a = ode_solution(c["tokens"], c["P"], c["U"], c["beta"], c["mask"], c["times"])
    b = ode_solution(c["tokens"], c["P"], c["U"], c["beta"], c["mask"], c["times"], hmax=1 / 40)
    worst = max(abs(x - y) for A, B in zip(a, b) for ra, rb in zip(A, B) for x, y in zip(ra, rb))
    assert worst < Fraction(1, 10 ** 38)


def test_a_shifted_oracle_value_is_rejected(golden):
    """The containment check bites: moving one value by ten widths makes it fail."""
    entry = golden[5]
    c = case(5)
    traj = _run(c)
    enclosure = traj.enclosure_at(c["times"][1])
    values = [list(row) for row in entry["values"][1]]
    ball = enclosure[0][0]
    with ctx.workprec(192):
        shifted = arb(values[0][0]) + 10 * ball.rad() + arb(ORACLE_ERR.numerator) / ORACLE_ERR.denominator
        values[0][0] = shifted.mid().str(60, radius=False)
    assert _contains(enclosure, values)
