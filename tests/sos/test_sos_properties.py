"""Hypothesis properties: certified claims are true at every sampled point; strict SOS are certified."""
from fractions import Fraction as F

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from theorems.verdict import Status
from verify._sos import poly
from verify._sos.options import SOSOptions
from verify._sos.prove import prove_exact

small = st.fractions(min_value=-3, max_value=3, max_denominator=4)
monos = [(0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(small, min_size=len(monos), max_size=len(monos)), min_size=1, max_size=3),
       st.fractions(min_value=F(1, 100), max_value=1))
def test_strictly_positive_sums_of_squares_are_certified(rows, shift):
    """sum_k f_k^2 + shift * (1 + x^4 + y^4) is strictly positive with interior Gram points: always certified."""
    p = {(0, 0): shift, (4, 0): shift, (0, 4): shift}
    for coefs in rows:
        form = {m: c for m, c in zip(monos, coefs) if c}
        poly.add_into(p, poly.mul(form, form))
    result = prove_exact(p, ("x", "y"), options=SOSOptions(refute=False))
    assert result.status is Status.HOLDS, result.verdict.reason
    assert result.certificate.recheck().holds


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(poly.monomials_up_to(2, 0, 4)), small, min_size=1, max_size=8),
       st.lists(st.tuples(small, small), min_size=5, max_size=5))
def test_anything_certified_is_nonnegative_at_sampled_points(coefs, points):
    p = {m: c for m, c in coefs.items() if c}
    result = prove_exact(p, ("x", "y"), options=SOSOptions(refute=False))
    if result.status is Status.HOLDS:
        assert result.certificate.recheck().holds
        assert all(poly.evaluate(p, pt) >= 0 for pt in points)
    else:
        assert result.certificate is None
