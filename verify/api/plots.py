"""``Report.plot()``: one matplotlib Figure per report, drawn by its typed record (never from the JSON payload).

:func:`figure_for` asks the record: a record that owns its figure has ``figure(ax=None, **options)``
(:class:`verify.simulation.Simulation`, :class:`verify._depth.certify.DepthReport`,
:class:`verify._theorem.report.TheoremReport`, which re-integrates its evidence: evidence, not
proof; :class:`llm_checks.consensus.ConsensusResult`, E across depth with the statistic of its
summary; :class:`llm_checks.audit.AuditReport`, the layer x head heatmaps).  Nothing here imports
:mod:`llm_checks` or torch.

``ax``, an existing matplotlib Axes (for ``audit``: three Axes, one per heatmap), is drawn into and
its Figure returned.  Kinds with nothing to draw (``list``, ``assumptions``, ``sos``, ``lyapunov``, ``recheck``,
``error``, and ``reproduce``, whose figures are its PNG files) and reports without their record raise
:class:`theorems.errors.InvalidInput` naming what was expected.
"""
from __future__ import annotations

import json
from typing import Any

from theorems.errors import InvalidInput

PLOTTABLE = ("simulate", "consensus", "audit", "depth", "theorem")
NOTHING_TO_DRAW = {
    "list": "a simulate, consensus, audit, depth or theorem report (a list of results has nothing to draw)",
    "assumptions": "a theorem report with numerical evidence (an assumptions report holds verdicts only)",
    "sos": "a report with series to draw (an SOS certificate is exact data, not a curve)",
    "lyapunov": "a report with series to draw (a Lyapunov certificate is exact data, not a curve)",
    "recheck": "a report with series to draw (a re-check returns a verdict only)",
    "error": "a report of a command that ran (this one is an error)",
    "reproduce": "a simulate, consensus, audit, depth or theorem report (reproduce writes its figures as PNG files: report.files)",
}
OPTIONS = {"simulate": ("title", "variant"), "consensus": ("title",), "audit": ("title",), "depth": ("title", "label"),
           "theorem": ("title",)}
VARIANTS = ("cos", "abs")


def figure_for(report: Any, ax: Any = None, **options: Any) -> Any:
    """The matplotlib ``Figure`` of ``report`` (module docstring); ``options``: ``title`` (every
    kind), ``variant`` (``simulate``: ``"cos"`` or ``"abs"``), ``label`` (``depth``)."""
    # a verify.report.Report (checked by its fields: the report module imports this one lazily)
    if not all(hasattr(report, a) for a in ("kind", "payload", "text", "record")) or not isinstance(report.kind, str):
        raise InvalidInput("report", "a verify.report.Report", type(report).__name__)
    if report.kind in NOTHING_TO_DRAW:
        raise InvalidInput("plot", NOTHING_TO_DRAW[report.kind], report.kind)
    if report.kind not in PLOTTABLE:
        raise InvalidInput("plot", f"a report of kind {', '.join(PLOTTABLE)}", report.kind)
    unknown = sorted(set(options) - set(OPTIONS[report.kind]))
    if unknown:
        raise InvalidInput("plot options", f"options of a {report.kind} figure: {', '.join(OPTIONS[report.kind])}", unknown)
    if ax is not None and not callable(getattr(ax, "plot", None)) and report.kind != "audit":  # audit: one Axes per panel
        raise InvalidInput("ax", "a matplotlib Axes, or None for a new Figure", type(ax).__name__)
    options = _checked_options(options)
    record, owner = report.record, _OWNERS[report.kind]
    if type(record).__name__ == owner and callable(getattr(record, "figure", None)):
        own = json.loads(json.dumps(record.to_json(), default=str))
        if any(json.loads(json.dumps(report.payload[k], default=str)) != v for k, v in own.items() if k in report.payload):
            raise InvalidInput("plot", f"a report whose payload is its record's JSON (the {owner} draws the figure)",
                               "a payload of another record", hint="plot the report the library call returned")
        return record.figure(ax=ax, **options)
    raise InvalidInput("plot", f"the {report.kind} report of the library call (its record, a {owner}, draws the figure)",
                       "a report without its record", hint="figures are drawn from the typed record, not the payload")


def _checked_options(options: dict[str, Any]) -> dict[str, Any]:
    """``title`` and ``label`` are text, ``variant`` is ``"cos"`` or ``"abs"``; ``None`` means not given."""
    given = {k: v for k, v in options.items() if v is not None}
    for key in ("title", "label"):
        if key in given and not isinstance(given[key], str):
            raise InvalidInput(f"plot {key}", "text (a str)", type(given[key]).__name__)
    if "variant" in given and (not isinstance(given["variant"], str) or given["variant"] not in VARIANTS):
        raise InvalidInput("plot variant", "'cos' or 'abs'", given["variant"])
    return given


_OWNERS = {"simulate": "Simulation", "depth": "DepthReport", "theorem": "TheoremReport", "consensus": "ConsensusResult",
           "audit": "AuditReport"}
"""The record each kind's figure comes from (a record of another kind is not drawn as this one)."""
__all__ = ["NOTHING_TO_DRAW", "PLOTTABLE", "figure_for"]
