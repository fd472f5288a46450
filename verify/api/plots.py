"""``Report.plot()``: one matplotlib Figure per report, drawn from its typed record or its payload.

:func:`figure_for` dispatches on ``report.kind``:

* ``simulate``: E (and V, for a causal run only) against ``t``
  (:func:`numerics.plotting.trajectory_figure`) from ``report.record`` when it is a trajectory
  (anything with ``times`` and ``states``; a batch gets the median and 10-90% band); else from
  the payload's series: ``batch`` (``t`` and each metric's ``mean``: drawn as the mean, the payload
  holds no per-run values for a quantile band) or ``series`` (``t`` and per-metric lists).
* ``consensus``: E across depth from the record's ``E`` arrays or the payload's
  ``metrics.<name>.per_prompt`` (:func:`numerics.plot_layers.consensus_curves_figure`).
* ``audit``: the layer x head heatmaps from the record's ``measurements.heads`` or the payload's
  ``heads`` tables (:func:`numerics.plot_layers.audit_heatmaps_figure`).
* ``depth``: the certified envelope against the simulated metric from the record (a
  ``DepthReport``, :func:`verify.depth.figure.depth_figure`); from a payload alone, which holds
  no series, the certified bound against the observed value (:func:`~verify.depth.figure.depth_summary_figure`).
* ``theorem``: its numerical evidence, re-integrated from the instance in ``report.record``
  with the evidence's own settings (horizon, samples, integrator, variant; deterministic), and
  checked against the recorded final metrics before it is drawn.  Evidence, not proof.

Kinds with nothing to draw (``list``, ``assumptions``, ``sos``, ``lyapunov``, ``recheck``,
``error``, and ``reproduce``, whose figures are its PNG files) and reports without the data raise
:class:`theorems.errors.InvalidInput` naming what was expected.  Nothing here imports
:mod:`llm_checks` or torch: records are read by their attributes.
"""
from __future__ import annotations

import inspect
from dataclasses import asdict, is_dataclass
from typing import Any, Callable, Mapping

import numpy as np

from theorems.errors import InvalidInput
from verify.report import Report

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


def figure_for(report: Report, **options: Any) -> Any:
    """The matplotlib ``Figure`` of ``report`` (module docstring); ``options``: ``title`` (every
    kind), ``variant`` (``simulate``: ``"cos"`` or ``"abs"``), ``label`` (``depth``)."""
    if not isinstance(report, Report):
        raise InvalidInput("report", "a verify.report.Report", type(report).__name__)
    if report.kind in NOTHING_TO_DRAW:
        raise InvalidInput("plot", NOTHING_TO_DRAW[report.kind], report.kind)
    if report.kind not in PLOTTABLE:
        raise InvalidInput("plot", f"a report of kind {', '.join(PLOTTABLE)}", report.kind)
    unknown = sorted(set(options) - set(OPTIONS[report.kind]))
    if unknown:
        raise InvalidInput("plot options", f"options of a {report.kind} figure: {', '.join(OPTIONS[report.kind])}", unknown)
    draw: Callable[[Report, Mapping[str, Any]], Any] = _DRAW[report.kind]
    return draw(report, options)


def _is_trajectory(record: Any) -> bool:
    return hasattr(record, "times") and hasattr(record, "states") and np.ndim(getattr(record, "states")) == 4


def _simulate(report: Report, options: Mapping[str, Any]) -> Any:
    from numerics.plotting import metrics_figure, trajectory_figure

    p = report.payload
    mask = p.get("mask")
    title = options.get("title", p.get("instance", ""))
    variant = options.get("variant") or p.get("E_variant") or (p.get("options") or {}).get("variant") or "cos"
    if _is_trajectory(report.record):
        return trajectory_figure(report.record, variant=variant, title=title, mask=mask)
    t, series, suffix = _payload_series(p)
    if mask != "causal":
        series.pop("V", None)  # V is the Theorem 4.2 quantity: drawn for causal runs only
    return metrics_figure(t, {("V (Thm 4.2)" if k == "V" else k) + suffix: v for k, v in series.items()}, title=title)


def _payload_series(p: Mapping[str, Any]) -> tuple[np.ndarray, dict[str, np.ndarray], str]:
    """``(t, {metric: values}, label suffix)`` from a simulate payload's ``batch`` (means) or ``series``."""
    names = ("E_first", "E_pair", "V")
    if isinstance(p.get("batch"), Mapping) and "t" in p["batch"]:
        b = p["batch"]
        series = {k: np.asarray(b[k]["mean"], dtype=float) for k in names if isinstance(b.get(k), Mapping)}
        return np.asarray(b["t"], dtype=float), series, f": mean of {b.get('instances', '?')} (payload: no per-run values)"
    if isinstance(p.get("series"), Mapping) and "t" in p["series"]:
        s = p["series"]
        return np.asarray(s["t"], dtype=float), {k: np.asarray(s[k], dtype=float) for k in names if k in s}, ""
    raise InvalidInput("plot", "a simulate report with its trajectory (report.record) or a payload with series "
                       "(batch.t with batch.E_first.mean, ..., or series.t with series.E_first, ...)",
                       "a payload with final values only", hint="use the report returned by verify.simulate(...), "
                       "whose record is the trajectory")


