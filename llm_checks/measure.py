"""Per-layer, per-head measurements of ``P`` and ``U`` from a :class:`ModelLayout`.

The table holds, for every layer ``k`` and head ``h`` (arrays of shape ``(L, H)``):

- ``p``: ``||P_k^h||_2`` (LN scale and temperature folded in; offset-0 form under RoPE);
- ``P_step``: ``||P_{k+1}^h - P_k^h||_2`` with ``P_L := P_0`` for the last row (re-feeding makes
  depth periodic), so ``max P_step`` is the Lipschitz constant of the piecewise-linear periodic
  interpolation ``t -> P^h(t)`` with one block per unit of time;
- ``U_norm``, ``U_dist_identity`` (``||U - I||_F / sqrt(D)``), ``U_dist_identity_2``,
  ``U_skew_share``, ``U_top``, ``U_top_imag``, ``U_gap``, ``U_top_real_flag``, ``U_zero_top``
  (see :class:`llm_checks.factors.ValueStats`);
- ``U_step``: relative Frobenius change of ``U^h`` to the next layer (periodic as ``P_step``);
- the scale of ``P`` on the paper's unit sphere.  ``P`` above acts on the normalized token *before*
  its scale ``g``, whose length is ``sqrt(D)`` (LayerNorm: ``|(y - mean)/std| = sqrt(D)``;
  RMSNorm: ``|y/rms(y)| = sqrt(D)``; the ``eps`` only shortens it).  Writing it ``sqrt(D) u`` with
  ``u`` a unit vector, the score is ``D <u_i, P u_j>``: on the unit sphere the bilinear form is
  ``P_sphere = D P``, so ``p_sphere = D p`` (under RoPE ``D ||A||_2 ||B||_2``, a bound for every
  offset).  ``score_bias = sqrt(D) beta |b_ln W_Q + b_Q| ||diag(g) W_K||_2`` bounds the
  key-dependent score term of the effective query bias, and ``p_lemma = p_sphere + score_bias``
  bounds ``|score_ij - c_i|`` for every key ``j``, so the weights lemma gives
  ``exp(-2 p_lemma)/|M(i)| <= a_ij <= exp(2 p_lemma)/|M(i)|`` for the real attention weights.

Re-feeding post-LN models (BERT): from pass 2 on, layer 0 folds in the last layer's output
LayerNorm (``layout.refeed_layer0``).  ``p``, ``p_sphere``, ``score_bias`` and ``p_lemma`` of layer
0 are the maximum over both versions; ``P_step`` of the last layer is the wrap to the pass-2 layer
0 and ``P_step`` of layer 0 the larger of its two steps.  ``first_pass_layer0`` keeps the pass-1
values.  (``U`` statistics of layer 0 are those of pass 1.)

Per layer: the normalization's relative scale spread ``(max g - min g) / mean |g|`` and whether
all scales are exactly equal (Claim LN1), bias norms (effective query bias ``b_ln W_Q + b_Q``,
which breaks the bilinear form of the scores; ``b_K`` only shifts each row of scores and cancels
in the softmax; effective value bias ``(b_ln W_V + b_V) W_O + b_O``, a constant drift).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass


import numpy as np

from numerics.support.progress import Progress

from . import factors as F
from .layout import ModelLayout

log = logging.getLogger(__name__)

HEAD_FIELDS = (
    "p", "P_step", "U_norm", "U_dist_identity", "U_dist_identity_2", "U_skew_share",
    "U_top", "U_top_imag", "U_gap", "U_top_real_flag", "U_zero_top", "U_step",
    "p_sphere", "score_bias", "p_lemma",
)
LAYER_FIELDS = (
    "ln_spread", "ln_equal", "ln_mean", "query_bias", "key_bias", "value_bias_drift", "exact_U_symmetric_heads",
    "exact_U_identity_heads", "unresolved_U_symmetric_heads", "unresolved_U_identity_heads",
)


@dataclass(frozen=True)
class Measurements:
    """Float64 tables: ``heads[name]`` is ``(L, H)``, ``layers[name]`` is ``(L,)``."""

    heads: dict
    layers: dict
    seconds: float
    first_pass_layer0: dict | None = None


def _layer_facts(layout: ModelLayout, k: int) -> dict:
    layer = layout.layers[k]
    g = np.asarray(layer.norm_scale, dtype=np.float64)
    b = None if layer.norm_shift is None else np.asarray(layer.norm_shift, dtype=np.float64)
    kv = np.array([layer.kv_index(h) for h in range(layer.n_heads)])
    W_Q = np.asarray(layer.W_Q, dtype=np.float64)
    W_V = np.asarray(layer.W_V, dtype=np.float64)[kv]
    q_bias = np.zeros((layer.n_heads, layer.d_head)) if layer.b_Q is None else np.asarray(layer.b_Q, dtype=np.float64).copy()
    v_bias = np.zeros((layer.n_heads, layer.d_head)) if layer.b_V is None else np.asarray(layer.b_V, dtype=np.float64)[kv].copy()
    if b is not None:
        q_bias += np.einsum("d,hde->he", b, W_Q)
        v_bias += np.einsum("d,hde->he", b, W_V)
    drift = np.einsum("he,hed->d", v_bias, np.asarray(layer.W_O, dtype=np.float64))
    if layer.b_O is not None:
        drift = drift + np.asarray(layer.b_O, dtype=np.float64)
    mean_abs = float(np.mean(np.abs(g)))
    return {
        "ln_spread": float((g.max() - g.min()) / mean_abs) if mean_abs > 0 else float("inf"),
        "ln_equal": float(bool(np.all(g == g[0]) and g[0] != 0)),
        "ln_mean": float(np.mean(g)),
        "query_bias": float(np.linalg.norm(q_bias)) * layer.temperature,
        "key_bias": 0.0 if layer.b_K is None else float(np.linalg.norm(np.asarray(layer.b_K, dtype=np.float64))),
        "value_bias_drift": float(np.linalg.norm(drift)),
    }


def _exact_checks(layer, skew: np.ndarray) -> dict:
    """Exact (rational) symmetry and identity checks of ``U^h`` where floats cannot decide.

    Symmetry is tried only for heads whose float antisymmetric share is below 1e-6 (others are
    clearly not symmetric); identity only when ``d_head >= D`` (otherwise ``U != I`` by rank).
    Heads too large for exact arithmetic are counted as unresolved, never as holding.
    """
    out = {"exact_U_symmetric_heads": 0.0, "exact_U_identity_heads": 0.0,
           "unresolved_U_symmetric_heads": 0.0, "unresolved_U_identity_heads": 0.0}
    identity_candidates = range(layer.n_heads) if layer.d_head >= layer.d_model else ()
    for h in sorted(set(np.flatnonzero(skew < 1e-6).tolist()) | set(identity_candidates)):
        U = F.U_exact(layer, h)
        if U is None:
            if skew[h] < 1e-6:
                out["unresolved_U_symmetric_heads"] += 1
            if layer.d_head >= layer.d_model:
                out["unresolved_U_identity_heads"] += 1
            continue
        if skew[h] < 1e-6 and bool(np.all(U == U.T)):
            out["exact_U_symmetric_heads"] += 1
        if layer.d_head >= layer.d_model and bool(np.all(U == np.eye(layer.d_model, dtype=int))):
            out["exact_U_identity_heads"] += 1
    return out


def _lemma_terms(layout: ModelLayout, layer, f: F.LayerFactors, R: tuple | None = None) -> dict:
    """Per-head unit-sphere scale of ``P`` and the query-bias score term (module docstring);
    ``R``: the thin-QR triangles ``(R_A, R_B)`` when already computed."""
    D = layout.d_model
    R_A, R_B = R if R is not None else (F._r(f.A), F._r(f.B))
    B_norm = F._spectral(R_B)
    if layout.positions == "rope":
        base = F._spectral(R_A) * B_norm
    else:
        base = F._spectral(R_A @ np.swapaxes(R_B, -1, -2))
    q = np.zeros((layer.n_heads, layer.d_head)) if layer.b_Q is None else np.asarray(layer.b_Q, dtype=np.float64).copy()
    if layer.norm_shift is not None:
        q += np.einsum("d,hde->he", np.asarray(layer.norm_shift, dtype=np.float64), np.asarray(layer.W_Q, dtype=np.float64))
    bias = np.sqrt(D) * layer.temperature * np.linalg.norm(q, axis=1) * B_norm
    return {"p_sphere": D * base, "score_bias": bias, "p_lemma": D * base + bias}


def blas_single_thread():
    """Scoped: one BLAS thread (the one limiter, :func:`numerics.support.blas.single_threaded_blas`).  The
    per-head factors are small (``D x 2 d_head``); with two BLAS threads on a busy 2-core machine
    stacked QR/SVD ran 10-100x slower from contention."""
    from numerics.support.blas import single_threaded_blas

    return single_threaded_blas()


def measure(layout: ModelLayout, progress: Progress | None = None) -> Measurements:
    """Fill the head and layer tables (see module docstring); ``progress(layers done / L)`` per layer."""
    with blas_single_thread():
        return _measure(layout, progress)


def _measure(layout: ModelLayout, progress: Progress | None) -> Measurements:
    start = time.perf_counter()
    L, H = layout.n_layers, layout.n_heads
    heads = {name: np.zeros((L, H)) for name in HEAD_FIELDS}
    layers = {name: np.zeros(L) for name in LAYER_FIELDS}
    first = previous = F.layer_factors(layout.layers[0])
    for k in range(L):
        current = previous
        following = F.layer_factors(layout.layers[k + 1]) if k + 1 < L else first
        R = (F._r(current.A), F._r(current.B))  # shared by ||P|| and the unit-sphere terms
        heads["p"][k] = F._spectral(R[0] @ np.swapaxes(R[1], -1, -2))
        heads["P_step"][k] = F.P_differences(current, following) if L > 1 else 0.0
        heads["U_step"][k] = F.U_differences(current, following) if L > 1 else 0.0
        vs = F.value_stats(current)
        heads["U_norm"][k] = vs.norm_2
        heads["U_dist_identity"][k] = vs.dist_identity_fro
        heads["U_dist_identity_2"][k] = vs.dist_identity_2
        heads["U_skew_share"][k] = vs.skew_share
        heads["U_top"][k] = vs.top_real
        heads["U_top_imag"][k] = vs.top_imag
        heads["U_gap"][k] = vs.gap
        heads["U_top_real_flag"][k] = vs.top_is_real
        heads["U_zero_top"][k] = vs.top_multiple_zero
        for name, value in _lemma_terms(layout, layout.layers[k], current, R).items():
            heads[name][k] = value
        for name, value in _layer_facts(layout, k).items():
            layers[name][k] = value
        for name, value in _exact_checks(layout.layers[k], vs.skew_share).items():
            layers[name][k] = value
        previous = following
        if progress is not None:
            progress((k + 1) / L, f"layer {k + 1}/{L}")
        log.debug("measured layer %d/%d", k + 1, L)
    first_pass = None
    if layout.refeed_layer0 is not None:
        first_pass = {name: heads[name][0].copy() for name in ("p", "P_step", "p_sphere", "score_bias", "p_lemma")}
        again = F.layer_factors(layout.refeed_layer0)
        heads["p"][0] = np.maximum(heads["p"][0], F.P_norms(again))
        for name, value in _lemma_terms(layout, layout.refeed_layer0, again).items():
            heads[name][0] = np.maximum(heads[name][0], value)
        if L > 1:
            heads["P_step"][L - 1] = F.P_differences(F.layer_factors(layout.layers[L - 1]), again)
            heads["P_step"][0] = np.maximum(heads["P_step"][0], F.P_differences(again, F.layer_factors(layout.layers[1])))
    return Measurements(heads, layers, time.perf_counter() - start, first_pass)
