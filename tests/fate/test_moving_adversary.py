"""Adversarial regression tests of the moving-consensus route (verify/_fate/moving.py).

Every attack here is one the route rejects: malformed or tampered JSON fields, out-of-range numbers,
forged certificates for instances that do *not* reach consensus (antipodal stationary pair, repelling
heads hidden behind an empty region, a causal instance whose token 2 is repelled), exact boundary
cases of the strict inequalities (kappa = 0, 2 beta p Dmax = 1, entry with equality), and the
oracle comparison of the benchmark being non-vacuous for this route.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction as F
from dataclasses import replace
from types import SimpleNamespace

import pytest
from flint import arb, ctx

from fate_cases import disagreement, random_problem, refused
from theorems.errors import InvalidInput
from verify.certificate_kinds import certificate_from_json
from verify._fate import FateProblem, certify_fate
from verify._fate.certificate import FateCertificate
from verify._fate.moving import Causal, Moving, Region, check_moving, moving_entered, norm_bound_ok


# --------------------------------------------------------------------------- helpers

def _set(data, path, value):
    out = copy.deepcopy(data)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def _q(M):
    return tuple(tuple(F(v) for v in row) for row in M)


def _eye(d, c=1):
    return tuple(tuple(F(c) if a == b else F(0) for b in range(d)) for a in range(d))


def _json(problem: FateProblem, moving: Moving, entry) -> dict:
    return json.loads(json.dumps(FateCertificate(problem, "consensus", "moving-consensus", F(entry), moving=moving).to_json()))


@pytest.fixture(scope="module")
def golden():
    r = certify_fate(random_problem(14, nonsymmetric=True))
    assert r.route == "moving-consensus", r.reason
    return json.loads(json.dumps(r.certificate.to_json()))


@pytest.fixture(scope="module")
def causal_golden():
    r = certify_fate(random_problem(8, nonsymmetric=True))
    assert r.route == "moving-consensus" and r.certificate.moving.causal is not None, r.reason
    return json.loads(json.dumps(r.certificate.to_json()))


# --------------------------------------------------------------------------- malformed JSON fields

FIELDS = [("moving", "mu"), ("moving", "Dmax"), ("moving", "g_lo"), ("moving", "g_hi"), ("moving", "tau2"),
          ("moving", "unorm", 0), ("moving", "pnorm", 1), ("moving", "G", 0, 0), ("moving", "region", "gamma"),
          ("moving", "region", "tau1"), ("moving", "region", "qnorm"), ("moving", "region", "Q", 1, 2), ("entry",)]
BAD = ["1e400", "nan", "inf", "-inf", "1/0", "0/0", "-3/0", "1.5", "0x10", " 1", "1/-2", "", 1.5, 1, True, None,
       ["1"], {"p": 1}, "1" + "0" * 401, "1/" + "1" * 401]


@pytest.mark.parametrize("path", FIELDS, ids=lambda p: ".".join(map(str, p)))
def test_malformed_rationals_are_invalid_input(golden, path):
    for value in BAD:
        with pytest.raises(InvalidInput):
            certificate_from_json(_set(golden, path, value))


OUT_OF_RANGE = ["0", "-1", "-1/3", "10000000000000000000000000000000000000"]


@pytest.mark.parametrize("path", [("moving", "mu"), ("moving", "Dmax"), ("moving", "g_lo"), ("moving", "tau2"),
                                  ("moving", "unorm", 0), ("moving", "region", "gamma"), ("moving", "G", 0, 0),
                                  ("entry",)], ids=lambda p: ".".join(map(str, p)))
def test_out_of_range_numbers_are_rejected(golden, path):
    for value in OUT_OF_RANGE:
        assert refused(_set(golden, path, value)), (path, value)


STRUCTURE = {
    "extra key in moving": (("moving", "kappa"), "100"),
    "extra key in region": (("moving", "region", "rate"), "1"),
    "extra top-level key": (("limit",), "1"),
    "missing Dmax": (("moving", "Dmax"), KeyError),
    "missing G": (("moving", "G"), KeyError),
    "missing region key (region dropped)": (("moving", "region"), KeyError),
    "region empty object": (("moving", "region"), {}),
    "region a list": (("moving", "region"), []),
    "causal data on a full-mask instance": (("moving", "causal"), {"c": ["1"], "eta": "1", "lam": ["5", "5"], "lam_s": "9"}),
    "unorm too long": (("moving", "unorm"), ["3", "3", "3"]),
    "unorm a string": (("moving", "unorm"), "3"),
    "G 3x3": (("moving", "G"), [["1", "0", "0"]] * 3),
    "moving a string": (("moving",), "moving"),
    "moving null": (("moving",), None),
    "fate non-consensus": (("fate",), "non-consensus"),
    "route basin": (("route",), "basin"),
    "route cap": (("route",), "cap"),
    "z stored": (("z",), ["1", "0", "0", "0"]),
    "entry past the limit": (("entry",), "10001"),
    "beta zero": (("instance", "beta"), "0"),
    "beta negative": (("instance", "beta"), "-1"),
    "tokens antipodal (no consensus)": (("instance", "tokens"), [["1", "0", "0", "0"], ["-1", "0", "0", "0"]]),
}


@pytest.mark.parametrize("name", sorted(STRUCTURE))
def test_structural_tampering_is_rejected(golden, name):
    path, value = STRUCTURE[name]
    assert refused(_set(golden, path, value)), name


def test_heads_swapped_in_the_instance_only_are_rejected(golden):
    data = copy.deepcopy(golden)
    data["instance"]["heads"] = data["instance"]["heads"][::-1]  # the norm bounds no longer belong to their heads
    assert refused(data)


def test_complement_region_is_rejected(golden):
    """``Q -> -Q``, ``gamma -> -gamma``: the region becomes ``x^T Q x <= gamma`` (the complement's closure)."""
    data = copy.deepcopy(golden)
    r = data["moving"]["region"]
    r["Q"] = [[str(-F(v)) for v in row] for row in r["Q"]]
    r["gamma"] = str(-F(r["gamma"]))
    assert refused(data)


def test_moving_data_of_another_instance_are_invalid(golden, causal_golden):
    with pytest.raises(InvalidInput):  # d = 3 data on a d = 4 instance
        certificate_from_json(_set(golden, ("moving",), causal_golden["moving"]))


def test_a_far_extra_token_is_rejected(golden):
    data = copy.deepcopy(golden)
    data["instance"]["tokens"].append(["-7/8", "-3/4", "-5/8", "-5/8"])
    assert refused(data)


# --------------------------------------------------------------------------- causal tampering

CAUSAL = {
    "c_2 zero": (("moving", "causal", "c", 0), "0"),
    "c_2 negative": (("moving", "causal", "c", 0), "-1"),
    "c reversed": (("moving", "causal", "c"), "REVERSED"),
    "eta negative": (("moving", "causal", "eta"), "-1/2"),
    "eta huge": (("moving", "causal", "eta"), "1000"),
    "lam two heads": (("moving", "causal", "lam"), ["2", "2"]),
    "c too long": (("moving", "causal", "c"), ["1", "1", "1"]),
    "extra causal key": (("moving", "causal", "kappa"), "5"),
    "region dropped": (("moving", "region"), None),
    "2 beta p Dmax >= 1": (("moving", "Dmax"), "1/2"),
    "entry at 0": (("entry",), "0"),
    "lam negative": (("moving", "causal", "lam", 0), "-1"),
    "lam_s negative": (("moving", "causal", "lam_s"), "-1"),
}


@pytest.mark.parametrize("name", sorted(CAUSAL))
def test_causal_tampering_is_rejected(causal_golden, name):
    path, value = CAUSAL[name]
    if value == "REVERSED":
        value = causal_golden["moving"]["causal"]["c"][::-1]
    assert refused(_set(causal_golden, path, value)), name


# --------------------------------------------------------------------------- forged certificates for false claims

Z2 = _eye(2, 0)


def test_antipodal_stationary_pair_passes_the_lemma_but_never_enters():
    """U = I, P = 0, x_2 = -x_1: an equilibrium (no consensus).  (a)-(d) hold (they are local), the entry does not."""
    p = FateProblem(F(1), "full", ((Z2, _eye(2)),), _q([[1, 0], [-1, 0]]), False, "antipodal")
    m = Moving(_eye(2), F(1), F(1), F(1, 2), F(0), (F(1),), (F(0),), F(1, 10))
    assert check_moving(p, m).ok
    assert refused(_json(p, m, 1))
    big = Moving(_eye(2), F(1), F(1), F(1), F(0), (F(1),), (F(0),), F(201, 100))  # Dmax > 2 makes entry trivial
    assert not check_moving(p, big).ok  # ... and kappa < 0
    assert refused(_json(p, big, 0))


def test_repelling_heads_behind_an_empty_region_never_enter():
    """Two heads U = -I (tokens repel): (b) can only hold on a region with Q < gamma I, which is empty;
    (a)-(d) are then vacuous and pass, but no token is ever in the region."""
    toks = _q([[1, 0, 0], [F(24, 25), F(7, 25), 0]])
    mI = _eye(3, -1)
    p = FateProblem(F(1), "full", ((_eye(3, 0), mI), (_eye(3, 0), mI)), toks, False, "repel")
    empty = Region(_eye(3, 0), F(1), F(0), F(0))
    m = Moving(_eye(3), F(1), F(1), F(2), F(4), (F(1), F(1)), (F(0), F(0)), F(1, 2), empty)
    assert check_moving(p, m).ok  # vacuous
    with ctx.workprec(128):  # at t = 0 the diameter bound holds: only the region keeps the entry out
        X0 = _balls(toks)
        assert moving_entered(replace(m, region=None), X0) and not moving_entered(m, X0)
    assert refused(_json(p, m, F(1, 2)))
    no_region = Moving(_eye(3), F(1), F(1), F(1), F(0), (F(1), F(1)), (F(0), F(0)), F(1, 10))
    assert not check_moving(p, no_region).ok
    assert refused(_json(p, no_region, F(1, 2)))


def test_causal_repelled_token_2_isrefused():
    """Causal, U = -I: token 1 stays put, token 2 is pushed away from it (no consensus)."""
    toks = _q([[1, 0], [F(24, 25), F(7, 25)]])
    p = FateProblem(F(1), "causal", ((Z2, _eye(2, -1)),), toks, False, "causal-repel")
    causal = Causal((F(1),), F(1, 2), (F(-1),), F(-1))
    empty = Region(Z2, F(1), F(0), F(0))
    m = Moving(_eye(2), F(1), F(1), F(1), F(3), (F(1),), (F(0),), F(1, 2), empty, causal)
    assert check_moving(p, m).ok  # vacuous: x_1 is never in the empty region
    with ctx.workprec(128):  # at t = 0 the weighted deviation bound holds: only the region keeps the entry out
        X0 = _balls(toks)
        assert moving_entered(replace(m, region=None), X0) and not moving_entered(m, X0)
    assert refused(_json(p, m, F(1, 2)))
    m0 = Moving(_eye(2), F(1), F(1), F(1), F(0), (F(1),), (F(0),), F(1, 100), None, causal)
    assert not check_moving(p, m0).ok
    assert refused(_json(p, m0, F(1, 2)))


def test_one_token_causal_data_arerefused():
    p = FateProblem(F(1), "causal", ((Z2, _eye(2)),), _q([[1, 0]]), False, "one")
    m = Moving(_eye(2), F(1), F(1), F(1, 2), F(0), (F(1),), (F(0),), F(1, 10), None, Causal((), F(1), (F(1),), F(1)))
    assert not check_moving(p, m).ok
    assert refused(_json(p, m, 0))


# --------------------------------------------------------------------------- exact boundaries of the strict tests

def test_kappa_zero_is_refused_and_just_below_is_accepted():
    """P = 0, U = I, G = I: kappa = 2 mu - 3 Dmax exactly; mu = 1 gives the root Dmax = 2/3."""
    p = FateProblem(F(1), "full", ((Z2, _eye(2)),), _q([[1, 0], [0, 1]]), False, "kappa0")
    at = Moving(_eye(2), F(1), F(1), F(1), F(0), (F(1),), (F(0),), F(2, 3))
    assert not check_moving(p, at).ok
    below = Moving(_eye(2), F(1), F(1), F(1), F(0), (F(1),), (F(0),), F(2, 3) - F(1, 10**30))
    out = check_moving(p, below)
    assert out.ok and out.kappa == 3 * F(1, 10**30)
    over = Moving(_eye(2), F(1), F(1), F(1) + F(1, 10**30), F(0), (F(1),), (F(0),), F(1, 10))  # mu above lambda_min
    assert not check_moving(p, over).ok


def test_causal_half_logit_spread_boundary_isrefused():
    """2 beta p Dmax = 1 exactly (beta = 1, P = I, Dmax = 1/2)."""
    p = FateProblem(F(1), "causal", ((_eye(2), _eye(2)),), _q([[1, 0], [0, 1]]), False, "spread")
    m = Moving(_eye(2), F(1), F(1), F(1), F(0), (F(1),), (F(1),), F(1, 2), None, Causal((F(1),), F(1), (F(1),), F(1)))
    assert not check_moving(p, m).ok


def test_norm_bounds_are_exact():
    A = _q([[3, 4], [0, 0]])  # ||A||_2 = 5
    assert norm_bound_ok(A, F(5))
    assert not norm_bound_ok(A, F(5) - F(1, 10**40))
    assert not norm_bound_ok(_eye(2, 0), F(-1))
    assert not norm_bound_ok(_q([[1, 1], [0, 0]]), F(1))  # zero pivot with a nonzero entry


def _balls(rows):
    return [[arb(F(v).numerator) / F(v).denominator for v in row] for row in rows]


def test_entry_is_strict_and_checks_every_ordered_pair():
    with ctx.workprec(128):
        X = _balls([[1, 0], [F(7, 25), F(24, 25)]])  # |x_1 - x_2| = 6/5 exactly
        m = Moving(_eye(2), F(1), F(1), F(1), F(0), (F(1),), (F(0),), F(6, 5))
        assert not moving_entered(m, X)  # equality: refused
        assert moving_entered(Moving(_eye(2), F(1), F(1), F(1), F(0), (F(1),), (F(0),), F(6, 5) + F(1, 10**20)), X)
        # G = diag(1, 1/4): the pair (1, 2) passes (2 < 3 * 1), the pair (2, 1) does not (2 > 3 / 4)
        G = _q([[1, 0], [0, F(1, 4)]])
        Y = _balls([[1, 0], [0, 1]])
        Dmax = F(17321, 10000)  # Dmax^2 just above 3
        assert not moving_entered(Moving(G, F(1, 4), F(1), F(1), F(0), (F(1),), (F(0),), Dmax), Y)
        # a region whose boundary passes exactly through a token
        region = Region(_q([[1, 0], [0, 0]]), F(1), F(0), F(1))
        close = _balls([[1, 0], [F(24, 25), F(7, 25)]])
        assert not moving_entered(Moving(_eye(2), F(1), F(1), F(1), F(0), (F(1),), (F(0),), F(1), region), close)


# --------------------------------------------------------------------------- the oracle comparison is not vacuous

def test_oracle_disagreement_sees_a_non_consensus():
    """The benchmark's measure for a moving-consensus fate (the oracle's diameter at 10 T) is large when
    the (forged) claim is false: the antipodal stationary pair keeps diameter 2."""
    p = FateProblem(F(1), "full", ((Z2, _eye(2)),), _q([[1, 0], [-1, 0]]), False, "antipodal")
    fake = SimpleNamespace(certificate=SimpleNamespace(entry=F(1), problem=p), limit=None, route="moving-consensus")
    assert disagreement(fake, 10.0, digits=20) > 1.9


def test_float_data_built_by_hand_are_refused_before_any_rounding():
    p = FateProblem(F(1), "full", ((Z2, _eye(2)),), _q([[1, 0], [0, 1]]), False, "floats")
    exact = Moving(_eye(2), F(1), F(1), F(1, 2), F(0), (F(1),), (F(0),), F(1, 10))
    floats = Moving([[1.0, 0.0], [0.0, 1.0]], 1.0, 1.0, 0.5, 0.0, (1.0,), (0.0,), 0.1)
    check = check_moving(p, floats)
    assert not check.ok and "exact rational" in check.reason
    assert not check_moving(p, replace(exact, mu=0.5)).ok  # one float among exact fields is enough to refuse
    assert not check_moving(p, replace(exact, G=[[F(1), 0.0], [F(0), F(1)]])).ok


@pytest.mark.parametrize("text", ["1\n", "\u0661", "\uff11/2", "1/2\n", " 1", "+1"])
def test_rational_fields_are_ascii_digits_exactly(text):
    from verify.certificate_fields import json_rational

    with pytest.raises(InvalidInput):
        json_rational(text, "mu")
