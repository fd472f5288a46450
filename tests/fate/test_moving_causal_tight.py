"""Adversarial tests of the causal lemma with the exponent ``p`` and the tangent-trace bound (verify/_fate/moving_causal.py).

Forged certificates for false claims (a repelled token 2 hidden behind an empty region, an antipodal
stationary pair, a region that token 1 leaves), tampered new fields (``p``, ``q_lo``, ``tau3``, ``ell``),
exact boundaries (``kappa = 0`` and the entry with equality), and older certificates without the new fields.
"""
from __future__ import annotations

import copy
import json
from dataclasses import replace
from fractions import Fraction as F

import pytest
from flint import arb, ctx

from theorems.errors import InvalidInput
from verify.certificate_kinds import certificate_from_json
from fate_cases import refused
from verify._fate import FateProblem
from verify._fate.certificate import FateCertificate
from verify._fate.moving import Causal, Moving, Region, check_moving, moving_entered

Z2 = ((F(0), F(0)), (F(0), F(0)))


def _q(M):
    return tuple(tuple(F(v) for v in row) for row in M)


def _eye(d, c=1):
    return tuple(tuple(F(c) if a == b else F(0) for b in range(d)) for a in range(d))


def _balls(rows):
    return [[arb(F(v).numerator) / F(v).denominator for v in row] for row in rows]


def _json(problem, moving, entry) -> dict:
    return json.loads(json.dumps(FateCertificate(problem, "consensus", "moving-consensus", F(entry), moving=moving).to_json()))


# U = [[1, 2], [0, 1]] (sym U has eigenvalues 0 and 2), P = 0, G = diag(1, 200): mu = 369/400, p = 3/2, ell = 0,
# q_lo = 0.  Bound A gives Th_2 = 2, bound B gives Th_2 = 1 + 5D/4 + 7D^2/8: kappa = 3/2 - 15D/2 - 7D^2/4 - ...
# exactly 2 p mu - 2 - 15 D / 2 - 7 D^2 / 4, zero at D = 1/10.
U_NN = _q([[1, 2], [0, 1]])
G_NN = _q([[1, 0], [0, 200]])
TOKS = _q([[1, 0], [F(3, 5), F(4, 5)]])
PROB = FateProblem(F(1), "causal", ((Z2, U_NN),), TOKS, False, "nonnormal")
TIGHT = Causal((F(1),), F(1), (F(2),), F(2), (F(3, 2),), F(0), F(0), (F(0),))


def _m(D, causal=TIGHT, mu=F(369, 400)):
    return Moving(G_NN, F(1), F(200), mu, F(0), (F(5, 2),), (F(0),), D, None, causal)


def test_kappa_zero_exactly_is_refused_and_just_below_is_accepted():
    assert not check_moving(PROB, _m(F(1, 10))).ok
    tiny = F(1, 10**30)
    out = check_moving(PROB, _m(F(1, 10) - tiny))
    assert out.ok and 0 < out.kappa < F(1, 10**28)


def test_the_tangent_trace_bound_is_what_proves_it():
    D = F(1, 20)
    assert check_moving(PROB, _m(D)).ok
    assert not check_moving(PROB, _m(D, replace(TIGHT, ell=None))).ok  # bound A alone: Th_2 = 2
    assert not check_moving(PROB, _m(D, replace(TIGHT, p=(F(1),)))).ok  # p = 1: 2 mu < 2
    assert not check_moving(PROB, _m(D, mu=F(93, 100))).ok  # mu above 1 - 1/sqrt(200), the S-lemma maximum


@pytest.mark.parametrize("bad", [
    dict(ell=(F(1, 10**30),)),  # ell above lambda_min(sym U) = 0
    dict(q_lo=F(1, 10**30)),  # q_lo above min q = 0 (no region)
    dict(p=(F(0),)), dict(p=(F(-3, 2),)), dict(p=(F(3, 2), F(3, 2))), dict(p=(F(1, 13),)), dict(p=(F(5),)),
    dict(tau3=F(1)),  # tau3 without a region
    dict(ell=(F(0), F(0))),  # one bound per head
    dict(q_lo=None, tau3=F(1, 2)),
])
def test_forged_new_fields_arerefused(bad):
    assert not check_moving(PROB, _m(F(1, 20), replace(TIGHT, **bad))).ok


