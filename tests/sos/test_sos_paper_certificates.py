"""The paper's inequalities (docs/model.md §3) in Gram coordinates: exact certificates and their limits."""
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
import sympy

from theorems.errors import InvalidInput
from theorems.verdict import Status
from verify.certificates import (attention_weight_bounds, certify_first_token_alignment,
                                 certify_hemisphere_invariance, certify_token2_decrease, certify_token_iss,
                                 exp_bounds)


def _unit_vectors(rng, count, d=5):
    X = rng.normal(size=(count, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_token2_default_and_custom_bounds():
    result = certify_token2_decrease()
    assert result.status is Status.HOLDS and result.certificate.recheck().holds
    other = certify_token2_decrease(F(1, 3), 2)
    assert other.status is Status.HOLDS
    assert "1/3" in other.certificate.claim


@pytest.mark.parametrize("lo, hi", [(0, 1), (F(2), F(1)), (0.5, 1), ("x", 1)])
def test_token2_rejects_bad_bounds(lo, hi):
    with pytest.raises(InvalidInput):
        certify_token2_decrease(lo, hi)


def test_token_iss_half_is_certified_and_spec_form_is_not():
    half = certify_token_iss()
    assert half.status is Status.HOLDS and half.certificate.recheck().holds
    spec = certify_token_iss(kappa=1)
    assert spec.status is Status.UNKNOWN and spec.certificate is None


def test_token_iss_closed_form():
    """With r_j^2 = 2(1 - a_j) the claim is (a_i - g)^2/2 + (1 - g^2)/2 + r_j: exactly what the certificate finds."""
    a_i, a_j, g, r = sympy.symbols("a_i a_j g r_j")
    lhs = a_j - g * a_i - (sympy.Rational(1, 2) * (1 - a_i**2) - r - r**2 / 2)
    closed = (a_i - g) ** 2 / 2 + (1 - g**2) / 2 + r
    assert sympy.expand((lhs - closed).subs(a_j, 1 - r**2 / 2)) == 0


def test_paper_inequalities_hold_on_random_vectors_in_dimension_5():
    """Sampling sanity check of (a)-(c) and of the kappa = 1 form of docs/model.md §3 (true, but not SOS-certifiable)."""
    rng = np.random.default_rng(3)
    x1, xi, xj, z = (_unit_vectors(rng, 20000) for _ in range(4))
    a_i, a_j, g = (x1 * xi).sum(1), (x1 * xj).sum(1), (xi * xj).sum(1)
    r = np.linalg.norm(xj - x1, axis=1)
    for kappa in (0.5, 1.0):
        assert (a_j - g * a_i - (kappa * (1 - a_i**2) - r - r**2 / 2)).min() >= -1e-12
    m, b_j = (z * xi).sum(1), (z * xj).sum(1)
    mask = (b_j >= m) & (m >= 0)
    assert mask.sum() > 1000 and (b_j - g * m)[mask].min() >= -1e-12


def test_hemisphere_certified_and_false_variant_refuted():
    result = certify_hemisphere_invariance()
    assert result.status is Status.HOLDS
    assert any(len(t.multiplier) == 2 for t in result.certificate.sos_terms)  # a product term is needed
    from verify._sos import prove_nonnegative
    b_j, m, g = sympy.symbols("b_j m g")
    false = prove_nonnegative(b_j - g * m - sympy.Rational(1, 10), [b_j, m, g], [b_j - m, m, 1 - g, 1 + g],
                              degree=2, products=2)
    assert false.status is Status.FAILS


def test_first_token_default_and_other_spectra():
    result = certify_first_token_alignment()
    assert result.status is Status.HOLDS and result.certificate.recheck().holds
    assert "3/2" in result.certificate.label
    wider = certify_first_token_alignment([3, 1, 1, -5, 2])
    assert wider.status is Status.HOLDS
    smaller_gap = certify_first_token_alignment([1, F(-1, 2), -2], gap=F(1, 3))
    assert smaller_gap.status is Status.HOLDS


@pytest.mark.parametrize("eigs, gap", [([1, 1, 0], None), ([0, 1], None), ([1], None), ([1, 0], 2), ([1.0, 0], None)])
def test_first_token_rejects_violated_assumption(eigs, gap):
    with pytest.raises(InvalidInput):
        certify_first_token_alignment(eigs, gap)


@pytest.mark.parametrize("y", [F(0), F(-2), F(2), F(-5, 3), F(7, 2)])
def test_exp_bounds_enclose_exp(y):
    lo, hi = exp_bounds(y)
    with mpmath.workdps(60):
        true = mpmath.exp(mpmath.mpf(y.numerator) / y.denominator)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= true <= mpmath.mpf(hi.numerator) / hi.denominator
    assert 0 <= hi - lo <= F(1, 10**9) * max(1, hi)


def test_attention_weight_bounds():
    lo, hi = attention_weight_bounds(heads=2, beta=F(1, 8), p=4, n_keys=3)
    exact_lo, exact_hi = 2 * np.exp(-1.0) / 3, 2 * np.exp(1.0) / 3
    assert float(lo) <= exact_lo and abs(float(lo) - exact_lo) < 1e-9
    assert float(hi) >= exact_hi and abs(float(hi) - exact_hi) < 1e-9
    with pytest.raises(InvalidInput):
        attention_weight_bounds(0, 1, 1, 2)
