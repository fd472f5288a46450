"""Frozen records of a reproduction run: measurements, case results, claim rows, the report.

A :class:`Measurement` is a number with its band and the sample it came from; a
:class:`CaseResult` is what one case measured (or why it could not); a :class:`ClaimRow` sets one
claim of the paper beside the measurements that decide it.  Everything serialises to plain JSON
(``to_json``) and is read back by ``from_json`` so the report's JSON can be re-checked without
re-running anything.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any, Mapping


class ClaimStatus(enum.Enum):
    """How a measurement stands to a claim.  *Not supported* is not evidence against the claim:
    the measurement shows no significant effect either way (overlapping bands, a threshold inside
    the band); only *contradicted* (the opposite effect, bands separated) counts against it."""

    AGREES = "agrees"
    CONTRADICTED = "contradicted"
    NOT_SUPPORTED = "not supported"
    NOT_TESTABLE = "not testable here"


class ClaimKind(enum.Enum):
    """Whose claim a row tests: the paper's (from the authors' replies to reviewers and the paper's
    summary page), this project's (its own reading or finding, docs/model.md), or a self-check of the
    toolkit.  :attr:`READING` keeps the value ``"spec"`` of the report contract (schema_version 1)."""

    PAPER = "paper"
    READING = "spec"
    SELF_CHECK = "self-check"


VERB = {"agrees": "agree"}
"""The headline's plural of a status."""
OTHER_MODELS = "on other models"
"""The label of a row that tests a paper's claim on a stand-in model (MiniLM, SmolLM2)."""
OTHER_MODELS_LABEL = "the paper's claims on other models (stand-ins, not counted with the paper's)"
KIND_LABEL = {ClaimKind.PAPER: "the paper's claims", ClaimKind.READING: "this project's claims (its reading, docs/model.md)",
              ClaimKind.SELF_CHECK: "the toolkit's self-checks"}


def _counted(label: str, counts: Mapping[str, int]) -> str:
    return f"{label} ({sum(counts.values())}): " + ", ".join(f"{v} {VERB.get(s, s)}" for s, v in counts.items() if v)


def _num(x: float | None) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class Measurement:
    """``value`` with the band ``[low, high]`` over ``n`` runs (seeds or prompts).

    ``band`` names the statistic: ``"10-90% quantiles"`` (``value`` is the median of the runs, the
    band their 10% and 90% quantiles, all clipped to ``value_range``), ``"clopper-pearson 95%"`` (a
    share), ``"extreme"`` (a maximum over all runs, ``low = high = value``), ``"single run (no
    band)"``.  ``values`` keeps the per-run numbers when there are few enough to store, so a reader
    can recompute the band; ``raw_min`` is the smallest run when it fell below the range (round-off).
    """

    value: float
    low: float
    high: float
    n: int
    what: str
    band: str
    values: tuple[float, ...] | None = None
    value_range: tuple[float, float] | None = None
    raw_min: float | None = None

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError(f"measurement {self.what!r}: n must be >= 0, got {self.n}")
        if not (self.low <= self.value <= self.high) and all(math.isfinite(v) for v in (self.low, self.value, self.high)):
            raise ValueError(f"measurement {self.what!r}: expected low <= value <= high, got {self.low}, {self.value}, {self.high}")
        if self.value_range is not None:
            lo, hi = self.value_range
            if not lo < hi or any(math.isfinite(v) and not lo <= v <= hi for v in (self.low, self.value, self.high)):
                raise ValueError(f"measurement {self.what!r}: expected the value and its band inside {list(self.value_range)}, "
                                 f"got {self.value} [{self.low}, {self.high}]")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": _num(self.value), "low": _num(self.low), "high": _num(self.high), "n": self.n,
                               "what": self.what, "band": self.band}
        if self.value_range is not None:
            out["range"] = [_num(v) for v in self.value_range]
        if self.raw_min is not None:
            out["raw_min"] = _num(self.raw_min)
        if self.values is not None:
            out["values"] = [_num(v) for v in self.values]
        return out

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Measurement":
        nan = float("nan")
        values, rng = data.get("values"), data.get("range")
        return Measurement(
            nan if data["value"] is None else float(data["value"]),
            nan if data["low"] is None else float(data["low"]),
            nan if data["high"] is None else float(data["high"]),
            int(data["n"]), str(data["what"]), str(data["band"]),
            None if values is None else tuple(nan if v is None else float(v) for v in values),
            None if rng is None else (-math.inf if rng[0] is None else float(rng[0]), math.inf if rng[1] is None else float(rng[1])),
            None if data.get("raw_min") is None else float(data["raw_min"]))

    def short(self) -> str:
        """``value [low, high] (n=...)`` for the report table; a value clipped at the range's lower end
        from a raw minimum below it is written ``0 (round-off -2.2e-16)``."""
        text = _fmt(self.value)
        if self.raw_min is not None and self.value_range is not None and self.value <= self.value_range[0]:
            text += f" (round-off {self.raw_min:.2g})"
        if self.band == "extreme" or self.low == self.high:
            return f"{text} (n={self.n}, {self.band})"
        return f"{text} [{_fmt(self.low)}, {_fmt(self.high)}] (n={self.n})"


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "nan"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e4:
        return f"{x:.4g}"
    return f"{x:.2e}"


