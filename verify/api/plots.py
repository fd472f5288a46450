"""``Report.plot()``: one matplotlib Figure per report, drawn from its typed record or its payload.

:func:`figure_for` dispatches on ``report.kind``:

* ``simulate``: E (and V, for a causal run only) against ``t``
  (:func:`numerics.plotting.trajectory_figure`) from ``report.record`` when it is a trajectory
  (anything with ``times`` and ``states``; a batch gets the median and 10-90% band); else from
  the payload's series: ``batch`` (``t`` and each metric's ``mean``: drawn as the mean, the payload
  holds no per-run values for a quantile band) or ``series`` (``t`` and per-metric lists).
* ``consensus``: E across depth from the record's ``E`` arrays or the payload's
  ``metrics.<name>.per_prompt`` (:func:`numerics.support.plot_layers.consensus_curves_figure`).
* ``audit``: the layer x head heatmaps from the record's ``measurements.heads`` or the payload's
  ``heads`` tables (:func:`numerics.support.plot_layers.audit_heatmaps_figure`).
* ``depth``: the certified envelope against the simulated metric from the record (a
  ``DepthReport``, :func:`verify._depth.figure.depth_figure`); from a payload alone, which holds
  no series, the certified bound against the observed value (:func:`~verify._depth.figure.depth_summary_figure`).
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
import numbers
import re
from dataclasses import asdict, is_dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np

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
_RATIONAL = re.compile(r"-?\d{1,400}(/\d{1,400})?")
"""A bound as the depth payload writes it: an integer or ``p/q`` (at most 400 digits each)."""


def figure_for(report: Any, **options: Any) -> Any:
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
    draw: Callable[[Any, Mapping[str, Any]], Any] = _DRAW[report.kind]
    return draw(report, _checked_options(options))


def _checked_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``title`` and ``label`` are text, ``variant`` is ``"cos"`` or ``"abs"``; ``None`` means not given."""
    given = {k: v for k, v in options.items() if v is not None}
    for key in ("title", "label"):
        if key in given and not isinstance(given[key], str):
            raise InvalidInput(f"plot {key}", "text (a str)", type(given[key]).__name__)
    if "variant" in given and (not isinstance(given["variant"], str) or given["variant"] not in VARIANTS):
        raise InvalidInput("plot variant", "'cos' or 'abs'", given["variant"])
    return given


def _is_numbers(value: Any, ndim: int) -> bool:
    """``value`` is a (nested) list of real numbers ``ndim`` deep, as a payload holds them."""
    if ndim == 0:
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    if isinstance(value, np.ndarray):
        return value.ndim == ndim and np.issubdtype(value.dtype, np.number) and not np.issubdtype(value.dtype, np.bool_)
    return isinstance(value, (list, tuple)) and all(_is_numbers(v, ndim - 1) for v in value)


def _numbers(value: Any, field: str, ndim: int = 1) -> np.ndarray:
    """A payload's list (``ndim`` 1) or table (``ndim`` 2) of numbers as a non-empty float array."""
    expected = "a non-empty list of numbers" if ndim == 1 else "a non-empty table (list of equal-length lists) of numbers"
    if not _is_numbers(value, ndim):
        raise InvalidInput(field, expected, _shown(value))
    try:
        a = np.asarray(value, dtype=float)
    except ValueError:  # ragged rows
        raise InvalidInput(field, expected, "rows of different lengths") from None
    if a.ndim != ndim or a.size == 0:
        raise InvalidInput(field, expected, f"shape {a.shape}")
    return a


def _shown(value: Any) -> Any:
    """What arrived, short: a scalar as is, a container by its type and length."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    try:
        size = f" of {len(value)}"
    except TypeError:  # no length (an object, a 0-d array)
        size = ""
    kind = "a list" if isinstance(value, (list, tuple)) else "an object" if isinstance(value, Mapping) else type(value).__name__
    return f"{kind}{size}"


def _mapping(value: Any, field: str) -> Mapping[str, Any]:
    """A payload's object (``None``: empty)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput(field, "an object (a dict)", _shown(value))
    return value


def _variant(value: Any) -> str:
    if not isinstance(value, str) or value not in VARIANTS:
        raise InvalidInput("plot variant", "'cos' or 'abs' (the report's E_variant)", _shown(value))
    return value


def _is_trajectory(record: Any) -> bool:
    return hasattr(record, "times") and hasattr(record, "states") and np.ndim(getattr(record, "states")) == 4