def _consensus(report: Report, options: Mapping[str, Any]) -> Any:
    from numerics.plot_layers import consensus_curves_figure, consensus_title

    record, p = report.record, report.payload
    if hasattr(record, "E") and hasattr(record, "n_blocks"):
        opts = asdict(record.options) if is_dataclass(record.options) else dict(record.options)
        E, n_blocks, prov = record.E, int(record.n_blocks), dict(record.provenance)
    else:
        metrics = p.get("metrics") or {}
        if not all(isinstance(m, Mapping) and "per_prompt" in m for m in metrics.values()) or not metrics:
            raise InvalidInput("plot", "a consensus report with per-prompt values (metrics.<name>.per_prompt) or its record",
                               "a summary without per-prompt values")
        E = {name: np.asarray(m["per_prompt"], dtype=float) for name, m in metrics.items()}
        n_blocks, prov, opts = int(p["n_blocks"]), dict(p.get("provenance", {})), dict(p.get("options", {}))
    return consensus_curves_figure(E, n_blocks, options.get("title") or consensus_title(prov, opts))


def _audit(report: Report, options: Mapping[str, Any]) -> Any:
    from numerics.plot_layers import audit_heatmaps_figure

    record, p = report.record, report.payload
    if hasattr(getattr(record, "measurements", None), "heads"):
        heads, layout, prov = record.measurements.heads, record.layout, record.provenance
    elif isinstance(p.get("heads"), Mapping):
        heads, layout, prov = p["heads"], p.get("layout", {}), p.get("provenance", {})
    else:
        raise InvalidInput("plot", "an audit report with its layer x head tables (payload 'heads' or the record)",
                           "an audit payload without tables", hint="run the audit without --no-tables")
    if "d_model" not in layout:
        raise InvalidInput("plot", "an audit report whose layout names d_model", sorted(layout))
    fig = audit_heatmaps_figure(heads, int(layout["d_model"]), str(prov.get("model")))
    if options.get("title"):
        fig.suptitle(options["title"], fontsize=10)
    return fig


def _depth(report: Report, options: Mapping[str, Any]) -> Any:
    from verify.depth.figure import depth_figure, depth_summary_figure

    record = report.record
    if hasattr(record, "certificate") and hasattr(record, "model") and (
            record.certificate is not None or "times" in (record.evidence or {})):
        return depth_figure([(record, options.get("label", f"{record.theorem}, {record.model}"))],
                            title=options.get("title", ""))
    fig = depth_summary_figure(report.payload)
    if options.get("title"):
        fig.suptitle(options["title"], fontsize=9)
    return fig


def _theorem(report: Report, options: Mapping[str, Any]) -> Any:
    p = report.payload
    ev = p.get("numerical_evidence")
    if not ev:
        reason = p.get("numerical_evidence_skipped") or "no numerical evidence (simulate=False, or the result has none)"
        raise InvalidInput("plot", "a theorem report with numerical evidence", reason)
    system = getattr(getattr(report.record, "hypotheses", None), "system", None)
    if system is None:
        raise InvalidInput("plot", "the theorem report of the library call (its record holds the instance to re-integrate)",
                           "a payload without its record")
    traj = _reintegrate(system, ev)
    from numerics.plotting import trajectory_figure

    theorem_id = (p.get("theorem") or {}).get("id", "")
    title = options.get("title") or f"Theorem {theorem_id} evidence (not a proof), {ev.get('instance', system.name)}"
    return trajectory_figure(traj, variant=ev.get("E_variant", "cos"), title=title, mask=system.mask)


def _reintegrate(system: Any, ev: Mapping[str, Any]) -> Any:
    """The evidence's simulation again (same horizon, samples, integrator), checked against its final metrics."""
    from numerics.dop853 import DOP853
    from numerics.evidence import simulate_evidence
    from numerics.metrics import E_first, E_pair
    from numerics.taylor import TaylorMP

    integ = ev["integrator"]
    digits = integ["precision"].get("digits")
    if digits is not None:
        integrator = TaylorMP(digits=digits)
    else:  # the float64 tolerances simulate_evidence used (the theorem check passes its defaults)
        defaults = inspect.signature(simulate_evidence).parameters
        integrator = DOP853(rtol=defaults["rtol"].default, atol=defaults["atol"].default)
    traj = integrator.integrate(system, float(integ["t_end"]), samples=int(integ["samples"]))
    final = ev.get("final", {})
    got = {"E_pair": float(E_pair(traj.states[-1, 0])), "E_first": float(E_first(traj.states[-1, 0], ev.get("E_variant", "cos")))}
    for name, value in got.items():
        if name in final and not np.isclose(value, final[name], rtol=1e-9, atol=1e-14):
            raise InvalidInput("plot", f"numerical evidence that re-integrates to its recorded final {name}",
                               f"{value!r} (recorded {final[name]!r})",
                               hint="the record's instance is not the one the evidence was computed on")
    return traj


_DRAW = {"simulate": _simulate, "consensus": _consensus, "audit": _audit, "depth": _depth, "theorem": _theorem}

__all__ = ["NOTHING_TO_DRAW", "PLOTTABLE", "figure_for"]
