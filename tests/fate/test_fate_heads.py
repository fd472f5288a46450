"""Real-head fates: the exact reduction (verify/_fate/heads.py), the projective contraction certificate
(verify/_fate/contraction.py) against an independent multi-digit oracle, soundness and tampering, the map record."""
from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import flint
import numpy as np
import pytest

from tests.fate.fate_cases import oracle
from verify._fate import FateProblem
from verify._fate.contraction import certify_contraction
from verify._fate.head_map import HeadFate, HeadFateMap, certify_head
from verify._fate.heads import reduce_head


def _head(seed: int, D: int, dh: int, N: int):
    rng = np.random.default_rng(seed)
    V = rng.standard_normal((D, dh)).astype(np.float32).astype(np.float64)
    O = rng.standard_normal((dh, D)).astype(np.float32).astype(np.float64)
    X = rng.standard_normal((N, D)) + 1.5 * rng.standard_normal(D)  # a shared direction, as in real prompts
    return V, O, X


def _fmpq(M) -> flint.fmpq_mat:
    return flint.fmpq_mat([[flint.fmpq(Fraction(float(x)).numerator, Fraction(float(x)).denominator) for x in row] for row in M])


def test_reduction_is_exact_and_spans_the_tokens():
    checked = 0
    for seed in range(4):
        V, O, X = _head(seed, 11, 3, 4)
        R = reduce_head(V, O, X, check=True)  # B U_red = U B exactly, or InvalidInput
        assert R.m == 7 and R.N == 4
        assert [g for g in R.generators if g[0] == "token"] == [("token", i) for i in range(4)]
        # the reduced U has the nonzero spectrum of O V (d_head x d_head) and m - d_head zeros
        Uf = np.array([[float(R.U_red[i, j]) for j in range(R.m)] for i in range(R.m)])
        ev = np.sort_complex(np.linalg.eigvals(Uf)[np.abs(np.linalg.eigvals(Uf)) > 1e-9])
        np.testing.assert_allclose(ev, np.sort_complex(np.linalg.eigvals(O @ V)), rtol=1e-9, atol=1e-9)
        checked += 1
    assert checked == 4


def test_dependent_tokens_get_exact_coordinates():
    V, O, X = _head(7, 9, 2, 3)
    X = np.vstack([X, 2 * X[0], O[0]])  # token 3 = 2 x_0 exactly; token 4 spans the line of O's row 0
    R = reduce_head(V, O, X, check=True)
    assert R.m == 5 and R.N == 5
    assert ("token", 3) not in R.generators and ("O", 0) not in R.generators and ("token", 4) in R.generators
    col = [R.coords[r, 3] for r in range(R.m)]
    assert col[0] > 0 and all(c == 0 for c in col[1:])  # x_3 is a positive multiple of basis vector 0


def _limit(V, O, sign):
    U = O.T @ V.T
    ev, W = np.linalg.eig(U)
    v = W[:, np.argmax(np.abs(ev))].real
    return sign * v / np.linalg.norm(v)


@pytest.mark.parametrize("mask", ["full", "causal"])
def test_certified_consensus_agrees_with_the_oracle(mask):
    agreed = 0
    for seed in range(60):
        V, O, X = _head(seed, 4, 2, 3)
        fate, cert = certify_head(V, O, X)
        if cert is None:
            continue
        # x* = sign * v / |v| with <w, v> = 1; the float eigenvector's sign is fixed by the tokens' side
        U = O.T @ V.T
        ev, W = np.linalg.eig(U.T)
        w = W[:, np.argmax(np.abs(ev))].real
        side = np.sign(X @ w)
        assert abs(side.sum()) == len(X)  # the certificate claims one side
        xs = _limit(V, O, 1.0)
        xs = xs if xs @ w * side[0] > 0 else -xs
        q = lambda a: Fraction(float(a))  # noqa: E731
        problem = FateProblem(Fraction(1), mask, ((tuple(tuple(q(a) for a in r) for r in np.eye(4)),
                                                   tuple(tuple(q(a) for a in r) for r in U)),),
                              tuple(tuple(q(a) for a in t) for t in X), True, f"head-{seed}")
        end = oracle(problem, 60.0, digits=25)
        assert np.max(np.linalg.norm(end - xs, axis=1)) < 1e-3, seed
        agreed += 1
        if agreed == 3:
            break
    assert agreed == 3


def _cert_for(U, X):
    return certify_contraction(_fmpq(U), _fmpq(np.asarray(X, dtype=float).T))


def test_false_claims_are_not_certified():
    # same-sign counterexample (docs/model.md §2): (e1, -e1) is a stable non-consensus equilibrium
    cert, why, _ = _cert_for(np.diag([1, 1 / 16, 1 / 16]), [[1, 0, 0], [-1, 0, 0]])
    assert cert is None and "both sides" in why
    cert, why, _ = _cert_for(np.diag([1, -2, 0.5]), [[1, 0.5, 0], [1, 0, 0.5]])
    assert cert is None and "negative" in why
    cert, why, _ = _cert_for(np.array([[0, -1, 0], [1, 0, 0], [0, 0, 0.5]]), [[1, 0, 1], [0, 1, 1]])
    assert cert is None and "complex" in why
    cert, why, _ = _cert_for(np.eye(3), [[1, 0, 0], [0, 1, 0]])  # U = I: lambda not strictly dominant
    assert cert is None and "not dominant" in why


def test_tampered_certificates_are_rejected():
    U = np.array([[2, 0.5, 0], [0.25, -1, 0.5], [0, 0.5, 1]])
    cert, why, _ = _cert_for(U, [[1, 0.2, 0.1], [0.5, -0.5, 0.2], [0.9, 0.3, -0.4]])
    assert cert is not None and cert.recheck()[0], why
    lam = float(cert.mid[0])
    bad = [dataclasses.replace(cert, rho=Fraction(lam) + 1),
           dataclasses.replace(cert, sign=-cert.sign),
           dataclasses.replace(cert, S=tuple(tuple(-x for x in row) for row in cert.S)),
           dataclasses.replace(cert, mid=(cert.mid[0] + Fraction(1, 100),) + cert.mid[1:]),
           dataclasses.replace(cert, rho=Fraction(1, 100))]
    for c in bad:
        ok, reason = c.recheck()
        assert not ok and reason


def test_map_record_renders_serialises_and_draws():
    V, O, X = _head(3, 6, 2, 3)
    heads = []
    for k in range(2):
        for h in range(3):
            fate, _ = certify_head(V * (1 if h else -1), O, X, layer=k, head=h)
            heads.append(fate)
    heads.append(HeadFate(2, 0, "unknown", "the eigenvalue of U of largest modulus is complex (1+1j)", 5, {}, 0.0))
    hm = HeadFateMap("toy", "full", ("a", "b", "c"), tuple(heads), {"wall_time_s": 0.1})
    data = json.loads(json.dumps(hm.to_json()))
    assert data["total"] == 7 and data["certified"] == hm.certified and sum(data["counts"].values()) == 7
    assert data["counts"]["complex"] >= 1
    text = hm.render()
    assert f"certified {hm.certified} / 7" in text and "layer | heads" in text
    import matplotlib

    matplotlib.use("Agg")
    fig = hm.figure()
    assert fig.axes and fig.axes[0].get_xlabel() == "head"
