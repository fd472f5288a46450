"""The float observation beside the certified map of real heads (``verify._fate.head_observe``).

Its field is the instance field of the fate driver written with the model's factors (checked
against ``hints.float_field`` on the same exact data, both masks); its three outcomes on heads
whose behaviour is known in closed form; and it never changes a fate, the certified count or the
verdict of the map, while the JSON (schema-valid) and the text say what it is."""
from __future__ import annotations

import json
from fractions import Fraction

import jsonschema
import numpy as np
import pytest

from verify._fate.head_map import HeadFate, HeadFateMap, certify_head
from verify._fate.head_observe import GROUP, Observation, head_field, observe_head
from verify._fate.hints import float_field
from verify._fate.problem import FateProblem
from verify.report import schema_path


def _dyadic(rng, shape):
    return rng.integers(-8, 9, size=shape) / 8.0


def _exact(M):
    return tuple(tuple(Fraction(float(v)) for v in row) for row in M)


@pytest.mark.parametrize("mask", ["full", "causal"])
def test_head_field_is_the_instance_field(mask):
    rng = np.random.default_rng(7)
    D, k, N, beta = 4, 3, 5, 0.75
    V, O, A, B = _dyadic(rng, (D, k)), _dyadic(rng, (k, D)), _dyadic(rng, (D, k)), _dyadic(rng, (D, k))
    X = _dyadic(rng, (N, D)) + np.eye(N, D)
    problem = FateProblem(Fraction(beta), mask, ((_exact(A @ B.T), _exact((V @ O).T)),), _exact(X), normalize=True)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    ours = head_field(V, O, A, B, beta, mask == "causal")(X)
    assert np.allclose(ours, float_field(problem, X), rtol=0, atol=1e-13)
    assert np.max(np.abs(ours)) > 0.1


def _identity_head(D):
    return np.eye(D), np.eye(D), np.zeros((D, D)), np.zeros((D, D))


def test_identity_head_in_a_hemisphere_is_one_cluster():
    X = np.array([[1.0, 0.2, 0.0], [0.3, 1.0, 0.1], [0.5, -0.4, 1.0], [1.0, 0.0, -0.6]])
    seen = observe_head(*_identity_head(3), X, beta=1.0, causal=False)
    assert seen.outcome == "one cluster" and seen.groups == 1
    assert seen.diameter < GROUP and seen.collapse_time is not None and seen.collapse_time < seen.horizon


def test_an_exact_antipodal_split_stays_two_clusters():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0], [-1.0, 0.0]])  # uniform weights: the mean is exactly 0
    seen = observe_head(*_identity_head(2), X, beta=1.0, causal=False)
    assert (seen.outcome, seen.groups, seen.field) == ("clusters", 2, 0.0)
    assert seen.collapse_time is None and seen.diameter == 2.0


def test_a_rigid_rotation_is_moving():
    J = np.array([[0.0, 1.0], [-1.0, 0.0]])  # U = (V O)^T = J^T: both tokens turn at the same speed
    X = np.array([[1.0, 0.0], [np.cos(1.0), np.sin(1.0)]])
    seen = observe_head(np.eye(2), J, np.zeros((2, 2)), np.zeros((2, 2)), X, beta=1.0, causal=False, horizon=20.0)
    assert (seen.outcome, seen.groups) == ("moving", 2)
    assert seen.field > 0.1 and abs(seen.diameter - 2 * np.sin(0.5)) < 1e-6


def test_a_run_that_overflows_is_failed_not_moving():
    X = np.array([[1.0, 0.0], [0.6, 0.8]])
    seen = observe_head(np.eye(2) * 1e200, np.eye(2) * 1e200, np.zeros((2, 2)), np.zeros((2, 2)), X, beta=1.0,
                        causal=False, horizon=1.0)
    assert seen.outcome == "failed" and seen.collapse_time is None and seen.to_json()["proof"] is False


def test_a_run_past_the_evaluation_limit_is_failed(monkeypatch):
    import verify._fate.head_observe as ho

    monkeypatch.setattr(ho, "MAX_EVALUATIONS", 40)
    X = np.array([[1.0, 0.2, 0.0], [0.3, 1.0, 0.1], [0.5, -0.4, 1.0]])
    assert ho.observe_head(*_identity_head(3), X, beta=1.0, causal=False).outcome == "failed"


def _map(observed):
    heads = (HeadFate(0, 0, "consensus", "projective contraction: ...", 3, {}, 0.0, observed[0]),
             HeadFate(0, 1, "unknown", "the eigenvalue of U of largest modulus is complex (1+1j)", 3, {}, 0.0,
                      observed[1]))
    return HeadFateMap("toy", "full", ("a", "b"), heads, {"wall_time_s": 0.1}, {})


def test_an_observation_never_changes_a_fate_and_says_what_it_is():
    one = Observation("one cluster", 1, 1e-9, 1e-3, 12.5, 200.0)
    plain, seen = _map((None, None)), _map((one, one))
    assert (seen.certified, seen.share, seen.counts()) == (plain.certified, plain.share, plain.counts())
    payload = seen.to_json()
    assert payload["heads"][1]["fate"] == "unknown" and payload["heads"][1]["observed"]["proof"] is False
    assert payload["observed_counts"] == {"one cluster": 2, "clusters": 0, "moving": 0, "failed": 0,
                                          "one cluster, unknown fate": 1, "clusters, unknown fate": 0,
                                          "moving, unknown fate": 0, "failed, unknown fate": 0, "simulated": 2}
    assert "observed_counts" not in plain.to_json() and "observed" not in plain.to_json()["heads"][0]
    assert "not a proof" in seen.render() and "not a proof" not in plain.render()
    body = {"schema_version": "1", "kind": "fate", "verdict": "unknown", "scope": "heads", **payload}
    jsonschema.validate(json.loads(json.dumps(body)), json.loads(schema_path("fate").read_text()))


def test_certify_head_attaches_the_observation_only_when_asked():
    X = np.array([[1.0, 0.2, 0.0], [0.3, 1.0, 0.1], [0.5, -0.4, 1.0]])
    V, O, A, B = _identity_head(3)
    bare, _ = certify_head(V, 2 * O, X)
    seen, _ = certify_head(V, 2 * O, X, observe=(A, B, 1.0, False))
    assert bare.observed is None and seen.observed.outcome == "one cluster"
    assert (bare.fate, bare.reason) == (seen.fate, seen.reason)
