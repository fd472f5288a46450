"""Audit a model against the hypotheses of the paper's theorems (docs/model.md §2, §6).

``audit(loaded, prompts=...)`` adapts the model to the canonical layout, measures every layer and
head (:mod:`llm_checks.measure`), tests the open-hemisphere condition on the token states of the
given prompts at every depth (:mod:`llm_checks.hemisphere`) and returns an :class:`AuditReport`:
for each theorem id, one :class:`theorems.verdict.Verdict` per hypothesis with the worst layers and
heads and the measured deviations, combined in three-valued logic.  The report is data; rendering
is in :mod:`llm_checks.render`.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from theorems.catalogue import get as get_theorem
from theorems.errors import InvalidInput, UnknownName
from theorems.verdict import Status, Verdict, applicability, combine

from numerics.support.progress import Progress

from . import hypotheses as hyp
from .adapters import adapt
from .measured_hemisphere import HemisphereResult, measured_hemisphere
from .layout import ModelLayout
from .loaders import LoadedModel
from .measure import Measurements, measure

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TheoremSpec:
    """Which hypotheses of a theorem this audit checks, as read by this project (docs/model.md §2)."""

    id: str
    title: str
    hypotheses: tuple[str, ...]


AUDITED = ("3.2", "4.2", "4.4-sym")
"""The theorems whose hypotheses are read off model weights; hypotheses come from the catalogue."""


COVERED_BY_MODEL_FORM = {"equal_ln_scales": "tokens_on_sphere"}
"""Catalogue hypotheses that the audit reads as a model-form check (LN scales equal: LN1 applies)."""


def _spec(theorem_id: str) -> TheoremSpec:
    th = get_theorem(theorem_id)
    ids = tuple(h.id for h in th.hypotheses if h.id not in COVERED_BY_MODEL_FORM)
    return TheoremSpec(th.id, f"{th.kind.capitalize()} {th.id}: {th.title} ({th.setting})", ids)


THEOREMS: dict[str, TheoremSpec] = {tid: _spec(tid) for tid in AUDITED}
MODEL_FORM = ("scores_bilinear", "tokens_on_sphere", "no_feedforward")


@dataclass(frozen=True)
class HemisphereLayer:
    prompt: int
    layer: int
    result: HemisphereResult


@dataclass(frozen=True)
class TheoremAudit:
    id: str
    title: str
    status: Status
    hypotheses: tuple[Verdict, ...]
    model_form: tuple[Verdict, ...]

    def failing(self) -> list[Verdict]:
        return [v for v in self.hypotheses + self.model_form if v.status is Status.FAILS]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "verdict": applicability(self.status),
                "hypotheses": [v.to_json() for v in self.hypotheses],
                "model_form": [v.to_json() for v in self.model_form]}


@dataclass(frozen=True)
class AuditReport:
    provenance: dict
    layout: dict
    measurements: Measurements = field(repr=False)
    theorems: tuple[TheoremAudit, ...]
    hemisphere: tuple[HemisphereLayer, ...]
    seconds: dict
    weights_lemma: dict = field(default_factory=dict)

    @property
    def status(self) -> Status:
        return combine(t.status for t in self.theorems)

    def render(self) -> str:
        """The console text (:func:`llm_checks.render.render_audit`)."""
        from .render import render_audit
        return render_audit(self)

    def figure(self, ax: Any = None, *, title: str | None = None) -> Any:
        """The layer x head heatmaps (:func:`numerics.support.plot_layers.audit_heatmaps_figure`);
        ``ax``: a sequence of three Axes, one per panel."""
        from numerics.support.plot_layers import audit_heatmaps_figure
        return audit_heatmaps_figure(self.measurements.heads, int(self.layout["d_model"]), str(self.provenance.get("model")),
                                     ax=ax, title=title)

    def to_json(self, tables: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "provenance": self.provenance,
            "layout": self.layout,
            "verdict": applicability(self.status),
            "theorems": [t.to_json() for t in self.theorems],
            "hemisphere": [{"prompt": h.prompt, "layer": h.layer, "margin": h.result.margin,
                            "verdict": h.result.verdict.status.value} for h in self.hemisphere],
            "seconds": self.seconds,
            "weights_lemma": self.weights_lemma,
        }
        if tables:
            out["heads"] = {k: v.tolist() for k, v in self.measurements.heads.items()}
            out["layers"] = {k: v.tolist() for k, v in self.measurements.layers.items()}
        return out


def resolve_theorems(ids) -> tuple[TheoremSpec, ...]:
    if ids is None:
        return tuple(THEOREMS.values())
    if isinstance(ids, str):
        ids = (ids,)
    out = []
    for tid in ids:
        key = get_theorem(tid).id  # catalogue ids and aliases ("4.4" -> "4.4-sym"); unknown ids get close matches
        if key not in THEOREMS:
            raise UnknownName("theorem audited from weights", tid, THEOREMS)
        out.append(THEOREMS[key])
    return tuple(out)


def hemisphere_states(model, prompts: np.ndarray) -> list[np.ndarray]:
    """Token states per prompt at every depth: ``(L+1, N, D)`` from ``output_hidden_states``
    (index 0 the embedding output; the last entry has the final normalization applied)."""
    from ._deps import require_torch

    torch = require_torch()
    limit = getattr(model.config, "max_position_embeddings", None) or getattr(model.config, "n_positions", None)
    if limit is not None and np.shape(prompts)[-1] > int(limit):
        raise InvalidInput("tokens", f"at most {int(limit)} tokens per prompt (the model's learned positions)", np.shape(prompts)[-1])
    out = []
    device = next(model.parameters()).device
    with torch.no_grad():
        for row in prompts:
            ids = torch.as_tensor(row, dtype=torch.long, device=device)[None, :]
            hidden = model(input_ids=ids, output_hidden_states=True).hidden_states
            out.append(np.stack([h[0].double().cpu().numpy() for h in hidden]))
    return out


def _check_hemispheres(model, prompts) -> tuple[HemisphereLayer, ...]:
    rows = []
    for p, states in enumerate(hemisphere_states(model, prompts)):
        for layer, X in enumerate(states):
            rows.append(HemisphereLayer(p, layer, measured_hemisphere(X, name=f"hemisphere[prompt {p}, layer {layer}]")))
    return tuple(rows)


_CHECKS: dict[str, Callable] = {
    "one_head": hyp.one_head, "dim_at_least_2": hyp.dim_at_least_2, "U_identity": hyp.U_identity, "U_symmetric": hyp.U_symmetric,
    "U_time_invariant": hyp.U_time_invariant, "U_simple_top_eigenvalue": hyp.U_simple_top_eigenvalue,
    "P_bounded": hyp.P_bounded, "P_uniformly_continuous": hyp.P_uniformly_continuous,
    "scores_bilinear": hyp.scores_bilinear, "tokens_on_sphere": hyp.tokens_on_sphere, "no_feedforward": hyp.no_feedforward,
}


def evaluate(layout: ModelLayout, m: Measurements, specs, hemis, n_tokens: int | None) -> tuple[TheoremAudit, ...]:
    """The theorem table from measurements (pure; no model needed)."""
    cache: dict[str, Verdict] = {}

    def check(name: str) -> Verdict:
        if name not in cache:
            if name in ("mask_full", "mask_causal"):
                cache[name] = getattr(hyp, name)(layout, n_tokens)
            elif name == "open_hemisphere":
                cache[name] = hyp.hemisphere(list(hemis), layout.d_model)
            else:
                cache[name] = _CHECKS[name](layout, m)
        return cache[name]

    out = []
    for spec in specs:
        hypotheses = tuple(check(n) for n in spec.hypotheses)
        form = tuple(check(n) for n in MODEL_FORM)
        out.append(TheoremAudit(spec.id, spec.title, combine(v.status for v in hypotheses + form), hypotheses, form))
    return tuple(out)


def audit(
    loaded: LoadedModel | Any,
    *,
    theorems=None,
    prompts: np.ndarray | None = None,
    progress: Progress | None = None,
) -> AuditReport:
    """Audit ``loaded`` against ``theorems`` (ids; all by default).

    ``loaded``: a :class:`LoadedModel` or anything :func:`llm_checks.sources.resolve_model` accepts
    (a ``transformers.PreTrainedModel`` or a TransformerLens model in memory, a name, a path, a hub id).

    ``prompts``: ``(n, N)`` token ids whose states are tested for the open-hemisphere condition at
    every depth (``None``: the hemisphere hypothesis is "unknown").  ``progress(fraction, label)`` is
    called once per measured layer.
    """
    specs = resolve_theorems(theorems)
    if not isinstance(loaded, LoadedModel):
        from .sources import resolve_model

        loaded = resolve_model(loaded)
    t0 = time.perf_counter()
    layout = adapt(loaded.model)
    t_adapt = time.perf_counter() - t0
    m = measure(layout, progress=progress)
    hemis: tuple[HemisphereLayer, ...] = ()
    n_tokens = None
    t1 = time.perf_counter()
    if prompts is not None:
        prompts = np.asarray(prompts)
        if prompts.ndim != 2 or prompts.shape[1] < 1:
            raise InvalidInput("prompts", "an (n, N) array of token ids", prompts.shape)
        n_tokens = int(prompts.shape[1])
        hemis = _check_hemispheres(loaded.model, prompts)
    t_hemi = time.perf_counter() - t1
    results = evaluate(layout, m, specs, hemis, n_tokens)
    seconds = {"adapt": t_adapt, "measure": m.seconds, "hemisphere": t_hemi, "total": time.perf_counter() - t0}
    log.info("audit of %s: %.2f s", loaded.name, seconds["total"])
    provenance = dict(loaded.provenance(), theorems=[t.id for t in specs],
                      hemisphere_prompts=None if prompts is None else list(prompts.shape))
    return AuditReport(provenance, layout.summary(), m, results, hemis, seconds, weights_lemma(layout, m))


def weights_lemma(layout: ModelLayout, m: Measurements) -> dict:
    """The weights lemma's bounds for this model, in the unit-sphere form (:mod:`llm_checks.measure`):
    ``exp(-2 p_lemma)/|M(i)| <= a^h_ij <= exp(2 p_lemma)/|M(i)|`` per layer and head."""
    lemma = m.heads["p_lemma"]
    return {
        "form": "unit sphere: p_lemma = D ||P||_2 (+ the query-bias score term); not the LN-scale ||P||_2",
        "bound": "exp(-2 p_lemma[k][h]) / |M(i)| <= a^h_ij <= exp(2 p_lemma[k][h]) / |M(i)|",
        "D": layout.d_model,
        "p_lemma_max": float(lemma.max()),
        "p_lemma": lemma.tolist(),
        "log_lower_bound_max": float(-2 * lemma.min()),
        "worst": hyp.worst(lemma),
        "rope": layout.positions == "rope",
    }
