"""The re-check's congruence witnesses (verify._sos.psd_congruence) against the reference LDL^T.

Differential: on random definite, indefinite, singular and nearly singular rational matrices, every
decision of :func:`decide_psd` equals :func:`verify._sos.exact_psd.check_psd`'s, and the fast
witnesses (the singular ones by the exact-kernel witness, verify._sos.psd_kernel) actually decide the
well-conditioned cases (so a broken witness cannot hide behind the
reference fallback).  Adversarial: matrices with one tiny negative eigenvalue that a float
Cholesky factorisation accepts are never declared PSD.
"""
from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import pytest

from verify._sos.exact_psd import check_psd
from verify._sos.psd_congruence import CONGRUENCE_FROM, congruence_definite, decide_psd, negative_direction


def _rational(G: np.ndarray, D: int = 2 ** 26) -> list[list[F]]:
    n = G.shape[0]
    return [[F(round(float(G[min(i, j), max(i, j)]) * D), D) for j in range(n)] for i in range(n)]


def _random(kind: str, n: int, seed: int) -> list[list[F]]:
    rng = np.random.default_rng(seed)
    if kind == "definite":
        A = rng.standard_normal((n, n))
        return _rational(A @ A.T / n + 0.05 * np.eye(n))
    if kind == "indefinite":
        A = rng.standard_normal((n, n))
        return _rational(A + A.T)
    if kind == "singular":  # exactly PSD of rank n - 3: an integer B B^T
        B = rng.integers(-3, 4, size=(n, n - 3))
        return [[F(int(v)) for v in row] for row in B @ B.T]
    raise ValueError(kind)


@pytest.mark.parametrize("kind, method", [("definite", "congruence"), ("indefinite", "negative vector"),
                                          ("singular", "kernel congruence")])
@pytest.mark.parametrize("n", [CONGRUENCE_FROM, 45])
def test_decisions_equal_the_reference(kind, method, n):
    for seed in range(3):
        M = _random(kind, n, seed)
        fast, ref = decide_psd(M), check_psd(M)
        assert fast.ok == ref.ok, (kind, seed, fast.reason, ref.reason)
        assert fast.method == method, (kind, seed, fast.method)
        assert fast.ok == (kind != "indefinite")


def test_small_blocks_use_only_the_reference():
    M = _random("definite", CONGRUENCE_FROM - 1, 0)
    assert decide_psd(M).method == "LDL^T" and decide_psd(M).reason == check_psd(M).reason


def _nearly_psd(seed: int, n: int = 40) -> list[list[F]]:
    """``Q = B B^T - eps v v^T`` with ``v^T Q v = -2^-60 v^T B B^T v`` exactly (``v`` a rounded
    eigenvector of the smallest eigenvalue): not PSD, by about ``1e-14`` in floating point."""
    rng = random.Random(seed)
    B = [[F(rng.randint(-4, 4)) for _ in range(n)] for _ in range(n)]
    BBt = [[sum(B[i][k] * B[j][k] for k in range(n)) for j in range(n)] for i in range(n)]
    vectors = np.linalg.eigh(np.array([[float(x) for x in row] for row in BBt]))[1]
    v = [F(round(x * 2 ** 50)) for x in vectors[:, 0]]
    vQv = sum(v[i] * BBt[i][j] * v[j] for i in range(n) for j in range(n))
    eps = (vQv + vQv / 2 ** 60) / sum(x * x for x in v) ** 2
    Q = [[BBt[i][j] - eps * v[i] * v[j] for j in range(n)] for i in range(n)]
    assert sum(v[i] * Q[i][j] * v[j] for i in range(n) for j in range(n)) < 0  # truly not PSD
    return Q


def test_tiny_negative_eigenvalue_is_never_definite():
    """A float Cholesky factorisation accepts some of these; the exact product never does."""
    float_accepted = 0
    for seed in range(6):
        Q = _nearly_psd(seed)
        try:
            np.linalg.cholesky(np.array([[float(x) for x in row] for row in Q]))
            float_accepted += 1
        except np.linalg.LinAlgError:
            pass
        assert not check_psd(Q).ok
        assert congruence_definite(Q) is None
        assert not decide_psd(Q).ok
    assert float_accepted >= 1  # the exact diagonal-dominance test, not the float factorisation, refused


def test_negative_direction_refuses_a_psd_matrix():
    M = _random("definite", 36, 7)
    assert negative_direction(M) is None
    witness = congruence_definite(M)
    assert witness is not None and witness.ok and "diagonally dominant" in witness.reason


def test_asymmetric_matrix_is_refused():
    M = _random("definite", 34, 1)
    M[3][5] += F(1, 10 ** 9)
    fast = decide_psd(M)
    assert not fast.ok and fast.reason.startswith("not symmetric") and not check_psd(M).ok
    assert congruence_definite(M) is None and negative_direction(M) is None
