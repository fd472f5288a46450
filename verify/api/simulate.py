"""``verify.simulate``: integrate eq. 5 from a preset or an instance and report consensus metrics.

For example::

    r = verify.simulate("constant-identity-full", t_end=10)       # a preset (the default preset when None)
    r = verify.simulate(instance="examples/hemisphere_full.json", t_end=5, digits=30)
    r.payload["final"]["E_pair"], r.record.trajectory              # the numbers; the numerics.Trajectory

``instance``: a JSON file, a JSON-like dict or an :class:`~theorems.system.AttentionSystem`; ``record``
is the :class:`verify.simulation.Simulation`.  A simulation decides nothing: ``status`` is ``completed``
(or the integrator's ``max_steps`` / ``step_too_small``), exit 0.  With ``digits`` (the Taylor method) the
metrics are decimal strings from the high-precision states.  Options that would have no effect are
refused, never ignored.  ``progress(fraction)`` is called as the run advances.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from theorems.errors import UnknownName
from verify.limits import MAX_DIGITS, MAX_POINTS, MAX_SAMPLES, MAX_T_END, check_simulation, stiffness
from verify.outputs import Target, check_targets, write_all
from verify.report import Report

from ._table import FORCE, REQUIRED, Command, Option, OptionError, Values, api

DEFAULT_PRESET = "constant-identity-full"
PRESET_DEFAULTS = {"tokens": 12, "dim": 3, "seed": 0}
FLOAT_DEFAULTS = {"rtol": 1e-10, "atol": 1e-12}
MAX_TOKENS = 2000
"""Largest ``tokens`` of a preset (the instance-file limit is ``theorems.system_json.MAX_TOKENS``)."""
MAX_PRESET_DIM = 512
MIN_DIGITS = 8
"""Smallest ``digits``: the high-precision metrics (:mod:`numerics.metrics_mp`) need at least 53 bits
of working precision, which 8 digits give on every instance (fewer fall short on small ones)."""


def _description() -> str:
    """Built when ``verify simulate --help`` is formatted: the preset list imports numerics (cold start)."""
    from numerics.presets import PRESETS

    return ("Integrate the attention dynamics from an instance file or a preset (default: constant-identity-full). "
            "Options that would have no effect are refused: --tokens/--dim with --instance, --seed with --instance "
            "and no --samples, --rtol/--atol with --digits. Presets: " + ", ".join(PRESETS))


def _tolerance(name: str, default: float) -> Option:
    return Option(name, "number", low=0, high=1 - 2 ** -53, expected="a tolerance in (0, 1)",
                  help=f"{'relative' if name == 'rtol' else 'absolute'} tolerance of the float64 integrator (default {default:g})")


COMMAND = Command(
    "simulate", "simulate", "simulate the continuous model (eq. 5) and report E, V, hemisphere events", _description,
    None,
    (Option("preset", positional=True, metavar="NAME", group="source",
            help="a preset '<P>-<U>-<mask>' (default constant-identity-full)"),
     Option("instance", metavar="FILE", group="source",
            help="instance JSON file, or example:NAME (verify examples; format: verify docs format)"),
     Option("t_end", "number", REQUIRED, low=0, high=MAX_T_END, metavar="T", help=f"final time (at most {MAX_T_END:g})",
            expected=f"a positive finite number at most {MAX_T_END:g}"),
     Option("digits", "int", low=MIN_DIGITS, high=MAX_DIGITS, metavar="D", help="arbitrary precision (Taylor method) "
            "with D digits; the metrics are computed and printed with D digits"),
     _tolerance("rtol", 1e-10), _tolerance("atol", 1e-12),
     Option("points", "int", 151, low=2, high=MAX_POINTS, metavar="K", help="number of output times (default 151)"),
     Option("samples", "int", low=1, high=MAX_SAMPLES, metavar="K",
            help="simulate K random initial conditions (median and 10-90%% band over them)"),
     Option("seed", "seed", high=32, help="seed of the preset and of the random initial conditions (default 0)"),
     Option("tokens", "int", low=1, high=MAX_TOKENS, metavar="N", help="number of tokens of a preset (default 12)"),
     Option("dim", "int", low=2, high=MAX_PRESET_DIM, metavar="d", help="dimension of a preset (default 3)"),
     Option("variant", "choice", "cos", choices=("cos", "abs"), help="E_first with cos or |cos|"),
     Option("plot", "path", metavar="FILE", help="write a PNG: E and V against t (log scale); tokens on S^2 when d = 3"),
     Option("json_out", "path", flag="--json", metavar="FILE", help="also write the JSON report to FILE"),
     Option("backend", "choice", "numpy", choices=("numpy", "torch"), help="float64 integrator: numpy DOP853 "
            "(default) or batched DOP853 on torch (needs the llm extra)"),
     Option("device", "choice", choices=("cpu", "cuda"), help="torch device of --backend torch (default: cpu)"),
     Option("workers", "int", low=1, high=64, metavar="N",
            help="with --samples: split the initial conditions over a Dask LocalCluster of N processes"),
     Option("scheduler", "text", metavar="ADDRESS", expected="the address of a Dask scheduler, such as tcp://HOST:PORT",
            help="with --samples: split the initial conditions over an existing Dask cluster (tcp://HOST:PORT)"),
     Option("show_progress", "bool", False, flag="--progress", cli_only=True,
            help="show a progress bar on stderr (default: when stderr is a terminal)"),
     FORCE, Option("progress", "callable", api_only=True, help="progress(fraction), called as the run advances")))


class SimulateOptions(Values):
    """The checked options of one run."""

    def effective(self, name: str) -> Any:
        """The value a run uses: the given one, or the default of :data:`PRESET_DEFAULTS` / :data:`FLOAT_DEFAULTS`."""
        value = self[name]
        return {**PRESET_DEFAULTS, **FLOAT_DEFAULTS}.get(name) if value is None else value


def _no_effect(opts: SimulateOptions) -> None:
    """Refuse options the chosen mode would ignore (the issue: they were silently dropped)."""
    if opts.instance is not None:
        for key in ("tokens", "dim"):
            if opts[key] is not None:
                raise OptionError(key, f"has no effect with {{instance}}: it sizes a preset, the instance fixes N and d "
                                       f"(drop {{{key}}})", opts[key], conflict=True)
        if opts.seed is not None and opts.samples is None:
            raise OptionError("seed", "has no effect with {instance} and no {samples}: it seeds a preset or the random "
                                      "initial conditions of {samples}", opts.seed, conflict=True)
    if opts.digits is not None:
        for key in ("rtol", "atol"):
            if opts[key] is not None:
                raise OptionError(key, "has no effect with {digits}: it is a tolerance of the float64 integrator, the "
                                       "Taylor method sets its step from the digits", opts[key], conflict=True)
    if opts.force and not (opts.plot or opts.json_out):
        raise OptionError("force", "has no effect without an output file ({plot} or {json_out})", True, conflict=True)


def check_options(opts: SimulateOptions) -> dict[str, Target]:
    """The combinations of options and the output targets, before any work; returns the files the
    run will write, by option (``plot``, ``json_out``)."""
    if opts.preset is not None and opts.instance is not None:
        raise OptionError("instance", "cannot be combined with {preset} (one source of the instance)",
                          str(opts.instance), conflict=True)
    if opts.digits is not None and opts.samples is not None:
        raise OptionError("samples", "{digits} and {samples} cannot be combined (the Taylor method runs one instance "
                                     "at a time)", opts.samples, conflict=True)
    if opts.workers is not None or opts.scheduler is not None:
        if opts.workers is not None and opts.scheduler is not None:
            raise OptionError("scheduler", "{workers} and {scheduler} cannot be combined (a LocalCluster or an "
                                           "existing cluster)", opts.scheduler, conflict=True)
        if opts.samples is None or opts.backend != "numpy":
            raise OptionError("workers" if opts.workers is not None else "scheduler", "splits the {samples} initial "
                              "conditions of the numpy DOP853; give {samples} K (and no {backend} torch)",
                              opts.workers or opts.scheduler, conflict=True)
    if opts.plot is not None and not opts.plot.lower().endswith(".png"):
        raise OptionError("plot", "a file name ending in .png", opts.plot)
    _no_effect(opts)
    _check_backend(opts)
    targets = {key: Target(key, Path(opts[key])) for key in ("plot", "json_out") if opts[key] is not None}
    check_targets(targets.values(), opts.force)  # checked before integrating, not when writing the result
    if opts.instance is None:  # a preset has at least one head: refuse before building it
        from numerics.presets import PRESETS

        if opts.preset is not None and (not isinstance(opts.preset, str) or opts.preset not in PRESETS):  # "" too
            raise UnknownName("preset", opts.preset if isinstance(opts.preset, str) else repr(opts.preset), PRESETS)
        check_simulation(opts.effective("tokens"), opts.effective("dim"), 1, opts.t_end, opts.samples, opts.digits)
    return targets


def _check_backend(opts: SimulateOptions) -> None:
    """``backend="torch"`` needs torch, and ``device="cuda"`` a CUDA device: refused before any work."""
    if opts.backend != "torch":
        if opts.device is not None:
            raise OptionError("device", "applies to {backend} torch only", opts.device, conflict=True)
        return
    if opts.digits is not None:
        raise OptionError("backend", "{digits} and {backend} torch cannot be combined (torch runs float64 or float32)",
                          opts.backend, conflict=True)
    from numerics.torch_backend import _torch

    torch = _torch()  # MissingDependency (exit 2) names the install command
    if opts.device == "cuda" and not torch.cuda.is_available():
        raise OptionError("device", f"cuda: CUDA is not available to torch {torch.__version__} on this machine "
                          "(torch.cuda.is_available() is False); use cpu or a CUDA build of torch", opts.device,
                          conflict=True)


def _simulate(**values: Any) -> Report:
    """Check the combinations, integrate and report, writing the output files all or nothing."""
    from numerics.evidence import batch_summary, summarize
    from numerics.metrics_mp import summarize_mp
    from verify.simulation import Simulation, integrate, system_for

    opts = SimulateOptions(values)
    targets = check_options(opts)
    N, d, seed = (opts.effective(k) for k in ("tokens", "dim", "seed"))
    system, source = system_for(opts.instance, opts.preset or DEFAULT_PRESET, opts.preset is None, N, d, seed)
    check_simulation(system.N, system.d, system.H, opts.t_end, opts.samples, opts.digits, stiffness(system, opts.t_end))
    traj = integrate(system, opts.t_end, opts.points, digits=opts.digits, samples=opts.samples, seed=seed,
                     rtol=opts.effective("rtol"), atol=opts.effective("atol"), backend=opts.backend, device=opts.device,
                     workers=opts.workers, scheduler=opts.scheduler, progress=opts.progress)
    summary = (summarize_mp(traj, 0, opts.variant) if opts.digits is not None else summarize(traj, 0, opts.variant)
               if opts.samples is None else batch_summary(traj, opts.variant))
    plot = str(targets["plot"].path) if "plot" in targets else None
    record = Simulation(system, source, _options_json(opts), traj, summary, plot, opts.variant)
    report = Report("simulate", record.to_json(), record.render(), files=[str(t.path) for t in targets.values()],
                    record=record)
    rendered: list[tuple[Target, str | bytes]] = []  # every payload is rendered before anything is written
    if plot is not None:
        from numerics.support.png import figure_png

        rendered.append((targets["plot"], figure_png(record.figure())))
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


simulate = api(COMMAND, _simulate, __name__)

__all__ = ["COMMAND", "DEFAULT_PRESET", "simulate"]
