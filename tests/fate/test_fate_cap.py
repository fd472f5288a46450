"""The general-U routes of verify fate: the cap (block max-norm contraction around a consensus point,
verify/_fate/cap.py) and the one-head projective route (verify/_fate/projective.py).

Agreement with the independent 30-digit oracle, JSON round trips re-checked, tampered certificates
rejected, and soundness: caps and projective certificates around consensus points that are unstable
(an exact equilibrium ``e_k`` of ``U = diag(lambda)`` with ``lambda_k`` not the largest: its mean mode
grows at ``max(lambda) - lambda_k > 0``, docs/fate.md) are never proved (25 + 10 false claims).
"""
from __future__ import annotations

import dataclasses
import json
import random
from fractions import Fraction

import numpy as np
import pytest
from fate_cases import instance_json, limit_points, oracle, random_problem

from verify._fate import Fate, FateCertificate, FateProblem, certify_fate
from verify._fate.cap import Cap, check_cap
from verify._fate.cap_hints import propose_cap
from verify._fate.projective import Projective, check_projective


@pytest.fixture(scope="module")
def cap_report():
    r = certify_fate(random_problem(308, nonsymmetric=True, max_N=3, max_d=3), t_max=30)  # 2 heads, causal, U not symmetric
    assert r.fate is Fate.CONSENSUS and r.route == "contraction", r.reason
    return r


@pytest.fixture(scope="module")
def projective_report():
    r = certify_fate(random_problem(59, nonsymmetric=True), t_max=30)  # 1 head, causal, U not symmetric
    assert r.fate is Fate.CONSENSUS and r.route == "projective", r.reason
    return r


@pytest.mark.parametrize("which", ["cap_report", "projective_report"])
def test_route_agrees_with_oracle_and_round_trips(which, request):
    report = request.getfixturevalue(which)
    cert = report.certificate
    X = oracle(cert.problem, max(10 * float(cert.entry), 60.0), 30)
    gap = float(np.max(np.linalg.norm(X - limit_points(report), axis=1)))
    assert 0 <= gap < 1e-4
    again = FateCertificate.from_json(json.loads(json.dumps(cert.to_json())))
    assert again == cert and again.recheck().holds


def _cap_tamperings(c: Cap):
    yield "eps", dataclasses.replace(c, eps=c.eps * 4)
    yield "t", dataclasses.replace(c, t=tuple(v - 1 for v in c.t))
    yield "mid", dataclasses.replace(c, mid=tuple(v + Fraction(1, 10) for v in c.mid))
    yield "Phi", dataclasses.replace(c, Phi=tuple(tuple(v * 3 for v in row) for row in c.Phi))
    yield "R", dataclasses.replace(c, R=c.R * 8)


def test_tampered_cap_certificates_are_rejected(cap_report):
    cert = cap_report.certificate
    for what, cap in _cap_tamperings(cert.cap):
        assert not dataclasses.replace(cert, cap=cap).recheck().holds, what
    assert not dataclasses.replace(cert, entry=Fraction(0)).recheck().holds
    assert not dataclasses.replace(cert, fate="non-consensus").recheck().holds
    assert not dataclasses.replace(cert, route="basin").recheck().holds
    flipped = dataclasses.replace(cert.cap, chart=(cert.cap.chart[0], -cert.cap.chart[1]),
                                  mid=tuple(-v for v in cert.cap.mid))  # the valid cap at -x*, never entered
    assert check_cap(cert.problem, flipped).ok
    assert "does not enter" in dataclasses.replace(cert, cap=flipped).recheck().reason


def test_tampered_projective_certificates_are_rejected(projective_report):
    cert = projective_report.certificate
    pr = cert.projective
    bad = {"sign": dataclasses.replace(pr, sign=-pr.sign),
           "rho": dataclasses.replace(pr, rho=pr.rho / 100),
           "rho above lambda": dataclasses.replace(pr, rho=Fraction(10)),
           "S": dataclasses.replace(pr, S=tuple(tuple(-v for v in row) for row in pr.S)),
           "mid": dataclasses.replace(pr, mid=tuple(v + Fraction(1, 10) for v in pr.mid))}
    for what, forged in bad.items():
        assert not dataclasses.replace(cert, projective=forged).recheck().holds, what
    if cert.entry > 0:
        assert not dataclasses.replace(cert, entry=Fraction(0)).recheck().holds
    assert not dataclasses.replace(cert, route="contraction").recheck().holds


def _saddle(seed: int, heads: int) -> tuple[FateProblem, int]:
    rng = random.Random(500 + seed)
    d, N = rng.randint(2, 4), rng.randint(2, 5)
    lam = rng.sample([Fraction(k, 4) for k in range(-8, 9)], d)
    k = rng.choice([i for i in range(d) if lam[i] != max(lam)])
    parts = [tuple(tuple(lam[i] / heads if i == j else Fraction(0) for j in range(d)) for i in range(d))] * heads
    P = tuple(tuple(Fraction(rng.randint(-8, 8), 8) for _ in range(d)) for _ in range(d))
    e = tuple(Fraction(int(i == k)) for i in range(d))
    mask = rng.choice(["full", "causal"])
    return FateProblem(Fraction(1), mask, tuple((P, U) for U in parts), (e,) * N, False, f"saddle-{seed}"), k


@pytest.mark.parametrize("seed", range(25))
def test_unstable_consensus_cap_is_never_proved(seed):
    p, k = _saddle(seed, 1 + seed % 2)
    U = sum(np.array(U, dtype=float) for _, U in p.heads)
    assert np.max(np.diag(U)) - U[k, k] > 0  # the unstable mean mode, independent of the checker
    m, N = p.d - 1, p.N
    cap, _ = propose_cap(p, [0.0] * m, (k, 1))
    assert cap is None
    n = N * m
    eye = tuple(tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n))
    forged = Cap((k, 1), (Fraction(0),) * m, (Fraction(1, 2**30),) * m, eye, Fraction(1, 1000), Fraction(1, 100),
                 (Fraction(-1, 10),) * N, tuple(tuple(Fraction(0) if b == c else Fraction(1, 100 * N) for c in range(N))
                                               for b in range(N)), 128)
    assert not check_cap(p, forged).ok


@pytest.mark.parametrize("seed", range(10))
def test_projective_certificate_for_a_non_dominant_eigenvalue_is_rejected(seed):
    p, k = _saddle(seed, 1)
    d = p.d
    lam = p.heads[0][1][k][k]
    keep = [a for a in range(d) if a != k]
    mid = (lam,) + (Fraction(0),) * (d - 1)  # the exact eigenpair (lambda_k, e_k), left and right
    S = tuple(tuple(Fraction(int(i == j)) for j in range(d - 1)) for i in range(d - 1))
    rho = abs(lam) / 2 if lam else Fraction(1, 10)
    forged = Projective(k, mid, Fraction(1, 2**30), rho, S, 1, k, mid, Fraction(1, 2**30))
    assert len(keep) == d - 1 and not check_projective(p, forged).ok


def test_cli_instance_with_normalize_tokens_takes_the_projective_route():
    import verify

    report = verify.fate(instance=instance_json(random_problem(59, nonsymmetric=True)))
    payload = report.to_json()
    import jsonschema

    from verify.report import schema_path

    jsonschema.validate(payload, json.loads(schema_path("fate").read_text()))
    assert report.exit_code == 0 and payload["route"] == "projective" and payload["fate"] == "consensus"
    assert report.record.certificate.problem.normalize  # the rational directions c, rescaled as balls
