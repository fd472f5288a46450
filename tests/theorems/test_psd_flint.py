"""The search-side PSD test (python-flint) against the independent stdlib LDL^T re-checker."""
from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from theorems.errors import InvalidInput
from theorems.psd_flint import is_positive_definite, psd_decision
from verify._sos.exact_psd import check_psd


def _random_symmetric(seed: int) -> list[list[F]]:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 9))
    rank = int(rng.integers(0, size + 1))
    B = rng.integers(-4, 5, size=(size, rank))
    M = [[F(int(v)) for v in row] for row in B @ B.T]
    if seed % 3 == 0:
        shift = F(int(rng.integers(1, 4)), int(rng.integers(1, 50)))
        M = [[v - (shift if i == j else 0) for j, v in enumerate(row)] for i, row in enumerate(M)]
    if seed % 5 == 0:  # non-integer entries with a common perturbation
        M = [[v / 7 + F(1, 10 ** 12) for v in row] for row in M]
    return M


@pytest.mark.parametrize("seed", range(120))
def test_flint_agrees_with_the_stdlib_ldlt(seed):
    M = _random_symmetric(seed)
    flint_side, stdlib_side = psd_decision(M), check_psd(M)
    assert flint_side.psd == stdlib_side.ok
    if stdlib_side.ok:
        assert flint_side.rank == stdlib_side.rank
        assert flint_side.definite == (stdlib_side.rank == len(M))


def test_tiny_negative_eigenvalue_and_singular_and_asymmetric():
    eps = F(1, 10 ** 30)
    assert psd_decision([[F(1), F(1)], [F(1), F(1)]]).psd
    assert not psd_decision([[F(1), F(1)], [F(1), F(1)]]).definite
    assert not psd_decision([[F(1), F(1) + eps], [F(1) + eps, F(1)]]).psd
    assert not psd_decision([[F(0), F(1)], [F(1), F(5)]]).psd
    assert "not symmetric" in psd_decision([[F(1), F(0)], [F(1, 2), F(1)]]).reason
    assert is_positive_definite([[F(2), F(-1)], [F(-1), F(2)]])
    assert psd_decision([]).psd


def test_non_square_is_bad_input():
    with pytest.raises(InvalidInput):
        psd_decision([[F(1), F(2)]])