@dataclass(frozen=True)
class Figure:
    """One PNG of a case: file name (under ``figures/``), caption, and the command that rebuilds it."""

    name: str
    caption: str
    png: bytes = field(repr=False)
    command: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"file": f"figures/{self.name}", "caption": self.caption, "command": self.command}


@dataclass(frozen=True)
class CaseResult:
    """What one case measured. ``error`` (a failure) or ``skipped`` (a scale decision) explain an
    empty or partial ``measurements``; the claims that need a missing measurement become
    "not testable here" with that reason."""

    id: str
    title: str
    measurements: Mapping[str, Measurement]
    hypotheses: tuple[Mapping[str, Any], ...] = ()
    figures: tuple[Figure, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)
    provenance: Mapping[str, Any] = field(default_factory=dict)
    wall_time_s: float = 0.0
    error: str | None = None
    skipped: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title,
                "measurements": {k: m.to_json() for k, m in self.measurements.items()},
                "hypotheses": [dict(h) for h in self.hypotheses],
                "figures": [f.to_json() for f in self.figures],
                "details": dict(self.details), "provenance": dict(self.provenance),
                "wall_time_s": round(self.wall_time_s, 3), "error": self.error, "skipped": self.skipped}


@dataclass(frozen=True)
class ClaimRow:
    """One row of the claim table: the claim, its source, the hypotheses on the instances used,
    the measurements that decide it, the rule, and the status the rule gives."""

    id: str
    claim: str
    source: str
    cases: tuple[str, ...]
    hypotheses: tuple[Mapping[str, Any], ...]
    measurements: Mapping[str, Measurement]
    rule: Mapping[str, Any]
    status: ClaimStatus
    reason: str
    figures: tuple[str, ...] = ()
    kind: ClaimKind = ClaimKind.PAPER
    label: str = ""
    """Extra qualifier shown with the kind (``speculation``, ``stand-in models``)."""

    @property
    def other_models(self) -> bool:
        """A paper's claim tested on a stand-in model, not the paper's own: counted apart."""
        return self.label == OTHER_MODELS

    def kind_text(self) -> str:
        return self.kind.value + (f" ({self.label})" if self.label else "")

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind.value, "label": self.label,
                "claim": self.claim, "source": self.source, "cases": list(self.cases),
                "hypotheses": [dict(h) for h in self.hypotheses],
                "measurements": {k: m.to_json() for k, m in self.measurements.items()},
                "rule": dict(self.rule), "status": self.status.value, "reason": self.reason,
                "figures": list(self.figures)}


@dataclass(frozen=True)
class Report:
    """The whole reproduction: scale, claim rows, case results and provenance."""

    scale: str
    rows: tuple[ClaimRow, ...]
    cases: tuple[CaseResult, ...]
    provenance: Mapping[str, Any]

    def counts(self, kind: ClaimKind | None = None, other_models: bool | None = None) -> dict[str, int]:
        """Rows per status, of one kind (``None``: all) and, with ``other_models``, only the rows on
        other models (``True``) or only the others (``False``)."""
        rows = [r for r in self.rows if (kind is None or r.kind is kind)
                and (other_models is None or r.other_models == other_models)]
        return {s.value: sum(1 for r in rows if r.status is s) for s in ClaimStatus}

    def headline(self) -> list[tuple[ClaimKind, dict[str, int]]]:
        """Counts per kind of claim, the paper's first (only its claims on its own models and
        simulations); kinds without rows are left out.  :meth:`other_models` counts the rest."""
        return [(k, self.counts(k, other_models=False)) for k in ClaimKind
                if any(r.kind is k and not r.other_models for r in self.rows)]

    def other_models(self) -> dict[str, int] | None:
        """Counts of the paper's claims tested on stand-in models (``None`` when there are none)."""
        return self.counts(other_models=True) if any(r.other_models for r in self.rows) else None

    def headline_text(self) -> str:
        parts = []
        for kind, counts in self.headline():
            parts.append(_counted(KIND_LABEL[kind], counts))
            if kind is ClaimKind.PAPER and self.other_models():
                parts.append(_counted(OTHER_MODELS_LABEL, self.other_models()))
        return "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"kind": "consensus-verify reproduction report", "scale": self.scale,
                "headline": [{"claims": k.value, "counts": c} for k, c in self.headline()],
                "headline_other_models": self.other_models(),
                "counts": self.counts(),
                "claims": [r.to_json() for r in self.rows], "cases": [c.to_json() for c in self.cases],
                "provenance": dict(self.provenance)}
