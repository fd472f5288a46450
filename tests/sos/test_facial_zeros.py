"""Facial reduction by known zeros (verify/_sos/facial_zeros.py) and the kernel PSD witness."""
from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import pytest

from theorems.errors import InvalidInput
from verify._sos import poly
from verify._sos import facial_zeros as fz
from verify._sos.options import SOSOptions
from verify._sos.prove import build_program, prove_exact
from verify._sos.psd_congruence import congruence_definite, decide_psd
from verify._sos.psd_kernel import kernel_witness


def _householder(d):
    w = [1, 2, 0, 1, -1, 1, 3][:d]
    ww = sum(x * x for x in w)
    return [[F(int(i == j)) - F(2 * w[i] * w[j], ww) for j in range(d)] for i in range(d)]


def sym44(d, gap_scale=F(1)):
    """``lambda_1 - x^T U x - gap (1 - b^2)`` on the sphere, ``U = R diag(1, -1/2, -1, ...) R``
    (``R`` a rational Householder reflection, ``b = <R e_1, x>``), and exact zeros on its zero circle."""
    eig = [F(1)] + [F(-k, 2) for k in range(1, d)]
    R = _householder(d)
    e = lambda i: tuple(int(k == i) for k in range(d))  # noqa: E731
    p = {(0,) * d: eig[0]}
    for i in range(d):
        for j in range(d):
            u = sum(R[i][k] * eig[k] * R[j][k] for k in range(d))
            poly.add_into(p, {poly.mono_mul(e(i), e(j)): -u})
    gap = (eig[0] - eig[1]) * gap_scale
    b = {e(i): R[i][0] for i in range(d) if R[i][0]}
    poly.add_into(p, poly.add({(0,) * d: -gap}, poly.scale(poly.mul(b, b), gap)))
    p = {m: c for m, c in p.items() if c}
    sphere = poly.add({poly.mono_mul(e(i), e(i)): F(1) for i in range(d)}, {(0,) * d: F(-1)})
    zeros = []
    for t in [F(k, 5) for k in range(-7, 8)]:
        c, s = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)
        zeros.append(tuple(c * R[i][0] + s * R[i][1] for i in range(d)))
    return p, sphere, zeros


NAMES4 = ("x0", "x1", "x2", "x3")


def test_theorem_inequality_needs_the_reduction():
    p, h, zeros = sym44(4)
    assert all(poly.evaluate(p, z) == 0 and poly.evaluate(h, z) == 0 for z in zeros)
    plain = prove_exact(p, NAMES4, (), (h,), SOSOptions(degree=4, refute=False))
    assert not plain.verdict.holds
    reduced = prove_exact(p, NAMES4, (), (h,), SOSOptions(degree=4, refute=False, zeros=zeros))
    assert reduced.verdict.holds and "facial reduction" in reduced.verdict.reason
    assert reduced.certificate.recheck().holds


def test_direct_and_adapted_coordinates_both_certify():
    from verify._sos.facial_coords import adapted_columns

    p, h, zeros = sym44(4)
    points = fz.feasible_zeros(p, (), (h,), zeros)
    assert adapted_columns(points, 4) is not None  # the zero circle spans a plane, not a coordinate one
    assert adapted_columns([(F(1), F(0), F(0)), (F(0), F(1), F(0))], 3) is None
    program = build_program(p, 4, (), (h,), 4, False)
    outcome = fz.reduced_search(program, points, (2 ** 8, 2 ** 16, 2 ** 32), True)
    assert outcome is not None and outcome.point is not None
    assert [len(b.basis) for b in outcome.program.blocks] == [15]  # mapped back to the monomials of x


