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
from typing import Any, Mapping, final


def _metric(value: float | str) -> str:
    """A final metric as printed: float64 with 4 digits, or the decimal string of a high-precision run."""
    return value if isinstance(value, str) else f"{value:.3e}"


def _g(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.3g}"


@final
@dataclass(frozen=True, eq=False)
class Simulation:
    """One run: ``source`` (``{"kind": "preset", "name", "default", "tokens", "dim", "seed"}`` or
    ``{"kind": "instance", "file"}``), ``options`` (as reported), ``summary`` (final metrics, events and
    fitted rate of one run, or ``{"batch": ...}`` for ``samples``), ``plot`` the PNG written, if any."""

    system: Any
    source: Mapping[str, Any]
    options: Mapping[str, Any]
    trajectory: Any
    summary: Mapping[str, Any]
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
               "integrator": self.trajectory.to_json(), **self.summary}
        return out | ({"plot": self.plot} if self.plot is not None else {})

    def render(self) -> str:
        """The console text: the instance, the integrator's run, the final metrics and events."""
        s, traj, source, p = self.system, self.trajectory, self.source, self.summary
        lines = []
        if source["kind"] == "preset" and source["default"]:
            lines.append(f"no preset or instance given: simulating the default preset {source['name']} "
                         f"(N={source['tokens']}, d={source['dim']}, seed {source['seed']})")
        lines += [f"instance {s.name}: N={s.N} d={s.d} H={s.H} mask={s.mask} beta={s.beta}",
                  f"integrator {traj.method} ({traj.precision.kind}, {traj.precision.bits} bits): {traj.status.value}, "
                  f"{traj.stats.steps} steps, {round(traj.stats.wall_time, 6):.3g} s, "
                  f"error estimate {_g(float(traj.error_estimate))} ({traj.error_kind})"]
        if "final" in p:
            lines += self._final_lines(p)
        else:
            fe = p["batch"]["final_E_pair"]
            lines.append(f"{p['batch']['instances']} initial conditions: final E_pair median {fe['median']:.3e}, "
                         f"10-90% band [{fe['band'][0]:.3e}, {fe['band'][1]:.3e}] (min {fe['min']:.3e}, max {fe['max']:.3e})")
        return "\n".join(lines + ([f"plot written to {self.plot}"] if self.plot is not None else []))

    @staticmethod
    def _final_lines(p: Mapping[str, Any]) -> list[str]:
        f, lines = p["final"], []
        if "metrics_precision" in p:
            mp = p["metrics_precision"]
            lines.append(f"metrics computed with {mp['bits']} bits from the high-precision states, {mp['digits']} "
                         "significant digits:")
        lines.append(f"at t={f['t']:g}: E_first({p['E_variant']})={_metric(f['E_first'])}  E_pair={_metric(f['E_pair'])}"
                     f"  V={_metric(f['V'])}  hemisphere margin={f.get('hemisphere_margin', float('nan')):.3g}")
        hemi = p["events"].get("open_hemisphere", {}).get("t")
        lines.append(f"tokens in an open hemisphere from t={hemi:g}" if hemi is not None
                     else "tokens never in an open hemisphere at the samples")
        below = p["events"]["E_pair_below_eps"]
        lines.append(f"E_pair < {below['eps']:g} from t={below['t']:.4g}" if below["t"] is not None
                     else f"E_pair stays >= {below['eps']:g}")
        fit = p.get("fitted_rate")
        lines.append(f"fitted rate of E_pair: {fit['rate']:.4g} on [{fit['t_from']:.3g}, {fit['t_to']:.3g}]" if fit
                     else "no rate fitted (too few samples above round-off)")
        return lines

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
