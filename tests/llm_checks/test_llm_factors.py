"""Factored P/U linear algebra against dense D x D oracles (numpy only, no torch needed)."""
from __future__ import annotations

import numpy as np
import pytest

from llm_checks import factors as F
from llm_checks.measure import measure


@pytest.mark.parametrize("seed", range(4))
def test_factored_quantities_match_dense(seed, make_layout):
    layout = make_layout(n_layers=2, n_heads=3, D=12, dh=4, seed=seed, norm_scale=np.linspace(0.5, 2.0, 12))
    f0, f1 = (F.layer_factors(l) for l in layout.layers)
    vs = F.value_stats(f0)
    P_norms, P_diff, U_diff = F.P_norms(f0), F.P_differences(f0, f1), F.U_differences(f0, f1)
    g = np.diag(layout.layers[0].norm_scale)
    checked = 0
    for h in range(3):
        layer = layout.layers[0]
        P = layer.temperature * g @ layer.W_Q[h] @ layer.W_K[h].T @ g  # definition, not the factors
        U = g @ layer.W_V[h] @ layer.W_O[h]
        D = U.shape[0]
        eig = np.linalg.eigvals(U)
        eig = eig[np.argsort(-eig.real)]
        assert np.linalg.norm(P, 2) == pytest.approx(P_norms[h], rel=1e-10)
        assert np.linalg.norm(U - U.T) / (2 * np.linalg.norm(U)) == pytest.approx(vs.skew_share[h], rel=1e-9)
        assert np.linalg.norm(U - np.eye(D)) / np.sqrt(D) == pytest.approx(vs.dist_identity_fro[h], rel=1e-10)
        assert np.linalg.norm(U - np.eye(D), 2) == pytest.approx(vs.dist_identity_2[h], rel=1e-10)
        assert np.linalg.norm(U, 2) == pytest.approx(vs.norm_2[h], rel=1e-10)
        assert eig[0].real == pytest.approx(vs.top_real[h], rel=1e-8, abs=1e-12)
        if not vs.top_multiple_zero[h]:
            assert eig[0].real - eig[1].real == pytest.approx(vs.gap[h], rel=1e-7, abs=1e-10)
        P1 = F.P_dense(f1, h)
        assert np.linalg.norm(P1 - F.P_dense(f0, h), 2) == pytest.approx(P_diff[h], rel=1e-9)
        U1 = F.U_dense(f1, h)
        assert np.linalg.norm(U1 - U) / max(np.linalg.norm(U), np.linalg.norm(U1)) == pytest.approx(U_diff[h], rel=1e-9)
        checked += 1
    assert checked == 3


def test_symmetric_U_has_zero_skew_share_and_exact_check(make_layout):
    layout = make_layout(n_layers=1, n_heads=2, D=8, dh=3, symmetric=True)
    m = measure(layout)
    assert np.all(m.heads["U_skew_share"] <= 1e-7)
    assert m.layers["exact_U_symmetric_heads"][0] == pytest.approx(2.0, abs=0)


def test_gqa_key_value_heads_are_shared():
    from llm_checks.layout import LayerAttention

    rng = np.random.default_rng(1)
    D, dh = 8, 2
    layer = LayerAttention(0, rng.normal(size=(4, D, dh)), rng.normal(size=(2, D, dh)), rng.normal(size=(2, D, dh)),
                           rng.normal(size=(4, dh, D)), None, None, None, None, np.ones(D), None, 0.5)
    f = F.layer_factors(layer)
    assert [layer.kv_index(h) for h in range(4)] == [0, 0, 1, 1]
    assert np.array_equal(f.B[1], layer.W_K[0]) and np.array_equal(f.B[2], layer.W_K[1])
