"""The float64 field against the formula written out in arbitrary precision, and its structure."""
from __future__ import annotations

import numpy as np
import pytest

from numerics.field import BatchedField, attention_field
from numerics.field_mp import field_mp
from theorems.errors import InvalidInput


@pytest.mark.parametrize("mask", ["full", "causal"])
@pytest.mark.parametrize("U", ["identity", "random"])
def test_float_field_matches_mp_reference(make_system, mask, U):
    s = make_system(3, 5, 4, mask=mask, U=U, scale=2.0)
    F = BatchedField.of(s)(np.zeros(1), s.tokens[None])[0]
    ref = np.array(field_mp(s, s.tokens.tolist(), 0.0, prec=120), dtype=float)
    assert np.max(np.abs(ref)) > 1e-3  # the comparison is not between two zeros
    np.testing.assert_allclose(F, ref, rtol=0, atol=1e-14)


def test_field_is_tangent_and_batched_equals_single(make_system):
    systems = [make_system(k, 6, 3, U="random") for k in range(4)]
    batch = BatchedField.of(systems)
    X = batch.initial_state()
    F = batch(np.zeros(4), X)
    assert np.max(np.abs(np.sum(F * X, axis=-1))) < 1e-14
    for k, s in enumerate(systems):
        single = BatchedField.of(s)(np.zeros(1), s.tokens[None])[0]
        np.testing.assert_allclose(F[k], single, rtol=0, atol=1e-15)


def test_stabilised_and_plain_softmax_agree(make_system):
    s = make_system(1, 7, 3, scale=3.0)
    X = s.tokens[None]
    P = s.P_at(0.0)[None]
    a = attention_field(X, P, None, np.array([1.0]), False, stabilize=True)
    b = attention_field(X, P, None, np.array([1.0]), False, stabilize=False)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-14)


def test_first_causal_token_has_zero_velocity_with_identity_U(make_system):
    s = make_system(2, 5, 3, mask="causal", scale=2.0)
    F = BatchedField.of(s)(np.zeros(1), s.tokens[None])[0]
    assert np.max(np.abs(F[0])) < 1e-15
    assert np.max(np.abs(F[1:])) > 1e-3


def test_batch_of_different_shapes_is_rejected(make_system):
    with pytest.raises(InvalidInput, match="systems\\[1\\]"):
        BatchedField.of([make_system(0, 4, 3), make_system(0, 5, 3)])
