"""The record of one ``verify simulate`` run: it owns its JSON, its console text and its figure.

:func:`verify.simulate` returns a :class:`~verify.report.Report` whose ``record`` is a
:class:`Simulation`: the instance, where it came from, the options the run used, the
:class:`numerics.trajectory.Trajectory` and the summary :mod:`numerics.evidence` (or
:mod:`numerics.metrics_mp` for a high-precision run) computed from it.  A simulation decides
nothing (it is evidence, never a proof).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, final

if TYPE_CHECKING:
    from numerics.evidence import BatchSummary, RunSummary


def _g(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.3g}"


@final
@dataclass(frozen=True, eq=False)
class Simulation:
    """One run: ``source`` (``{"kind": "preset", "name", "default", "tokens", "dim", "seed"}`` or
    ``{"kind": "instance", "file"}``), ``options`` (as reported), ``summary`` (the
    :class:`numerics.evidence.RunSummary` of one run, or the :class:`numerics.evidence.BatchSummary`
    of ``samples``; JSON under ``"batch"``), ``plot`` the PNG written, if any."""

    system: Any
    source: Mapping[str, Any]
    options: Mapping[str, Any]
    trajectory: Any
    summary: RunSummary | BatchSummary | None
    plot: str | None = None
    variant: str = field(default="cos")

    @property
    def status(self) -> str:
        """``completed``, or why the integrator stopped before ``t_end`` (``max_steps``, ``step_too_small``)."""
        return "completed" if self.trajectory.ok else self.trajectory.status.value

    def to_json(self) -> dict[str, Any]:
        s = self.system
        out = {"status": self.status, "source": dict(self.source), "instance": s.name, "N": s.N, "d": s.d, "H": s.H,
               "mask": s.mask, "beta": str(s.beta), "options": dict(self.options),
               "integrator": self.trajectory.to_json(), **self._summary_json()}
        return out | ({"plot": self.plot} if self.plot is not None else {})

    def _summary_json(self) -> dict[str, Any]:
        from numerics.evidence import BatchSummary

        if not self.summary:  # a record built without its summary (nothing measured)
            return {}
        return {"batch": self.summary.to_json()} if isinstance(self.summary, BatchSummary) else self.summary.to_json()

    def render(self) -> str:
        """The console text: the instance, the integrator's run, the final metrics and events."""
        s, traj, source = self.system, self.trajectory, self.source
        lines = []
        if source["kind"] == "preset" and source["default"]:
            lines.append(f"no preset or instance given: simulating the default preset {source['name']} "
                         f"(N={source['tokens']}, d={source['dim']}, seed {source['seed']})")
        lines += [f"instance {s.name}: N={s.N} d={s.d} H={s.H} mask={s.mask} beta={s.beta}",
                  f"integrator {traj.method} ({traj.precision.kind}, {traj.precision.bits} bits): {traj.status.value}, "
                  f"{traj.stats.steps} steps, {round(traj.stats.wall_time, 6):.3g} s, "
                  f"error estimate {_g(float(traj.error_estimate))} ({traj.error_kind})", self.summary.render()]
        return "\n".join(lines + ([f"plot written to {self.plot}"] if self.plot is not None else []))

    def figure(self, ax: Any = None, *, title: str | None = None, variant: str | None = None) -> Any:
        """E (and V, for a causal run) against ``t`` (:func:`numerics.plotting.trajectory_figure`; a batch:
        median and 10-90% band); ``ax``: draw into an existing matplotlib Axes."""
        from numerics.plotting import trajectory_figure

        return trajectory_figure(self.trajectory, variant=variant or self.variant,
                                 title=self.system.name if title is None else title, mask=self.system.mask, ax=ax)


def system_for(instance: Any, preset: str, default: bool, tokens: int, dim: int, seed: int) -> tuple[Any, dict]:
    """``(system, source)``: ``instance`` (any form :func:`verify.instances.resolve_instance` reads),
    else the preset ``preset`` with ``tokens``, ``dim`` and ``seed`` (``default``: no preset was named)."""
    if instance is not None:
        from verify.instances import resolve_instance

        file = str(instance) if isinstance(instance, (str, Path)) else None
        return resolve_instance(instance), {"kind": "instance", "file": file}
    from numerics.presets import preset as build

    return build(preset, N=tokens, d=dim, seed=seed), {"kind": "preset", "name": preset, "default": default,
                                                       "tokens": tokens, "dim": dim, "seed": seed}


def integrate(system: Any, t_end: float, points: int, *, digits: int | None = None, samples: int | None = None,
              seed: int = 0, rtol: float = 1e-10, atol: float = 1e-12, backend: str = "numpy", device: str | None = None,
              workers: int | None = None, scheduler: str | None = None, progress: Any = None) -> Any:
    """The :class:`numerics.trajectory.Trajectory` of one ``verify simulate`` run (options checked by the
    caller): the Taylor method with ``digits``; else float64 DOP853 (numpy, or torch on ``device``) on
    ``system`` or on ``samples`` random starts of it (``seed``), split over a Dask cluster with
    ``workers`` / ``scheduler``."""
    if digits is not None:
        from numerics.taylor import TaylorMP

        return TaylorMP(digits=digits).integrate(system, t_end, samples=points, progress=progress)
    if workers is not None or scheduler is not None:
        return _distributed(system, t_end, points, samples, seed, rtol, atol, workers, scheduler, progress)
    from numerics.presets import with_random_tokens

    batch = [system] if samples is None else with_random_tokens(system, samples, seed)
    if backend == "torch":
        from numerics.torch_dop853 import TorchDOP853

        integrator = TorchDOP853(rtol=rtol, atol=atol, device=device or "cpu")
    else:
        from numerics.dop853 import DOP853

        integrator = DOP853(rtol=rtol, atol=atol)
    return integrator.integrate(batch, t_end, samples=points, progress=progress)


def _distributed(system: Any, t_end: float, points: int, samples: int, seed: int, rtol: float, atol: float,
                 workers: int | None, scheduler: str | None, progress: Any) -> Any:
    """The ``samples`` batch split into parts on the executor of ``verify reproduce`` (identical
    numbers to the serial run: each instance's steps do not depend on the others)."""
    from numerics.batch_parts import join_parts, simulate_part
    from theorems.system_json import system_to_dict
    from verify._reproduce.executor import make_executor
    from verify._reproduce.tasks import decode

    executor = make_executor(workers, scheduler)
    try:
        workers = workers or int(executor.describe().get("workers") or 1)
        n_parts = min(samples, 4 * workers)  # a few parts per worker balance uneven instances
        bounds = [round(k * samples / n_parts) for k in range(n_parts + 1)]
        data = system_to_dict(system)
        jobs = [(f"simulate-{k}", simulate_part, (data, samples, seed, lo, hi, t_end, points, rtol, atol))
                for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:]))]
        parts: dict[int, dict] = {}
        for index, (status, _seconds, text) in executor.run(jobs):
            if status != "ok":
                raise RuntimeError(f"a simulation part failed on the cluster: {text}")
            parts[index] = decode(text)
            if progress is not None:
                progress(len(parts) / len(jobs))
    finally:
        executor.close()
    return join_parts([parts[k] for k in range(len(jobs))], workers)


__all__ = ["Simulation", "integrate", "system_for"]