def _simulate(report: Any, options: Mapping[str, Any]) -> Any:
    from numerics.plotting import metrics_figure, trajectory_figure

    p = report.payload
    mask = p.get("mask")
    title = options.get("title", p.get("instance", ""))
    if not isinstance(title, str):
        raise InvalidInput("instance", "the instance name (text) for the title", _shown(title))
    run_options = _mapping(p.get("options"), "options")
    variant = _variant(options.get("variant") or p.get("E_variant") or run_options.get("variant") or "cos")
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
        for k in names:
            if k in b and not (isinstance(b[k], Mapping) and "mean" in b[k]):
                raise InvalidInput(f"batch.{k}", "an object with the mean over the runs (batch.<metric>.mean)", _shown(b[k]))
        series = {k: _numbers(b[k]["mean"], f"batch.{k}.mean") for k in names if k in b}
        count = b.get("instances", "?")
        shown = count if isinstance(count, int) and not isinstance(count, bool) else "?"
        return _numbers(b["t"], "batch.t"), series, f": mean of {shown} (payload: no per-run values)"
    if isinstance(p.get("series"), Mapping) and "t" in p["series"]:
        s = p["series"]
        return _numbers(s["t"], "series.t"), {k: _numbers(s[k], f"series.{k}") for k in names if k in s}, ""
    raise InvalidInput("plot", "a simulate report with its trajectory (report.record) or a payload with series "
                       "(batch.t with batch.E_first.mean, ..., or series.t with series.E_first, ...)",
                       "a payload with final values only", hint="use the report returned by verify.simulate(...), "
                       "whose record is the trajectory")


def _consensus(report: Any, options: Mapping[str, Any]) -> Any:
    from numerics.support.plot_layers import consensus_curves_figure, consensus_title

    record, p = report.record, report.payload
    if hasattr(record, "E") and hasattr(record, "n_blocks"):
        opts = asdict(record.options) if is_dataclass(record.options) else dict(record.options)
        E, n_blocks, prov = record.E, int(record.n_blocks), dict(record.provenance)
    else:
        E, n_blocks = _consensus_payload(p)
        prov, opts = dict(_mapping(p.get("provenance"), "provenance")), dict(_mapping(p.get("options"), "options"))
    return consensus_curves_figure(E, n_blocks, options.get("title") or consensus_title(prov, opts))


def _consensus_payload(p: Mapping[str, Any]) -> tuple[dict[str, np.ndarray], int]:
    """``(per-prompt tables by metric, blocks per pass)`` from a consensus payload, checked."""
    metrics = p.get("metrics") or {}
    if not isinstance(metrics, Mapping) or not metrics or not all(
            isinstance(m, Mapping) and "per_prompt" in m for m in metrics.values()):
        raise InvalidInput("plot", "a consensus report with per-prompt values (metrics.<name>.per_prompt) or its record",
                           "a summary without per-prompt values")
    E = {name: _numbers(m["per_prompt"], f"metrics.{name}.per_prompt", ndim=2) for name, m in metrics.items()}
    n_blocks = p.get("n_blocks")
    if isinstance(n_blocks, bool) or not isinstance(n_blocks, int) or n_blocks < 1:
        raise InvalidInput("n_blocks", "a positive integer (the blocks of one pass)", _shown(n_blocks))
    return E, n_blocks


def _audit(report: Any, options: Mapping[str, Any]) -> Any:
    from numerics.support.plot_layers import AUDIT_PANELS, audit_heatmaps_figure
    from numerics.plotting import literal

    record, p = report.record, report.payload
    if hasattr(getattr(record, "measurements", None), "heads"):
        heads, layout, prov = record.measurements.heads, record.layout, record.provenance
    elif isinstance(p.get("heads"), Mapping):
        tables = [name for name, _, _ in AUDIT_PANELS]
        heads = {k: _numbers(p["heads"][k], f"heads.{k}", ndim=2) for k in tables if k in p["heads"]}
        layout, prov = _mapping(p.get("layout"), "layout"), _mapping(p.get("provenance"), "provenance")
    else:
        raise InvalidInput("plot", "an audit report with its layer x head tables (payload 'heads' or the record)",
                           "an audit payload without tables", hint="run the audit without --no-tables")
    if "d_model" not in layout:
        raise InvalidInput("plot", "an audit report whose layout names d_model", sorted(layout))
    d_model = layout["d_model"]
    if isinstance(d_model, bool) or not isinstance(d_model, numbers.Integral) or d_model < 1:
        raise InvalidInput("layout.d_model", "a positive integer (the model width)", _shown(d_model))
    fig = audit_heatmaps_figure(heads, int(d_model), str(prov.get("model")))
    if options.get("title"):
        fig.suptitle(literal(options["title"]), fontsize=10)
    return fig


def _depth(report: Any, options: Mapping[str, Any]) -> Any:
    from numerics.plotting import literal
    from verify._depth.figure import depth_figure, depth_summary_figure

    record = report.record
    if hasattr(record, "certificate") and hasattr(record, "model") and (
            record.certificate is not None or "times" in (record.evidence or {})):
        return depth_figure([(record, options.get("label", f"{record.theorem}, {record.model}"))],
                            title=options.get("title", ""))
    fig = depth_summary_figure(_depth_payload(report.payload))
    if options.get("title"):
        fig.suptitle(literal(options["title"]), fontsize=9)
    return fig


