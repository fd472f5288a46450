"""A layer x head map of certified fates for one model and one prompt (``verify audit MODEL --fate``).

For each layer ``k`` and head ``h``: the head's own continuous dynamics (eq. 5, one head,
``U^h``, ``P^h`` on the unit-sphere scale, ``beta`` as the model uses it, the model's mask) from
the prompt's normalised hidden states at the layer's input.  :func:`~.heads.reduce_head` reduces
it exactly to ``V = span(x_i(0)) + range(U^h)``; :mod:`.contraction` proves consensus or the head
is "unknown" with the reason.  With a time budget, a second pass (:mod:`.head_entry`) encloses the
heads whose tokens start on both sides of ``ker w`` until they share a half-space.  The input is plain
float64 arrays (``V``, ``O``, ``tokens`` per layer, :mod:`llm_checks.head_factors`), read as the exact
binary rationals they hold.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Mapping, final

from .contraction import certify_contraction
from .head_observe import Observation, observe_head
from .heads import reduce_head

CATEGORIES = ("consensus", "complex", "negative", "not dominant", "both sides", "no certificate")
OUTCOMES = ("one cluster", "clusters", "moving", "failed")


def _category(fate: str, reason: str) -> str:
    if fate == "consensus":
        return "consensus"
    for key, words in (("complex", "is complex"), ("negative", "is negative"), ("not dominant", "not dominant"),
                       ("both sides", "both sides")):
        if words in reason:
            return key
    return "no certificate"


@final
@dataclass(frozen=True)
class HeadFate:
    layer: int
    head: int
    fate: str
    reason: str
    m: int
    facts: Mapping[str, Any]
    wall_s: float
    observed: Observation | None = None
    """What a float simulation shows (:mod:`.head_observe`); never part of the fate."""

    @property
    def category(self) -> str:
        return _category(self.fate, self.reason)

    def to_json(self) -> dict[str, Any]:
        out = {"layer": self.layer, "head": self.head, "fate": self.fate, "category": self.category,
               "reason": self.reason, "reduced_dim": self.m, "facts": dict(self.facts), "wall_s": self.wall_s}
        if self.observed is not None:
            out["observed"] = self.observed.to_json()
        return out


@final
@dataclass(frozen=True)
class HeadFateMap:
    model: str
    mask: str
    tokens: tuple[str, ...]
    heads: tuple[HeadFate, ...]
    stats: Mapping[str, Any] = field(default_factory=dict)
    provenance: Mapping[str, Any] = field(default_factory=dict)

    @property
    def n_layers(self) -> int:
        return 1 + max(h.layer for h in self.heads)

    @property
    def n_heads(self) -> int:
        return 1 + max(h.head for h in self.heads)

    @property
    def certified(self) -> int:
        return sum(h.fate != "unknown" for h in self.heads)

    @property
    def share(self) -> float:
        return self.certified / len(self.heads)

    def counts(self) -> dict[str, int]:
        return {c: sum(h.category == c for h in self.heads) for c in CATEGORIES}

    def observed_counts(self) -> dict[str, int]:
        """Float outcomes (:mod:`.head_observe`) of the heads that were simulated: all, and the unknown ones."""
        seen = [h for h in self.heads if h.observed is not None]
        out = {o: sum(h.observed.outcome == o for h in seen) for o in OUTCOMES}
        out |= {f"{o}, unknown fate": sum(h.observed.outcome == o and h.fate == "unknown" for h in seen) for o in OUTCOMES}
        return out | {"simulated": len(seen)}

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "mask": self.mask, "tokens": list(self.tokens), "n_layers": self.n_layers,
                "n_heads": self.n_heads, "certified": self.certified, "total": len(self.heads), "share": self.share,
                "counts": self.counts(), "heads": [h.to_json() for h in self.heads], "stats": dict(self.stats),
                "provenance": dict(self.provenance)} | (
                    {"observed_counts": self.observed_counts()} if any(h.observed for h in self.heads) else {})

    def render(self) -> str:
        symbol = {"consensus": "C", "complex": "r", "negative": "n", "not dominant": "d", "both sides": "s",
                  "no certificate": "?"}
        lines = [f"certified fate of each head: {self.model}, {len(self.tokens)} tokens, {self.mask} mask",
                 f"  certified {self.certified} / {len(self.heads)} heads ({100 * self.share:.1f}%)",
                 "  C consensus; unknown: r complex / n negative dominant eigenvalue of U^h, d not dominant in "
                 "modulus, s tokens on both sides of ker w, ? no certificate",
                 "  layer | heads"]
        grid = {(h.layer, h.head): symbol[h.category] for h in self.heads}
        for k in range(self.n_layers):
            lines.append(f"  {k:5d} | " + " ".join(grid.get((k, h), ".") for h in range(self.n_heads)))
        lines.append("  unknown because: " + ", ".join(f"{c} {n}" for c, n in self.counts().items()
                                                       if c != "consensus" and n))
        if any(h.observed for h in self.heads):
            seen = self.observed_counts()
            lines.append(f"  float simulation to t = {max(h.observed.horizon for h in self.heads if h.observed):g} "
                         f"(an observation, not a proof), {seen['simulated']} heads: "
                         + ", ".join(f"{o} {seen[o]}" for o in OUTCOMES)
                         + f"; among the unknown heads: one cluster {seen['one cluster, unknown fate']}")
        if "wall_time_s" in self.stats:
            lines.append(f"  wall time: {self.stats['wall_time_s']} s")
        return "\n".join(lines)

    def figure(self, ax=None):
        """A layer x head heat map of the categories (matplotlib); returns the figure."""
        import numpy as np
        from matplotlib.colors import ListedColormap
        from matplotlib.patches import Rectangle

        from numerics.support.png import new_figure

        if ax is None:
            fig = new_figure((1 + 0.45 * self.n_heads, 1.2 + 0.4 * self.n_layers))
            ax = fig.add_subplot()
        else:
            fig = ax.figure
        grid = np.full((self.n_layers, self.n_heads), np.nan)
        for h in self.heads:
            grid[h.layer, h.head] = CATEGORIES.index(h.category)
        colors = ["#2ca02c", "#9467bd", "#d62728", "#ff7f0e", "#1f77b4", "#7f7f7f"]
        ax.imshow(grid, cmap=ListedColormap(colors), vmin=-0.5, vmax=len(CATEGORIES) - 0.5, aspect="auto")
        ax.set_xlabel("head")
        ax.set_ylabel("layer")
        ax.set_title(f"{self.model}: certified fate per head ({self.certified}/{len(self.heads)} consensus)", fontsize=9)
        handles = [Rectangle((0, 0), 1, 1, color=c) for c in colors]
        labels = ["consensus"] + [f"unknown: {c}" for c in CATEGORIES[1:]]
        seen = [h for h in self.heads if h.observed is not None and h.observed.outcome == "one cluster"]
        if seen:
            from matplotlib.lines import Line2D

            ax.plot([h.head for h in seen], [h.layer for h in seen], "o", color="white", markeredgecolor="black",
                    markersize=4, linestyle="none")
            handles.append(Line2D([], [], marker="o", color="white", markeredgecolor="black", linestyle="none"))
            labels.append("float simulation: one cluster\n(an observation, not a proof)")
        ax.legend(handles, labels, fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1))
        return fig


def certify_head(V, O, tokens, *, layer: int = 0, head: int = 0, observe=None) -> tuple[HeadFate, Any]:
    """The fate of one head (``U = O^T V^T``, column convention) from ``tokens``; and its certificate or None.
    ``observe``: ``(A, B, beta, causal)`` to attach a float simulation (:mod:`.head_observe`), or None."""
    t0 = time.perf_counter()
    reduced = reduce_head(V, O, tokens)
    cert, reason, facts = certify_contraction(reduced.U_red, reduced.coords)
    fate = "consensus" if cert is not None else "unknown"
    wall = round(time.perf_counter() - t0, 3)
    seen = None if observe is None else observe_head(V, O, observe[0], observe[1], tokens, observe[2], observe[3])
    return HeadFate(layer, head, fate, reason, reduced.m, facts, wall, seen), cert


def certify_heads(layers, *, model: str = "model", mask: str = "full", tokens=(), provenance=None,
                  on_head=None, observe: bool = False, flow_budget_s: float = 0.0, on_entry=None,
                  workers: int | None = None) -> HeadFateMap:
    """:class:`HeadFateMap` over ``layers`` (objects with ``index``, ``V`` ``(H, D, d_head)``,
    ``O`` ``(H, d_head, D)``, ``tokens`` ``(N, D)``, and, with ``observe`` or a flow budget, also ``A``, ``B``
    ``(H, D, d_head)`` and ``beta``); ``observe``: each head also gets a float simulation; ``on_head(HeadFate)``
    reports progress.  ``flow_budget_s > 0``: after the map, the heads whose tokens straddle ``ker w`` get a
    validated enclosure to a shared half-space (:mod:`.head_flow`), earliest proposed crossing first, until
    the wall-clock budget is spent (a budget changes how many heads are tried, never what a fate proves); then,
    full mask, with the budget left, the "complex" and "negative" heads get the moving-consensus route
    (:mod:`.head_moving_pass`); ``on_entry(k, n, HeadFate)`` after each of those heads; ``workers >= 2``: the runs on that many Dask processes."""
    t0 = time.perf_counter()
    out = []
    layer_of = {}
    for layer in layers:
        for h in range(layer.V.shape[0]):
            seen = (layer.A[h], layer.B[h], layer.beta, mask == "causal") if observe else None
            fate, _ = certify_head(layer.V[h], layer.O[h], layer.tokens, layer=layer.index, head=h, observe=seen)
            out.append(fate)
            layer_of[len(out) - 1] = (layer, h)
            if on_head is not None:
                on_head(fate)
    stats = {"wall_time_s": 0.0, "route": "projective contraction on the exact reduction (docs/fate.md, real heads)"}
    if flow_budget_s > 0:
        from .head_entry import entry_pass
        from .head_moving_pass import moving_pass

        # one pass after the other: a Dask cluster does not run jobs in the order they were submitted (measured:
        # one shared queue ran the moving-consensus jobs first and starved the half-space pass), so the
        # half-space jobs get the budget first
        deadline_wall = time.time() + flow_budget_s
        stats |= entry_pass(out, layer_of, mask == "causal", flow_budget_s, on_entry, workers)
        stats |= moving_pass(out, layer_of, mask == "causal", deadline_wall, on_entry, workers)
    stats["wall_time_s"] = round(time.perf_counter() - t0, 2)
    return HeadFateMap(model, mask, tuple(tokens), tuple(out), stats, dict(provenance or {}))


__all__ = ["CATEGORIES", "OUTCOMES", "HeadFate", "HeadFateMap", "certify_head", "certify_heads"]
