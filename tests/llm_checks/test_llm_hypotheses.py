"""Hypothesis verdicts on synthetic layouts: every path, and floats never rounding into 'holds'."""
from __future__ import annotations

import numpy as np
import pytest

from theorems.verdict import Status
from llm_checks.audit import THEOREMS, evaluate
from llm_checks.measured_hemisphere import measured_hemisphere
from llm_checks.layout import LayerAttention, ModelLayout
from llm_checks.measure import measure


def _verdicts(layout, theorem, n_tokens=None):
    m = measure(layout)
    (result,) = evaluate(layout, m, [THEOREMS[theorem]], (), n_tokens)
    return result, {v.name: v for v in result.hypotheses + result.model_form}


def test_one_symmetric_time_invariant_head_passes_the_structural_4_4_checks(make_layout):
    layout = make_layout(n_layers=3, n_heads=1, D=6, dh=3, symmetric=True, same_layers=True)
    result, v = _verdicts(layout, "4.4-sym")
    assert v["one_head"].status is Status.HOLDS
    assert v["U_symmetric"].status is Status.HOLDS
    assert v["U_time_invariant"].status is Status.HOLDS
    assert v["mask_causal"].status is Status.HOLDS
    # d_head < D: eigenvalue 0 of U = V V^T is repeated, but V V^T is PSD with a positive top
    # eigenvalue, so the top is real and positive; simplicity is never certified from floats
    assert v["U_simple_top_eigenvalue"].status is Status.UNKNOWN
    assert result.status is Status.UNKNOWN


def test_random_heads_fail_with_worst_offenders_named(make_layout):
    layout = make_layout(n_layers=3, n_heads=2, D=8, dh=2, seed=3)
    result, v = _verdicts(layout, "4.4-sym")
    assert result.status is Status.FAILS
    assert v["one_head"].status is Status.FAILS
    sym = v["U_symmetric"]
    assert sym.status is Status.FAILS and not sym.exact
    worst = sym.witness["worst"]
    assert len(worst) == 5 and 0.05 < worst[0]["value"] <= 1.0
    assert worst[0]["value"] == pytest.approx(measure(layout).heads["U_skew_share"].max(), rel=1e-12)
    assert v["U_time_invariant"].status is Status.FAILS


def test_identity_values_hold_only_when_exact(make_layout):
    exact = make_layout(n_layers=2, n_heads=1, D=4, identity=True)
    _, v = _verdicts(exact, "4.2")
    assert v["U_identity"].status is Status.HOLDS
    # a perturbation at rounding level must not round into "holds"
    layer = exact.layers[0]
    W_V = layer.W_V.copy()
    W_V[0, 0, 1] = 1e-15
    perturbed = ModelLayout("synthetic", (LayerAttention(0, layer.W_Q, layer.W_K, W_V, layer.W_O, None, None, None, None,
                                                         layer.norm_scale, None, layer.temperature),) + exact.layers[1:],
                            "causal", "layernorm", "absolute", True, has_feedforward=False)
    _, v = _verdicts(perturbed, "4.2")
    # the float distance cancels to ~0; the rational check still sees the 1e-15 entry
    assert v["U_identity"].status is Status.FAILS and v["U_identity"].exact


def test_rank_argument_makes_U_identity_fail_exactly(make_layout):
    _, v = _verdicts(make_layout(n_layers=1, n_heads=1, D=6, dh=2), "4.2")
    assert v["U_identity"].status is Status.FAILS and v["U_identity"].exact
    assert v["U_identity"].witness["rank_bound"] == {"d_head": 2, "D": 6}


def test_near_symmetric_float_is_not_called_symmetric(make_layout):
    layout = make_layout(n_layers=1, n_heads=1, D=6, dh=3, symmetric=True)
    layer = layout.layers[0]
    W_O = layer.W_O.copy()
    W_O[0, 0, 0] += 1e-12
    bent = ModelLayout("synthetic", (LayerAttention(0, layer.W_Q, layer.W_K, layer.W_V, W_O, None, None, None, None,
                                                    layer.norm_scale, None, layer.temperature),),
                       "causal", "layernorm", "absolute", True, has_feedforward=False)
    _, v = _verdicts(bent, "4.4-sym")
    # the float share cancels to ~0 (< 1e-9); the rational check still sees the asymmetry
    assert v["U_symmetric"].status is Status.FAILS
    assert 0 <= v["U_symmetric"].witness["worst"][0]["value"] < 1e-9
    assert v["U_symmetric"].witness["exactly_symmetric_heads"] == 0


def test_unequal_norm_scales_fail_LN1_and_equal_ones_hold(make_layout):
    _, v = _verdicts(make_layout(norm_scale=[1, 1, 1, 1, 1, 1.0000001]), "4.2")
    assert v["tokens_on_sphere"].status is Status.FAILS
    spread = v["tokens_on_sphere"].witness["relative_spread"][0]["value"]
    assert spread == pytest.approx(1e-7, rel=1e-3)
    _, v = _verdicts(make_layout(norm_scale=[2.0] * 6), "4.2")
    assert v["tokens_on_sphere"].status is Status.HOLDS


def test_masks_and_local_windows(make_layout):
    full = make_layout(mask="full")
    _, v = _verdicts(full, "3.2")
    assert v["mask_full"].status is Status.HOLDS
    assert v["open_hemisphere"].status is Status.UNKNOWN  # no token states given
    _, v = _verdicts(full, "4.2")
    assert v["mask_causal"].status is Status.FAILS
    base = make_layout(n_layers=2)
    local = ModelLayout("synthetic", (base.layers[0], LayerAttention(**{**base.layers[1].__dict__, "window": 4})),
                        "causal", "layernorm", "absolute", True)
    _, v = _verdicts(local, "4.2", n_tokens=10)
    assert v["mask_causal"].status is Status.FAILS and v["mask_causal"].witness["local_layers"] == [1]
    _, v = _verdicts(local, "4.2", n_tokens=4)
    assert v["mask_causal"].status is Status.HOLDS
    assert v["no_feedforward"].status is Status.FAILS


def test_hemisphere_margin_holds_and_fails():
    rng = np.random.default_rng(0)
    inside = np.abs(rng.normal(size=(30, 4))) + 0.1
    r = measured_hemisphere(inside)
    assert r.verdict.status is Status.HOLDS and r.margin > 0
    # re-check the witness independently: some z with min <z, x_i/|x_i|> equal to the margin
    X = np.vstack([inside[:3], -inside[:3]])
    r = measured_hemisphere(X)
    assert r.verdict.status is Status.FAILS
    assert r.verdict.witness["farkas_residual"] <= 1e-9
    with pytest.raises(Exception):
        measured_hemisphere(np.zeros((3, 2)))