def test_float_new_fields_arerefused():
    assert not check_moving(PROB, _m(F(1, 20), replace(TIGHT, p=(1.5,)))).ok
    assert not check_moving(PROB, _m(F(1, 20), replace(TIGHT, ell=(0.0,)))).ok


def test_json_round_trip_and_tampering():
    data = _json(PROB, _m(F(1, 20)), 0)
    assert data["moving"]["causal"]["p"] == ["3/2"] and data["moving"]["causal"]["ell"] == ["0"]
    assert certificate_from_json(data).moving == _m(F(1, 20))
    for path, value in [(("p", 0), "1"), (("p", 0), "0"), (("q_lo",), "1/1000"), (("ell", 0), "1/1000"), (("tau3",), "1")]:
        out = copy.deepcopy(data)
        node = out["moving"]["causal"]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        assert refused(out), path
    for key in ("tau3", "q_lo"):  # q_lo and tau3 only together
        out = copy.deepcopy(data)
        del out["moving"]["causal"][key]
        with pytest.raises(InvalidInput):
            certificate_from_json(out)
    out = copy.deepcopy(data)
    out["moving"]["causal"]["ell"] = ["0", "0"]
    with pytest.raises(InvalidInput):
        certificate_from_json(out)
    out = copy.deepcopy(data)
    out["moving"]["causal"]["p"] = ["1.5"]
    with pytest.raises(InvalidInput):
        certificate_from_json(out)


def test_older_certificates_without_the_new_fields_keep_their_meaning():
    """A p = 1 certificate without the new keys loads with p = 1, no q_lo, no ell (the earlier lemma)."""
    p = FateProblem(F(1), "causal", ((Z2, _eye(2)),), _q([[1, 0], [1, F(1, 100)]]), True, "old")
    old = Moving(_eye(2), F(1), F(1), F(1), F(0), (F(1),), (F(0),), F(1, 10), None,
                 Causal((F(1),), F(1), (F(1),), F(1)))
    assert check_moving(p, old).ok
    data = _json(p, old, 0)
    assert set(data["moving"]["causal"]) == {"c", "eta", "lam", "lam_s"}
    cert = certificate_from_json(data)
    assert cert.moving.causal == Causal((F(1),), F(1), (F(1),), F(1)) and cert.recheck().holds


def test_entry_with_p_is_strict():
    """p = 2: the entry is g_hi^2 c |e|^2 < c Dmax^2 W^2; with |e| = 6/5, W = 1, g_hi = 200: equality at Dmax = 240."""
    toks = _q([[1, 0], [F(7, 25), F(24, 25)]])
    causal = replace(TIGHT, p=(F(2),))
    with ctx.workprec(128):
        X = _balls(toks)
        assert not moving_entered(_m(F(240), causal), X)
        assert moving_entered(_m(F(240) + F(1, 10**20), causal), X)
        assert not moving_entered(_m(F(240) - F(1, 10**20), causal), X)


def test_repelled_token_behind_an_empty_region_isrefused():
    """U = -I: token 2 is pushed away from token 1; q_lo and mu hold only on an empty region."""
    toks = _q([[1, 0], [F(24, 25), F(7, 25)]])
    p = FateProblem(F(1), "causal", ((Z2, _eye(2, -1)),), toks, False, "repel")
    empty = Region(Z2, F(1), F(0), F(0))
    causal = Causal((F(1),), F(1, 2), (F(-1),), F(-1), (F(3, 2),), F(5), F(7), (F(-1),))
    m = Moving(_eye(2), F(1), F(1), F(1), F(3), (F(1),), (F(0),), F(1, 2), empty, causal)
    assert check_moving(p, m).ok  # vacuous: x_1 never lies in the empty region
    with ctx.workprec(128):
        X = _balls(toks)
        assert moving_entered(replace(m, region=None), X) and not moving_entered(m, X)
    assert refused(_json(p, m, F(1, 2)))
    assert not check_moving(p, replace(m, region=None, tau2=F(0), causal=replace(causal, tau3=F(0)))).ok


