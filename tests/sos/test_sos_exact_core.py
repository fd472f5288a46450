"""Unit and differential tests of the exact core: polynomials, PSD decision, JSON round trip."""
from fractions import Fraction as F
import random

import numpy as np
import pytest

from verify._sos import poly
from verify._sos.certificate import Certificate, SOSTerm, freeze
from verify._sos.exact_psd import check_psd


def test_poly_arithmetic_matches_expansion():
    x = {(1, 0): F(1)}
    y = {(0, 1): F(1)}
    s = poly.add(x, y)
    square = poly.mul(s, s)
    assert square == {(2, 0): F(1), (1, 1): F(2), (0, 2): F(1)}
    assert poly.sub(square, square) == {}
    assert poly.evaluate(square, (F(1, 2), F(-1, 3))) == F(1, 36)
    assert poly.derivative(square, 0) == {(1, 0): F(2), (0, 1): F(2)}
    assert poly.degree({}) == -1 and poly.degree(square) == 2
    assert poly.to_text(poly.sub(square, {(0, 0): F(3, 2)}), ("x", "y")) == "x^2 + 2*x*y + y^2 - 3/2"


def test_monomials_up_to_counts():
    from math import comb
    for n in (1, 2, 3):
        for d in (0, 1, 2, 3):
            assert len(poly.monomials_up_to(n, 0, d)) == comb(n + d, d)


@pytest.mark.parametrize("seed", range(40))
def test_exact_psd_agrees_with_eigenvalues(seed):
    """Differential test against numpy on random rational symmetric matrices (clearly PSD/indefinite)."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 6))
    rank = int(rng.integers(0, size + 1))
    B = rng.integers(-4, 5, size=(size, rank))
    M = B @ B.T
    if seed % 3 == 0:
        M = M - np.eye(size, dtype=int) * int(rng.integers(1, 3))  # usually indefinite now
    exact = [[F(int(v)) for v in row] for row in M]
    eig = np.linalg.eigvalsh(M.astype(float)) if size else np.zeros(0)
    result = check_psd(exact)
    if eig.min() > 1e-9:
        assert result.ok and result.rank == size
    elif eig.min() < -1e-9:
        assert not result.ok
    else:
        assert result.ok
        assert result.rank == int(np.sum(eig > 1e-9))


def test_exact_psd_detects_tiny_negative_eigenvalue():
    eps = F(1, 10 ** 30)
    singular = [[F(1), F(1)], [F(1), F(1)]]
    assert check_psd(singular).ok
    tilted = [[F(1), F(1) + eps], [F(1) + eps, F(1)]]
    assert not check_psd(tilted).ok  # det = -2 eps - eps^2 < 0, invisible in floating point
    assert np.linalg.eigvalsh(np.array([[1.0, 1.0 + 1e-30], [1.0 + 1e-30, 1.0]])).min() >= -1e-15
    asym = [[F(1), F(0)], [F(1, 2), F(1)]]
    assert "not symmetric" in check_psd(asym).reason


def test_zero_pivot_with_nonzero_column_is_indefinite():
    m = [[F(0), F(1)], [F(1), F(5)]]
    r = check_psd(m)
    assert not r.ok and "zero pivot" in r.reason


def _simple_certificate():
    # x^2 - 2xy + 2y^2 = (x - y)^2 + y^2 with basis (x, y)
    gram = ((F(1), F(-1)), (F(-1), F(2)))
    p = {(2, 0): F(1), (1, 1): F(-2), (0, 2): F(2)}
    return Certificate(("x", "y"), freeze(p), (), (), (SOSTerm((), ((1, 0), (0, 1)), gram),), ())


def test_certificate_recheck_and_json_round_trip():
    cert = _simple_certificate()
    assert cert.recheck().holds
    data = cert.to_json()
    assert data["sos_terms"][0]["gram"] == [["1", "-1"], ["-1", "2"]]
    again = Certificate.from_json(data)
    assert again == cert and again.recheck().holds


def test_indefinite_gram_with_true_identity_is_rejected():
    """The identity alone proves nothing: x^2 - y^2 = m^T diag(1, -1) m is not a certificate."""
    p = {(2, 0): F(1), (0, 2): F(-1)}
    cert = Certificate(("x", "y"), freeze(p), (), (),
                       (SOSTerm((), ((1, 0), (0, 1)), ((F(1), F(0)), (F(0), F(-1)))),), ())
    verdict = cert.recheck()
    assert verdict.status.value == "fails" and "not positive semidefinite" in verdict.reason


@pytest.mark.parametrize("bad, message", [
    ({"format": "other"}, "format"),
    ({"version": 2}, "version"),
    ({"variables": "x"}, "variables"),
    ({"polynomial": [[[2], "1"]]}, "polynomial"),
    ({"polynomial": [[[2, 0], 0.5]]}, "rational"),
    ({"polynomial": [[[2, 0], "1/0"]]}, "zero denominator"),
])
def test_from_json_rejects_malformed(bad, message):
    data = _simple_certificate().to_json() | bad
    with pytest.raises(ValueError, match=message):
        Certificate.from_json(data)


def test_random_rational_identities_recheck():
    """Property: a random PSD Gram matrix B B^T and the polynomial it generates always re-check."""
    rng = random.Random(7)
    checked = 0
    for _ in range(25):
        basis = tuple(poly.monomials_up_to(2, 0, 2))
        B = [[F(rng.randint(-3, 3), rng.randint(1, 4)) for _ in range(3)] for _ in basis]
        gram = tuple(tuple(sum(B[i][k] * B[j][k] for k in range(3)) for j in range(len(basis))) for i in range(len(basis)))
        p = poly.gram_poly({(0, 0): F(1)}, basis, gram)
        cert = Certificate(("x", "y"), freeze(p), (), (), (SOSTerm((), basis, gram),), ())
        assert cert.recheck().holds
        checked += 1
    assert checked == 25