def _depth_payload(p: Mapping[str, Any]) -> Mapping[str, Any]:
    """A depth payload whose ``bound`` is a rational (``p/q`` or an integer) and whose ``observed``
    and ``tightness`` are finite numbers (or null)."""
    bound = p.get("bound")
    text = str(bound) if isinstance(bound, int) and not isinstance(bound, bool) else bound
    if bound is not None and not (isinstance(text, str) and _RATIONAL.fullmatch(text) and _finite(Fraction(text))):
        raise InvalidInput("bound", "a rational such as 12 or 1234/567 (or null)", _shown(bound))
    for key in ("observed", "tightness"):
        value = p.get(key)
        if value is not None and not (_is_numbers(value, 0) and _finite(value)):
            raise InvalidInput(key, "a finite number (or null)", _shown(value))
    return p


def _finite(value: Any) -> bool:
    """``float(value)`` is a finite float (a huge integer or rational overflows)."""
    try:
        return bool(np.isfinite(float(value)))
    except (OverflowError, ZeroDivisionError):
        return False


def _theorem(report: Any, options: Mapping[str, Any]) -> Any:
    p = report.payload
    ev = p.get("numerical_evidence")
    if not ev:
        reason = p.get("numerical_evidence_skipped") or "no numerical evidence (simulate=False, or the result has none)"
        raise InvalidInput("plot", "a theorem report with numerical evidence", reason)
    ev = _mapping(ev, "numerical_evidence")
    system = getattr(getattr(report.record, "hypotheses", None), "system", None)
    if system is None:
        raise InvalidInput("plot", "the theorem report of the library call (its record holds the instance to re-integrate)",
                           "a payload without its record")
    traj = _reintegrate(system, ev)
    from numerics.plotting import trajectory_figure

    theorem_id = _mapping(p.get("theorem"), "theorem").get("id", "")
    title = options.get("title") or f"Theorem {theorem_id} evidence (not a proof), {ev.get('instance', system.name)}"
    return trajectory_figure(traj, variant=_variant(ev.get("E_variant", "cos")), title=title, mask=system.mask)


def _reintegrate(system: Any, ev: Mapping[str, Any]) -> Any:
    """The evidence's simulation again (same horizon, samples, integrator), checked against its final metrics."""
    from numerics.dop853 import DOP853
    from numerics.evidence import simulate_evidence
    from numerics.metrics import E_first, E_pair
    from numerics.taylor import TaylorMP

    integ, digits = _evidence_settings(system, ev)
    if digits is not None:
        integrator = TaylorMP(digits=digits)
    else:  # the float64 tolerances simulate_evidence used (the theorem check passes its defaults)
        defaults = inspect.signature(simulate_evidence).parameters
        integrator = DOP853(rtol=defaults["rtol"].default, atol=defaults["atol"].default)
    traj = integrator.integrate(system, float(integ["t_end"]), samples=int(integ["samples"]))
    final = _mapping(ev.get("final"), "numerical_evidence.final")
    variant = _variant(ev.get("E_variant", "cos"))
    got = {"E_pair": float(E_pair(traj.states[-1, 0])), "E_first": float(E_first(traj.states[-1, 0], variant))}
    for name, value in got.items():
        if name in final and not _is_numbers(final[name], 0):
            raise InvalidInput(f"numerical_evidence.final.{name}", "a number", _shown(final[name]))
        if name in final and not np.isclose(value, final[name], rtol=1e-9, atol=1e-14):
            raise InvalidInput("plot", f"numerical evidence that re-integrates to its recorded final {name}",
                               f"{value!r} (recorded {final[name]!r})",
                               hint="the record's instance is not the one the evidence was computed on")
    return traj


def _evidence_settings(system: Any, ev: Mapping[str, Any]) -> tuple[Mapping[str, Any], int | None]:
    """``(integrator settings, digits or None)`` of the evidence, within :mod:`verify.limits` (a payload
    the caller built or edited could ask for any horizon or number of samples)."""
    from verify.limits import MAX_DIGITS, MAX_POINTS, check_range, check_simulation, check_t_end, evidence_skip_reason

    where = "numerical_evidence.integrator"
    integ = _mapping(ev.get("integrator"), where)
    digits = _mapping(integ.get("precision"), f"{where}.precision").get("digits")
    check_t_end(integ.get("t_end"), f"{where}.t_end")
    check_range(f"{where}.samples", integ.get("samples"), 2, MAX_POINTS)
    if integ.get("samples") is None:
        raise InvalidInput(f"{where}.samples", "the number of output times", None)
    check_range(f"{where}.precision.digits", digits, 5, MAX_DIGITS)  # 5: the least TaylorMP takes
    t_end = float(integ["t_end"])
    check_simulation(system.N, system.d, system.H, t_end, None, digits)
    skipped = evidence_skip_reason(system, t_end) if digits is None else None
    if skipped:
        raise InvalidInput(f"{where}.t_end", "a horizon the theorem check would simulate", t_end, skipped)
    return integ, digits


_DRAW = {"simulate": _simulate, "consensus": _consensus, "audit": _audit, "depth": _depth, "theorem": _theorem}

__all__ = ["NOTHING_TO_DRAW", "PLOTTABLE", "figure_for"]
