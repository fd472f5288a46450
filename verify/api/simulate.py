"""``verify.simulate``: integrate eq. 5 from a preset or an instance and report consensus metrics.

The library call behind ``verify simulate`` (the CLI parses its flags into :class:`SimulateOptions`,
checks them with :func:`check_options` naming the flags, and renders the :class:`~verify.report.Report`
this module returns)::

    import verify
    r = verify.simulate("constant-identity-full", t_end=10)       # a preset (the default preset when None)
    r = verify.simulate(instance="examples/hemisphere_full.json", t_end=5, digits=30)
    r.payload["final"]["E_pair"], r.record                         # the numbers; the numerics.Trajectory

A simulation decides nothing: the report has a ``status`` (``completed``, or the integrator's
``max_steps`` / ``step_too_small`` when it stopped before ``t_end``) and exit code 0.  With
``digits`` (the arbitrary-precision Taylor method) the metrics are computed from the
high-precision states (:mod:`numerics.metrics_mp`) and given as decimal strings with that many
significant digits; otherwise they are float64 numbers.  Options that would have no effect in
the chosen mode (``tokens`` / ``dim`` with an instance, ``seed`` with an instance and no
``samples``, ``rtol`` / ``atol`` with ``digits``, ``force`` without an output file) are refused,
never silently ignored.  Nothing here prints; ``progress(fraction)`` is called as the run advances.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable

from theorems.errors import InvalidInput, UnknownName
from verify.limits import MAX_DIGITS, MAX_POINTS, MAX_SAMPLES, check_range, check_simulation, check_t_end, stiffness
from verify.outputs import Target, check_targets, write_all
from verify.report import Report

from ._options import OptionConflict, check_bool, check_path, check_seed, flag, keyword

DEFAULT_PRESET = "constant-identity-full"
PRESET_DEFAULTS = {"tokens": 12, "dim": 3, "seed": 0}
FLOAT_DEFAULTS = {"rtol": 1e-10, "atol": 1e-12}
MAX_TOKENS = 2000
"""Largest ``tokens`` of a preset (the instance-file limit is ``theorems.system_json.MAX_TOKENS``)."""
MAX_PRESET_DIM = 512
MIN_DIGITS = 8
"""Smallest ``digits``: the high-precision metrics (:mod:`numerics.metrics_mp`) need at least 53 bits
of working precision, which 8 digits give on every instance (fewer fall short on small ones)."""


@dataclass(frozen=True)
class SimulateOptions:
    """Every option of ``verify simulate`` (``None``: not given; :func:`check_options` applies the
    defaults ``tokens=12``, ``dim=3``, ``seed=0``, ``rtol=1e-10``, ``atol=1e-12`` where they apply)."""

    preset: str | None = None
    instance: Any = None
    t_end: float | None = None
    digits: int | None = None
    rtol: float | None = None
    atol: float | None = None
    points: int = 151
    samples: int | None = None
    seed: int | None = None
    tokens: int | None = None
    dim: int | None = None
    variant: str = "cos"
    plot: str | Path | None = None
    json_out: str | Path | None = None
    backend: str = "numpy"
    device: str | None = None
    workers: int | None = None
    scheduler: str | None = None
    force: bool = False

    @classmethod
    def from_namespace(cls, args) -> "SimulateOptions":
        """The options of a parsed ``verify simulate`` command line."""
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})

    def effective(self, name: str) -> Any:
        """The value a run uses: the given one, or the default of :data:`PRESET_DEFAULTS` / :data:`FLOAT_DEFAULTS`."""
        value = getattr(self, name)
        return {**PRESET_DEFAULTS, **FLOAT_DEFAULTS}.get(name) if value is None else value


def _no_effect(opts: SimulateOptions, name: Callable[[str], str]) -> None:
    """Refuse options the chosen mode would ignore (the issue: they were silently dropped)."""
    if opts.instance is not None:
        for key in ("tokens", "dim"):
            if getattr(opts, key) is not None:
                raise OptionConflict(name(key), f"has no effect with {name('instance')}: it sizes a preset, the instance "
                                               f"fixes N and d (drop {name(key)})", getattr(opts, key))
        if opts.seed is not None and opts.samples is None:
            raise OptionConflict(name("seed"), f"has no effect with {name('instance')} and no {name('samples')}: it seeds a "
                                               f"preset or the random initial conditions of {name('samples')}", opts.seed)
    if opts.digits is not None:
        for key in ("rtol", "atol"):
            if getattr(opts, key) is not None:
                raise OptionConflict(name(key), f"has no effect with {name('digits')}: it is a tolerance of the float64 "
                                               f"integrator, the Taylor method sets its step from the digits", getattr(opts, key))
    if opts.force and not (opts.plot or opts.json_out):
        raise OptionConflict(name("force"), f"has no effect without an output file ({name('plot')} or {name('json_out')})", True)


def check_options(opts: SimulateOptions, name: Callable[[str], str] = keyword) -> dict[str, Target]:
    """Every option and output target, before any work (errors name options with ``name``);
    returns the files the run will write, by option (``plot``, ``json_out``)."""
    if opts.preset is not None and opts.instance is not None:
        raise OptionConflict(name("instance"), f"cannot be combined with {name('preset')} (one source of the instance)", str(opts.instance))
    if opts.t_end is None:
        raise InvalidInput(name("t_end"), "the final time of the simulation", None)
    check_t_end(opts.t_end, name("t_end"))
    check_range(name("digits"), opts.digits, MIN_DIGITS, MAX_DIGITS)
    check_range(name("samples"), opts.samples, 1, MAX_SAMPLES)
    if opts.digits is not None and opts.samples is not None:
        raise OptionConflict(name("samples"), f"{name('digits')} and {name('samples')} cannot be combined (the Taylor method "
                                              "runs one instance at a time)", opts.samples)
    _check_workers(opts, name)
    check_range(name("points"), opts.points, 2, MAX_POINTS)
    check_range(name("tokens"), opts.tokens, 1, MAX_TOKENS)
    check_range(name("dim"), opts.dim, 2, MAX_PRESET_DIM)  # a preset needs d >= 2 (numerics.presets)
    _check_numbers(opts, name)
    paths = _check_paths(opts, name)
    _no_effect(opts, name)
    _check_backend(opts, name)
    targets = {key: Target(name(key), path) for key, path in paths.items() if path is not None}
    check_targets(targets.values(), opts.force)  # checked before integrating, not when writing the result
    if opts.instance is None:  # a preset has at least one head: refuse before building it
        _check_preset(opts.preset)
        check_simulation(opts.effective("tokens"), opts.effective("dim"), 1, opts.t_end, opts.samples, opts.digits)
    return targets


def _check_workers(opts: SimulateOptions, name: Callable[[str], str]) -> None:
    """``workers`` / ``scheduler``: one of them, only with ``samples`` on the numpy backend."""
    if opts.workers is None and opts.scheduler is None:
        return
    if opts.workers is not None and opts.scheduler is not None:
        raise OptionConflict(name("scheduler"), f"{name('workers')} and {name('scheduler')} cannot be combined "
                                                "(a LocalCluster or an existing cluster)", opts.scheduler)
    if opts.samples is None or opts.backend != "numpy":
        raise OptionConflict(name("workers") if opts.workers is not None else name("scheduler"),
                             f"splits the {name('samples')} initial conditions of the numpy DOP853; give "
                             f"{name('samples')} K (and no {name('backend')} torch)", opts.workers or opts.scheduler)
    check_range(name("workers"), opts.workers, 1, 64)
    if opts.scheduler is not None and not (isinstance(opts.scheduler, str) and opts.scheduler):
        raise InvalidInput(name("scheduler"), "the address of a Dask scheduler, such as tcp://HOST:PORT", opts.scheduler)


def _check_numbers(opts: SimulateOptions, name: Callable[[str], str]) -> None:
    """The tolerances, the variant, the seed and ``force``."""
    for key in ("rtol", "atol"):
        value = getattr(opts, key)
        if value is not None and not (_is_tolerance(value) and 0 < value < 1 and math.isfinite(value)):
            raise InvalidInput(name(key), "a tolerance in (0, 1)", value)
    if not isinstance(opts.variant, str) or opts.variant not in ("cos", "abs"):
        raise InvalidInput(name("variant"), "'cos' or 'abs'", opts.variant)
    if opts.seed is not None:
        check_seed(name("seed"), opts.seed, bits=32)
    check_bool(name("force"), opts.force)


def _is_tolerance(value: Any) -> bool:
    """An ``int`` or a ``float`` the float64 integrator takes as a tolerance (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_paths(opts: SimulateOptions, name: Callable[[str], str]) -> dict[str, Path | None]:
    """``plot`` (a ``.png``) and ``json_out`` as paths (``None``: not given)."""
    paths = {key: check_path(name(key), getattr(opts, key)) for key in ("plot", "json_out")}
    if paths["plot"] is not None and not str(opts.plot).lower().endswith(".png"):
        raise InvalidInput(name("plot"), "a file name ending in .png", str(opts.plot))
    return paths


def _check_preset(preset: Any) -> None:
    """``None`` (the default preset) or a preset name; ``""`` is refused, not read as the default."""
    if preset is None:
        return
    from numerics.presets import PRESETS

    if not isinstance(preset, str) or preset not in PRESETS:
        raise UnknownName("preset", preset if isinstance(preset, str) else repr(preset), PRESETS)


def _check_backend(opts: SimulateOptions, name: Callable[[str], str]) -> None:
    """``backend="torch"`` needs torch, and ``device="cuda"`` a CUDA device: refused before any work."""
    if opts.backend not in ("numpy", "torch"):
        raise InvalidInput(name("backend"), "'numpy' or 'torch'", opts.backend)
    if opts.backend != "torch":
        if opts.device is not None:
            raise OptionConflict(name("device"), f"applies to {name('backend')} torch only", opts.device)
        return
    if opts.digits is not None:
        raise OptionConflict(name("backend"), f"{name('digits')} and {name('backend')} torch cannot be combined "
                                              "(torch runs float64 or float32)", opts.backend)
    if opts.device not in (None, "cpu", "cuda"):
        raise InvalidInput(name("device"), "'cpu' or 'cuda'", opts.device)
    from numerics.torch_backend import _torch

    torch = _torch()  # MissingDependency (exit 2) names the install command
    if opts.device == "cuda" and not torch.cuda.is_available():
        raise OptionConflict(name("device"), f"cuda: CUDA is not available to torch {torch.__version__} on this machine "
                                             "(torch.cuda.is_available() is False); use cpu or a CUDA build of torch", opts.device)


def _system(opts: SimulateOptions):
    """``(system, source)``: the instance to integrate and where it came from."""
    if opts.instance is not None:
        from ._inputs import resolve_instance

        file = str(opts.instance) if isinstance(opts.instance, (str, Path)) else None
        return resolve_instance(opts.instance), {"kind": "instance", "file": file}
    from numerics.presets import preset

    name = DEFAULT_PRESET if opts.preset is None else opts.preset
    N, d, seed = (opts.effective(k) for k in ("tokens", "dim", "seed"))
    return preset(name, N=N, d=d, seed=seed), {"kind": "preset", "name": name, "default": opts.preset is None,
                                                 "tokens": N, "dim": d, "seed": seed}


def _integrate(opts: SimulateOptions, system, progress):
    if opts.digits is not None:
        from numerics.taylor import TaylorMP

        return TaylorMP(digits=opts.digits).integrate(system, opts.t_end, samples=opts.points, progress=progress)
    if opts.workers is not None or opts.scheduler is not None:
        return _distributed(opts, system, progress)
    from numerics.presets import with_random_tokens

    batch = [system] if opts.samples is None else with_random_tokens(system, opts.samples, opts.effective("seed"))
    rtol, atol = opts.effective("rtol"), opts.effective("atol")
    if opts.backend == "torch":
        from numerics.torch_dop853 import TorchDOP853

        integrator = TorchDOP853(rtol=rtol, atol=atol, device=opts.device or "cpu")
    else:
        from numerics.dop853 import DOP853

        integrator = DOP853(rtol=rtol, atol=atol)
    return integrator.integrate(batch, opts.t_end, samples=opts.points, progress=progress)


def _distributed(opts: SimulateOptions, system, progress):
    """The ``samples`` batch split into parts on the executor of ``verify reproduce`` (identical
    numbers to the serial run: each instance's steps do not depend on the others)."""
    from numerics.batch_parts import join_parts, simulate_part
    from theorems.system_json import system_to_dict
    from verify.reproduce.executor import make_executor
    from verify.reproduce.tasks import decode

    executor = make_executor(opts.workers, opts.scheduler)
    try:
        workers = opts.workers or int(executor.describe().get("workers") or 1)
        n_parts = min(opts.samples, 4 * workers)  # a few parts per worker balance uneven instances
        bounds = [round(k * opts.samples / n_parts) for k in range(n_parts + 1)]
        data = system_to_dict(system)
        args = (opts.t_end, opts.points, opts.effective("rtol"), opts.effective("atol"))
        jobs = [(f"simulate-{k}", simulate_part, (data, opts.samples, opts.effective("seed"), lo, hi, *args))
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


def run(opts: SimulateOptions, targets: dict[str, Target], *, progress: Callable[[float], None] | None = None) -> Report:
    """Integrate and report, writing ``targets`` (from :func:`check_options`) all or nothing."""
    from numerics.evidence import batch_summary, summarize

    system, source = _system(opts)
    check_simulation(system.N, system.d, system.H, opts.t_end, opts.samples, opts.digits, stiffness(system, opts.t_end))
    traj = _integrate(opts, system, progress)
    body: dict[str, Any] = {"status": "completed" if traj.ok else traj.status.value, "source": source,
                            "instance": system.name, "N": system.N, "d": system.d, "H": system.H, "mask": system.mask,
                            "beta": str(system.beta), "options": _options_json(opts), "integrator": traj.to_json()}
    if opts.digits is not None:
        from numerics.metrics_mp import summarize_mp

        body.update(summarize_mp(traj, 0, opts.variant))
    elif opts.samples is None:
        body.update(summarize(traj, 0, opts.variant))
    else:
        body["batch"] = batch_summary(traj, opts.variant)
    rendered: list[tuple[Target, str | bytes]] = []
    if "plot" in targets:  # every payload is rendered before anything is written (all or nothing)
        from numerics.plotting import plot_trajectory

        rendered.append((targets["plot"], plot_trajectory(traj, variant=opts.variant, title=system.name, mask=system.mask)))
        body["plot"] = str(targets["plot"].path)
    report = Report("simulate", body, render(body), files=[str(t.path) for t in targets.values()], record=traj)
    if "json_out" in targets:
        rendered.append((targets["json_out"], json.dumps(report.payload, indent=2) + "\n"))
    if rendered:
        write_all(rendered, opts.force)
    return report


def _options_json(opts: SimulateOptions) -> dict[str, Any]:
    keys = ("t_end", "points", "variant", "samples", "digits", "backend", "device", "workers", "scheduler")
    out = {k: getattr(opts, k) for k in keys}
    if opts.digits is None:
        out.update(rtol=opts.effective("rtol"), atol=opts.effective("atol"))
    if opts.instance is None or opts.samples is not None:
        out["seed"] = opts.effective("seed")
    return out


def simulate(preset: str | None = None, *, instance=None, t_end: float, digits: int | None = None,
             rtol: float | None = None, atol: float | None = None, points: int = 151, samples: int | None = None,
             seed: int | None = None, tokens: int | None = None, dim: int | None = None, variant: str = "cos",
             plot: str | Path | None = None, json_out: str | Path | None = None, backend: str = "numpy",
             device: str | None = None, workers: int | None = None, scheduler: str | None = None, force: bool = False,
             progress: Callable[[float], None] | None = None) -> Report:
    """Simulate ``preset`` (default ``constant-identity-full``) or ``instance`` (a JSON file, a
    JSON-like dict or an :class:`~theorems.system.AttentionSystem`) to ``t_end``; the options are ``verify simulate``'s
    (module docstring; ``json_out`` is ``--json``).  Returns the ``simulate`` report; its ``record``
    is the :class:`numerics.trajectory.Trajectory`."""
    opts = SimulateOptions(preset, instance, t_end, digits, rtol, atol, points, samples, seed, tokens, dim, variant,
                           plot, json_out, backend, device, workers, scheduler, force)
    if progress is not None and not callable(progress):  # refused before any work, not at its first call
        raise InvalidInput("progress", "a callable progress(fraction), or None", type(progress).__name__)
    return run(opts, check_options(opts, keyword), progress=progress)


def _metric(value: float | str) -> str:
    """A final metric as printed: float64 with 4 digits, or the decimal string of a high-precision run."""
    return value if isinstance(value, str) else f"{value:.3e}"


def _g(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def render(p: dict[str, Any]) -> str:
    """The console text of a ``simulate`` payload."""
    integ, source = p["integrator"], p["source"]
    lines = []
    if source["kind"] == "preset" and source["default"]:
        lines.append(f"no preset or instance given: simulating the default preset {source['name']} "
                     f"(N={source['tokens']}, d={source['dim']}, seed {source['seed']})")
    lines += [f"instance {p['instance']}: N={p['N']} d={p['d']} H={p['H']} mask={p['mask']} beta={p['beta']}",
              f"integrator {integ['method']} ({integ['precision']['kind']}, {integ['precision']['bits']} bits): "
              f"{integ['status']}, {integ['stats']['steps']} steps, {integ['stats']['wall_time_s']:.3g} s, "
              f"error estimate {_g(integ['error_estimate'])} ({integ['error_kind']})"]
    if "final" in p:
        f = p["final"]
        if "metrics_precision" in p:
            mp = p["metrics_precision"]
            lines.append(f"metrics computed with {mp['bits']} bits from the high-precision states, {mp['digits']} significant digits:")
        lines.append(f"at t={f['t']:g}: E_first({p['E_variant']})={_metric(f['E_first'])}  E_pair={_metric(f['E_pair'])}  "
                     f"V={_metric(f['V'])}  hemisphere margin={f.get('hemisphere_margin', float('nan')):.3g}")
        hemi = p["events"].get("open_hemisphere", {}).get("t")
        lines.append(f"tokens in an open hemisphere from t={hemi:g}" if hemi is not None else "tokens never in an open hemisphere at the samples")
        below = p["events"]["E_pair_below_eps"]
        lines.append(f"E_pair < {below['eps']:g} from t={below['t']:.4g}" if below["t"] is not None else f"E_pair stays >= {below['eps']:g}")
        fit = p.get("fitted_rate")
        lines.append(f"fitted rate of E_pair: {fit['rate']:.4g} on [{fit['t_from']:.3g}, {fit['t_to']:.3g}]" if fit else "no rate fitted (too few samples above round-off)")
    else:
        b = p["batch"]
        fe = b["final_E_pair"]
        lines.append(f"{b['instances']} initial conditions: final E_pair mean {fe['mean']:.3e} (min {fe['min']:.3e}, max {fe['max']:.3e})")
    if "plot" in p:
        lines.append(f"plot written to {p['plot']}")
    return "\n".join(lines)


__all__ = ["DEFAULT_PRESET", "OptionConflict", "SimulateOptions", "check_options", "flag", "keyword", "run", "simulate"]