def test_certificate_is_singular_and_tampering_breaks_it():
    p, h, zeros = sym44(4)
    cert = prove_exact(p, NAMES4, (), (h,), SOSOptions(degree=4, refute=False, zeros=zeros)).certificate
    term = cert.sos_terms[0]
    gram = [list(row) for row in term.gram]
    for i in range(len(gram)):
        gram[i][i] += F(1, 10 ** 6)  # still PSD, but the identity no longer holds
    bad = dataclasses.replace(cert, sos_terms=(dataclasses.replace(term, gram=tuple(map(tuple, gram))),))
    assert not bad.recheck().holds
    gram = [list(row) for row in term.gram]
    gram[0][0] -= F(1, 10 ** 9)
    bad = dataclasses.replace(cert, sos_terms=(dataclasses.replace(term, gram=tuple(map(tuple, gram))),))
    assert not bad.recheck().holds


def test_points_that_are_not_zeros_are_discarded_and_never_prove():
    p, h, zeros = sym44(4)
    fake = [(F(1), F(0), F(0), F(0)), (F(0), F(1), F(0), F(0)), (F(3, 5), F(4, 5), F(0), F(0))]
    assert fz.feasible_zeros(p, (), (h,), fake) == []
    # Forced through the restriction anyway, a non-zero restricts to a face without the certificate:
    program = build_program(p, 4, (), (h,), 4, False)
    outcome = fz.reduced_search(program, fake + zeros[:3], (2 ** 8, 2 ** 16), True)
    assert outcome is not None and outcome.point is None


def test_false_inequality_with_planted_fake_zeros_is_not_proved():
    p, h, zeros = sym44(4, gap_scale=F(11, 10))  # gap larger than the spectral gap: false on the circle
    result = prove_exact(p, NAMES4, (), (h,), SOSOptions(degree=4, zeros=zeros))
    assert result.verdict.status.value in ("fails", "unknown")
    program = build_program(p, 4, (), (h,), 4, False)
    outcome = fz.reduced_search(program, zeros, (2 ** 8, 2 ** 16), True)
    assert outcome is not None and outcome.point is None


def test_auto_grid_zeros_on_the_gram_set():
    # (1 - a)^2 (1 + a) >= 0 on 1 - a^2 >= 0 vanishes at a = +-1 (grid points)
    a = {(1,): F(1)}
    one = {(0,): F(1)}
    p = poly.mul(poly.mul(poly.sub(one, a), poly.sub(one, a)), poly.add(one, a))
    g = poly.sub(one, poly.mul(a, a))
    assert fz.grid_zeros(p, 1, (g,), ()) == [(F(-1),), (F(1),)]
    result = prove_exact(p, ("a",), (g,), (), SOSOptions(degree=4, zeros="auto"))
    assert result.verdict.holds


def test_kernel_witness_decides_singular_blocks():
    import random

    rng = random.Random(1)
    n, r = 40, 3
    B = [[F(rng.randint(-3, 3)) for _ in range(n - r)] for _ in range(n)]
    Qp = [[F(int(i == j) * 5 + rng.randint(0, 1)) for j in range(n - r)] for i in range(n - r)]
    Qp = [[(Qp[i][j] + Qp[j][i]) / 2 for j in range(n - r)] for i in range(n - r)]
    Q = [[sum(B[i][a] * Qp[a][b] * B[j][b] for a in range(n - r) for b in range(n - r)) for j in range(n)]
         for i in range(n)]
    assert kernel_witness(Q, congruence_definite) is not None
    assert decide_psd(Q).ok and decide_psd(Q).method == "kernel congruence"
    Q[0][0] -= F(1, 1000)
    assert kernel_witness(Q, congruence_definite) is None and not decide_psd(Q).ok


def test_zeros_option_is_validated():
    with pytest.raises(InvalidInput):
        SOSOptions(zeros=[[0.5, 1]])
    with pytest.raises(InvalidInput):
        SOSOptions(zeros="all")
    assert SOSOptions(zeros=[["1/2", 1]]).zeros == ((F(1, 2), F(1)),)
    assert "zeros" not in SOSOptions().to_json(2)
    p, h, _ = sym44(4)
    with pytest.raises(InvalidInput):
        prove_exact(p, NAMES4, (), (h,), SOSOptions(degree=4, zeros=[[1, 0, 0]]))
