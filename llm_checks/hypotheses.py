"""Each hypothesis of the paper's theorems, evaluated on a measured model (three-valued).

Rules: a float measurement can make a hypothesis *fail* (a deviation far above rounding is a
deviation of the model's own float weights) but never *hold*, except where holding does not
depend on rounding: an architecture fact (mask type, number of heads), exact equality of the
stored weights, or boundedness of finitely many finite matrices.  Witnesses name the worst layers
and heads with the measured deviation.  Several checks are exact for a structural reason:
``U^h = V^h O^h`` has rank ``<= d_head``, so ``U^h = I`` is impossible when ``d_head < D``, and the
eigenvalue 0 of ``U^h`` then has multiplicity ``>= D - d_head``.

Model-form hypotheses (the setting of docs/model.md §1, implicit in every theorem): scores are the bilinear
form ``beta <x_i, P x_j>`` (fails under RoPE or with an effective query bias), tokens live on a
sphere (Claim LN1: all normalization scales equal), and there is no feedforward path.
"""
from __future__ import annotations

import numpy as np

from theorems.verdict import Verdict, fails, holds, unknown

from .layout import ModelLayout
from .measure import Measurements

TOP = 5


def worst(table: np.ndarray, n: int = TOP, largest: bool = True) -> list[dict]:
    """The ``n`` most extreme ``(layer, head, value)`` entries of an ``(L, H)`` table."""
    flat = table.ravel()
    order = np.argsort(-flat if largest else flat, kind="stable")[:n]
    H = table.shape[1]
    return [{"layer": int(i // H), "head": int(i % H), "value": float(flat[i])} for i in order]


def mask_full(layout: ModelLayout, n_tokens: int | None) -> Verdict:
    if layout.mask == "full":
        return holds("mask_full", f"{layout.architecture} uses full (bidirectional) attention", {"mask": "full"})
    return fails("mask_full", f"{layout.architecture} uses a {layout.mask} mask, not full attention", {"mask": layout.mask})


def mask_causal(layout: ModelLayout, n_tokens: int | None) -> Verdict:
    if layout.mask != "causal":
        return fails("mask_causal", f"{layout.architecture} uses a {layout.mask} mask, not causal", {"mask": layout.mask})
    local = {l.index: l.window for l in layout.layers if l.window is not None}
    if not local:
        return holds("mask_causal", "every layer attends to {1..i} (causal)", {"mask": "causal"})
    smallest = min(local.values())
    witness = {"local_layers": sorted(local), "window": smallest, "n_tokens": n_tokens}
    if n_tokens is not None and n_tokens <= smallest:
        return holds("mask_causal", f"local layers see the last {smallest} tokens, which for {n_tokens} tokens is all of {{1..i}}", witness)
    return fails("mask_causal", f"layers {sorted(local)} attend only to the last {smallest} tokens: M(i) != {{1..i}} for i > {smallest}", witness)


def dim_at_least_2(layout: ModelLayout, m: Measurements) -> Verdict:
    """Theorem 4.2 needs ``d >= 2``; a model's tokens live in ``R^D`` with ``D = d_model``."""
    witness = {"d": layout.d_model}
    if layout.d_model >= 2:
        return holds("dim_at_least_2", f"D = {layout.d_model} >= 2", witness)
    return fails("dim_at_least_2", f"D = {layout.d_model} < 2: on S^0 every start is an equilibrium", witness)


def one_head(layout: ModelLayout, m: Measurements) -> Verdict:
    witness = {"heads": layout.n_heads}
    if layout.n_heads == 1:
        return holds("one_head", "one head per layer", witness)
    return fails("one_head", f"{layout.n_heads} heads per layer (Assumption 4.4 is stated for H = 1)", witness)


def U_identity(layout: ModelLayout, m: Measurements) -> Verdict:
    dist = m.heads["U_dist_identity"]
    witness = {"measure": "||U - I||_F / sqrt(D)", "worst": worst(dist), "median": float(np.median(dist))}
    if layout.d_head < layout.d_model:
        witness["rank_bound"] = {"d_head": layout.d_head, "D": layout.d_model}
        return fails("U_identity", f"rank(U^h) <= d_head = {layout.d_head} < D = {layout.d_model}, so U^h != I in every head; "
                     f"worst relative distance {dist.max():.3g}", witness)
    proven = int(m.layers["exact_U_identity_heads"].sum())
    unresolved = int(m.layers["unresolved_U_identity_heads"].sum())
    if proven == dist.size:
        return holds("U_identity", "every U^h equals I exactly (rational check of the stored weights)", witness)
    if proven + unresolved == dist.size:
        return unknown("U_identity", f"{unresolved} heads too large for the exact check", witness, exact=False)
    return fails("U_identity", f"{dist.size - proven - unresolved} heads have U^h != I exactly (worst measured relative "
                 f"distance {dist.max():.3g})", witness)


def U_symmetric(layout: ModelLayout, m: Measurements) -> Verdict:
    share = m.heads["U_skew_share"]
    exact_sym = int(m.layers["exact_U_symmetric_heads"].sum())
    unresolved = int(m.layers["unresolved_U_symmetric_heads"].sum())
    total = share.size
    witness = {"measure": "||U - U^T||_F / (2 ||U||_F)", "worst": worst(share), "min": float(share.min()),
               "median": float(np.median(share)), "exactly_symmetric_heads": exact_sym}
    if exact_sym == total:
        return holds("U_symmetric", "every U^h is exactly symmetric (rational check of the stored weights)", witness)
    if exact_sym + unresolved == total:
        return unknown("U_symmetric", f"{unresolved} heads look symmetric in floats but are too large for the exact check",
                       witness, exact=False)
    return fails("U_symmetric", f"{total - exact_sym} of {total} heads are not symmetric; antisymmetric share up to "
                 f"{share.max():.3g} (median {np.median(share):.3g})", witness, exact=False)


def U_time_invariant(layout: ModelLayout, m: Measurements) -> Verdict:
    step = m.heads["U_step"]
    witness = {"measure": "||U_{k+1} - U_k||_F / max ||U||_F (periodic)", "worst": worst(step), "median": float(np.median(step))}
    if layout.n_layers == 1:
        return holds("U_time_invariant", "a single layer re-fed: U is the same at every depth", witness)
    same = all(
        np.array_equal(layout.layers[k].W_V, layout.layers[0].W_V) and np.array_equal(layout.layers[k].W_O, layout.layers[0].W_O)
        and np.array_equal(layout.layers[k].norm_scale, layout.layers[0].norm_scale)
        for k in range(1, layout.n_layers)
    )
    if same:
        return holds("U_time_invariant", "value and output weights are identical in every layer", witness)
    if step.max() > 0:
        return fails("U_time_invariant", f"U^h changes from layer to layer (relative change up to {step.max():.3g})", witness, exact=False)
    return unknown("U_time_invariant", "weights differ but the products measure equal in floats", witness, exact=False)


def U_simple_top_eigenvalue(layout: ModelLayout, m: Measurements) -> Verdict:
    zero_top = m.heads["U_zero_top"].astype(bool)
    complex_top = ~m.heads["U_top_real_flag"].astype(bool)
    gap = m.heads["U_gap"]
    witness = {
        "top_eigenvalue": worst(m.heads["U_top"]),
        "smallest_gaps": worst(gap, largest=False),
        "heads_top_is_repeated_zero": int(zero_top.sum()),
        "heads_top_is_complex_pair": int(complex_top.sum()),
        "heads_top_negative_sign": int(np.sum(m.heads["U_top"] < 0)),
    }
    if zero_top.any():
        where = np.argwhere(zero_top)[:TOP].tolist()
        return fails("U_simple_top_eigenvalue", f"{int(zero_top.sum())} heads have no eigenvalue with positive real part: the top "
                     f"eigenvalue is 0 with multiplicity >= D - d_head = {layout.d_model - layout.d_head} (e.g. layer/head {where}); "
                     f"{int(complex_top.sum())} heads have a complex pair on top (gap 0)",
                     witness, exact=False)
    if complex_top.any():
        return fails("U_simple_top_eigenvalue", f"{int(complex_top.sum())} heads have a complex-conjugate pair as top eigenvalue "
                     "(no simple real top eigenvalue)", witness, exact=False)
    return unknown("U_simple_top_eigenvalue", f"every head has a real top eigenvalue with measured gap >= {gap.min():.3g}; "
                   "simplicity is not certified from float data", witness, exact=False)


def P_bounded(layout: ModelLayout, m: Measurements) -> Verdict:
    p = m.heads["p"]
    sphere = m.heads["p_sphere"]
    witness = {"p": float(p.max()), "worst": worst(p), "median": float(np.median(p)),
               "folded": "temperature and LN scale folded into P",
               "scale": "p: P on the normalized token before its scale (length sqrt(D)); p_sphere = D p: P on the paper's unit sphere",
               "p_sphere": float(sphere.max()), "worst_sphere": worst(sphere), "D": layout.d_model}
    if m.first_pass_layer0 is not None:
        witness["p_first_pass_only"] = float(max(m.first_pass_layer0["p"].max(), p[1:].max() if p.shape[0] > 1 else 0.0))
    reason = (f"finitely many layers (periodic re-feeding): sup ||P^h(t)||_2 = max over layers and heads = {p.max():.4g} "
              f"on LN-normalized tokens (length sqrt(D)), {sphere.max():.4g} on the unit sphere (x D = {layout.d_model})")
    if layout.positions == "rope":
        reason += "; under RoPE ||P(offset)||_2 <= ||A||_2 ||B||_2 for every offset, still finite"
    return holds("P_bounded", reason, witness, exact=False)


def P_uniformly_continuous(layout: ModelLayout, m: Measurements) -> Verdict:
    step = m.heads["P_step"]
    witness = {"lipschitz": float(step.max()), "worst": worst(step), "median": float(np.median(step)),
               "interpolation": "piecewise linear in depth, one block per unit time, periodic (re-feeding)"}
    reason = (f"the periodic piecewise-linear interpolation is Lipschitz with constant "
              f"max_k ||P_(k+1) - P_k||_2 = {step.max():.4g}")
    if layout.positions == "rope":
        reason += " (offset-0 P under RoPE; other offsets are not measured)"
    return holds("P_uniformly_continuous", reason, witness, exact=False)


def scores_bilinear(layout: ModelLayout, m: Measurements) -> Verdict:
    qb = m.layers["query_bias"]
    witness = {"positions": layout.positions, "effective_query_bias_norm": worst(qb[:, None], n=3)}
    if layout.positions == "rope":
        return fails("scores_bilinear", "rotary positions: the score is x_i P(j - i) x_j, not one bilinear form", witness)
    if np.any(qb != 0):
        return fails("scores_bilinear", f"effective query bias b_ln W_Q + b_Q is nonzero (up to {qb.max():.3g} times beta): the "
                     "scores gain a key-dependent linear term", witness)
    return holds("scores_bilinear", "no rotary positions and no effective query bias: scores are beta <x_i, P x_j>", witness)


def tokens_on_sphere(layout: ModelLayout, m: Measurements) -> Verdict:
    spread = m.layers["ln_spread"]
    witness = {"norm": layout.norm, "relative_spread": worst(spread[:, None], n=3), "equal_layers": int(m.layers["ln_equal"].sum())}
    if np.all(m.layers["ln_equal"] == 1):
        shape = "sphere in the hyperplane orthogonal to 1" if layout.norm == "layernorm" else "sphere (RMSNorm: no centring)"
        return holds("tokens_on_sphere", f"all normalization scales equal in every layer: Claim LN1, the normalization projects onto a {shape}", witness)
    return fails("tokens_on_sphere", f"normalization scales are not all equal (relative spread up to {spread.max():.3g}): "
                 "the image is an ellipsoid and Claim LN1 does not apply", witness)


def no_feedforward(layout: ModelLayout, m: Measurements) -> Verdict:
    if layout.has_feedforward:
        return fails("no_feedforward", "the model has feedforward (MLP) blocks, which lie outside the theory; "
                     "`verify consensus --no-ffn` removes them", {"feedforward": True})
    return holds("no_feedforward", "no feedforward blocks", {"feedforward": False})


def hemisphere(per_layer: list | None, d_model: int | None = None) -> Verdict:
    """Theorem 3.2's initial condition from per-layer, per-prompt results (``HemisphereLayer``).

    Holds when, for every prompt, the tokens are in an open hemisphere at some depth (forward
    invariance makes a later entry enough); the witness names the first such layer per prompt.
    """
    if not per_layer:
        return unknown("open_hemisphere", "no token states were given (pass prompts to the audit)", exact=False)
    prompts = sorted({r.prompt for r in per_layer})
    first = {}
    for prompt in prompts:
        rows = sorted((r for r in per_layer if r.prompt == prompt), key=lambda r: r.layer)
        first[prompt] = next((r.layer for r in rows if r.result.verdict.holds), None)
    margins = [{"prompt": r.prompt, "layer": r.layer, "margin": r.result.margin} for r in per_layer if r.layer == 0]
    witness = {"first_layer_in_hemisphere": {str(k): v for k, v in first.items()}, "margins_at_input": margins}
    if all(v is not None for v in first.values()):
        n_tokens = max(r.result.verdict.witness.get("n_tokens", 0) for r in per_layer)
        trivial = d_model is not None and n_tokens <= d_model
        witness["trivial"] = trivial
        note = (f"; this holds trivially: N = {n_tokens} <= D = {d_model} generic (linearly independent) tokens always lie "
                "in an open hemisphere, so it says nothing about these weights" if trivial else "")
        return holds("open_hemisphere", f"for each of {len(prompts)} prompts the token states enter an open hemisphere (margin "
                     "re-checked from the LP's z)" + note, witness, exact=False)
    missing = [k for k, v in first.items() if v is None]
    if any(r.result.verdict.status.value == "unknown" for r in per_layer if r.prompt in missing):
        return unknown("open_hemisphere", f"prompts {missing}: no layer with a certified margin", witness, exact=False)
    return fails("open_hemisphere", f"prompts {missing}: no layer has its tokens in an open hemisphere", witness, exact=False)