def test_antipodal_stationary_pair_isrefused():
    """U = I, P = 0, x_2 = -x_1: token 2 never moves (Proj of (x_1 + x_2)/2 = 0); the data are true but never entered."""
    toks = _q([[1, 0], [-1, 0]])
    p = FateProblem(F(1), "causal", ((Z2, _eye(2)),), toks, False, "antipodal")
    m = Moving(_eye(2), F(1), F(1), F(1), F(0), (F(1),), (F(0),), F(1, 10), None,
               Causal((F(1),), F(1), (F(1),), F(1), (F(3, 2),), F(1), F(0), (F(1),)))
    assert check_moving(p, m).ok
    with ctx.workprec(128):
        assert not moving_entered(m, _balls(toks))
    for entry in (0, 1, 100):
        assert refused(_json(p, m, entry))


def test_region_that_token_1_leaves_isrefused():
    """U = rotation + I/10: token 1 rotates out of the cone x_1^2 >= x^2 / 2 around e_1 (step c fails)."""
    U = _q([[F(1, 10), -1], [1, F(1, 10)]])
    toks = _q([[1, 0], [F(24, 25), F(7, 25)]])
    p = FateProblem(F(1), "causal", ((Z2, U),), toks, False, "leave")
    cone = Region(_q([[1, 0], [0, 0]]), F(1, 2), F(0), F(1))
    causal = Causal((F(1),), F(1), (F(1, 10),), F(1, 10), (F(3, 2),), F(1, 10), F(0), (F(1, 10),))
    m = Moving(_eye(2), F(1), F(1), F(1, 10), F(0), (F(2),), (F(0),), F(1, 100), cone, causal)
    out = check_moving(p, m)
    assert not out.ok and "step c" in out.reason
    assert refused(_json(p, m, 0))


@pytest.mark.parametrize("g,e", [(F(200), F(1, 6)), (F(1, 7), F(-5, 12)), (F(3), F(0)), (F(12, 5), F(-1, 2))])
def test_pow_up_is_a_proved_upper_bound(g, e):
    from verify._fate.moving_causal import _pow_up

    R = _pow_up(g, e)
    a, b = e.numerator, e.denominator
    assert (R ** b >= g ** a) if a >= 0 else (R ** b * g ** (-a) >= 1)
    assert float(R) <= float(g) ** float(e) * (1 + 1e-6) + 1e-9


# ------------------------------------------------------------ one of the eight seeds, end to end (N = 3, per-token p_k)

@pytest.fixture(scope="module")
def seed18():
    from fate_cases import random_problem
    from verify._fate import Fate, certify_fate

    r = certify_fate(random_problem(18, nonsymmetric=True))
    assert r.fate is Fate.CONSENSUS and r.route == "moving-consensus", r.reason
    c = r.certificate.moving.causal
    assert c.ell is not None and c.q_lo is not None and len(set(c.exponents())) > 1 and r.limit is None
    return json.loads(json.dumps(r.certificate.to_json()))


def test_seed18_rechecks_from_json(seed18):
    verdict = certificate_from_json(seed18).recheck()
    assert verdict.holds, verdict.reason


def _raise(v: str, by: str) -> str:
    return str(F(v) + F(by))


@pytest.mark.parametrize("name", ["p_2 = 1", "p_3 = p_2 = 1", "ell raised", "q_lo raised", "ell dropped",
                                  "entry 1/8", "Dmax x10"])
def test_seed18_tampered_is_rejected(seed18, name):
    """(Dropping q_lo is not an attack here: with p_k = 1 + 1/k the q(x_1) terms cancel and the claim stays proved.)"""
    out = copy.deepcopy(seed18)
    c = out["moving"]["causal"]
    if name == "p_2 = 1":
        c["p"][0] = "1"
    elif name == "p_3 = p_2 = 1":
        c["p"] = ["1", "1"]
    elif name == "ell raised":
        c["ell"][0] = _raise(c["ell"][0], "1/1000")
    elif name == "q_lo raised":
        c["q_lo"] = _raise(c["q_lo"], "1/1000")
    elif name == "ell dropped":
        del c["ell"]
    elif name == "entry 1/8":
        out["entry"] = "1/8"
    else:
        out["moving"]["Dmax"] = str(F(out["moving"]["Dmax"]) * 10)
    assert refused(out), name
