"""Plain-text rendering of audit reports and consensus results (returns strings; never prints)."""
from __future__ import annotations

from typing import Any

import numpy as np

from numerics.spread import show
from theorems.verdict import applicability


_MARK = {"holds": "HOLDS  ", "fails": "FAILS  ", "unknown": "UNKNOWN"}


def _worst_text(witness: dict) -> str:
    for key in ("worst", "smallest_gaps"):
        rows = witness.get(key)
        if rows:
            return ", ".join(f"L{r['layer']}H{r['head']}={r['value']:.3g}" for r in rows[:3])
    return ""


def render_audit(report: Any) -> str:
    """The console text of an :class:`~llm_checks.audit.AuditReport` (its ``render()``; no import back)."""
    lay = report.layout
    prov = report.provenance
    lines = [
        f"audit of {prov['model']} ({prov['source']}, {prov['dtype']})",
        f"  {lay['architecture']}: {lay['n_layers']} layers x {lay['n_heads']} heads (kv {lay['n_kv_heads']}), "
        f"D={lay['d_model']}, d_head={lay['d_head']}, mask {lay['mask']}"
        + (f" (local windows on layers {sorted(int(k) for k in lay['local_windows'])})" if lay["local_windows"] else "")
        + f", {lay['norm']}, {lay['positions']} positions, temperature {lay['temperature'][0]:.4g}",
    ]
    lines += [f"  note: {n}" for n in lay["notes"]]
    h, l = report.measurements.heads, report.measurements.layers
    lines.append("")
    lines.append(" layer   max p   max dP   med|U-I|  max skew  min skew  top>0  LN spread  q-bias   v-drift")
    for k in range(h["p"].shape[0]):
        lines.append(
            f" {k:5d} {h['p'][k].max():8.3g} {h['P_step'][k].max():8.3g} {np.median(h['U_dist_identity'][k]):9.3g} "
            f"{h['U_skew_share'][k].max():9.3g} {h['U_skew_share'][k].min():9.3g} {int(np.sum(h['U_top'][k] > 0)):4d}/{h['p'].shape[1]:<2d}"
            f"{l['ln_spread'][k]:9.3g} {l['query_bias'][k]:9.3g} {l['value_bias_drift'][k]:9.3g}"
        )
    for theorem in report.theorems:
        lines.append("")
        lines.append(f"theorem {theorem.id}: {applicability(theorem.status).upper().replace('_', ' ')}  ({theorem.title})")
        for group, verdicts in (("hypothesis", theorem.hypotheses), ("model form", theorem.model_form)):
            for v in verdicts:
                lines.append(f"  {_MARK[v.status.value]} {group:10s} {v.name}: {v.reason}")
                worst = _worst_text(dict(v.witness))
                if worst and v.status.value != "holds":
                    lines.append(f"{'':22s} worst: {worst}")
        failing = [v.name for v in theorem.failing()]
        if failing:
            lines.append(f"  failing: {', '.join(failing)}")
    wl = report.weights_lemma
    if wl:
        p_ln = h["p"].max()
        lines.append("")
        lines.append(f"scale of P: max ||P||_2 = {p_ln:.4g} on LN-normalized tokens (length sqrt(D)), "
                     f"{h['p_sphere'].max():.4g} on the unit sphere (x D = {wl['D']}); the weights lemma below uses the unit sphere")
        lines.append(f"weights lemma: exp(-2 p)/|M(i)| <= a^h_ij <= exp(2 p)/|M(i)| with p = D ||P^h||_2 + query-bias term "
                     f"<= {wl['p_lemma_max']:.4g} (per layer and head in the JSON, weights_lemma.p_lemma)")
    if report.hemisphere:
        first = [r for r in report.hemisphere if r.layer == 0]
        lines.append("")
        lines.append("hemisphere margins at the input (per prompt): " + ", ".join(f"{r.result.margin:.3g}" for r in first))
    s = report.seconds
    lines.append(f"time: measure {s['measure']:.2f} s, hemisphere {s['hemisphere']:.2f} s, total {s['total']:.2f} s")
    return "\n".join(lines)


def render_consensus(result: Any) -> str:
    """The console text of a :class:`~llm_checks.consensus.ConsensusResult` (its ``render()``)."""
    o = result.options
    p = result.provenance
    prompts = f"{o.prompts} prompts x {o.tokens} random tokens (seed {o.seed})" if o.prompts_source == "random" else \
        f"{o.prompts} prompts (up to {o.tokens} tokens) from {o.prompts_source}"
    anchor = {"first": "token 1", "mean": "mean token"}.get(o.anchor, f"token {o.anchor}") if isinstance(o.anchor, str) else f"token {o.anchor}"
    lines = [
        f"consensus of {p['model']} ({p['source']}), {p['dtype']} on {p['device']}",
        f"  {prompts}, {o.passes} passes x {result.n_blocks} blocks, "
        f"feedforward {'kept' if o.ffn else 'removed'}, weights {o.weights_mode}",
        f"  metrics on the {'final-normed' if o.final_ln else 'raw'} states{', mean-centred' if o.center else ''}; anchor {anchor}"
        + (" (BERT has no final norm: every block ends in a LayerNorm)" if o.final_ln and p.get("family") == "bert" else ""),
        f"  median over the {o.prompts} prompts, band: 10%-90% of prompts (clipped to the metric's range)",
        f"  {'metric':12s} {'after block 1':>14s} {'final median':>14s}   final band",
    ]
    for name, row in result.summary().items():
        lo, hi = row["final_band"]
        raw = row.get("final_raw_min")
        lines.append(f"  {name:12s} {row['first_block_median']:14.6g} {show(row['final_median'], raw):>14s}   "
                     f"[{show(lo, raw)}, {hi:.6g}]")
    if result.embedded is not None:
        lines.append("  on the embeddings, before block 1 (median): " + ", ".join(
            f"{name} {show(float(np.median(np.clip(v, 0, None))), float(v.min()))}" for name, v in result.embedded.items()))
    if result.drift:
        d = result.drift
        lines.append(f"  {d['dtype']} against float32 ({d['prompts']} prompts): max |dE_first| {d['max_abs_diff']['E_first']:.3g}, "
                     f"at the last block {d['final_block']['E_first']:.3g}")
    lines.append(f"time: {result.seconds:.1f} s")
    return "\n".join(lines)
