"""``verify simulate``: integrate eq. 5 and report consensus metrics (a renderer over
:mod:`numerics`; all work is done by library calls that return records)."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from theorems.errors import InvalidInput

from .common import EXIT_OK, UsageError, add_force_option, add_format_option, emit
from .limits import MAX_DIGITS, MAX_POINTS, MAX_SAMPLES, MAX_T_END, check_range, check_simulation, check_t_end
from .outputs import Target, check_targets, write_all

MAX_TOKENS = 2000
"""Largest ``--tokens`` of a preset (the instance-file limit is ``theorems.system_json.MAX_TOKENS``)."""
MAX_PRESET_DIM = 512


def _description() -> str:
    """Built when ``verify simulate --help`` is formatted: the preset list imports numerics (cold start)."""
    from numerics.presets import PRESETS

    return "Integrate the attention dynamics from an instance file or a preset. Presets: " + ", ".join(PRESETS)


def add_parser(sub) -> None:
    p = sub.add_parser("simulate", help="simulate the continuous model (eq. 5) and report E, V, hemisphere events",
                       description=_description)
    src = p.add_mutually_exclusive_group()
    src.add_argument("--instance", metavar="FILE", help="instance JSON file (see docs/format.md)")
    src.add_argument("--preset", metavar="NAME", help="a preset '<P>-<U>-<mask>', e.g. constant-identity-full")
    p.add_argument("--t-end", type=float, required=True, metavar="T", help=f"final time (at most {MAX_T_END:g})")
    p.add_argument("--digits", type=int, metavar="D", help="arbitrary precision (Taylor method) with D digits")
    p.add_argument("--rtol", type=float, default=1e-10, help="relative tolerance of the float64 integrator")
    p.add_argument("--atol", type=float, default=1e-12, help="absolute tolerance of the float64 integrator")
    p.add_argument("--points", type=int, default=151, metavar="K", help="number of output times (default 151)")
    p.add_argument("--samples", type=int, metavar="K", help="simulate K random initial conditions (mean, 95%% band)")
    p.add_argument("--seed", type=int, default=0, help="seed of the preset and of the random initial conditions")
    p.add_argument("--tokens", type=int, default=12, metavar="N", help="number of tokens of a preset (default 12)")
    p.add_argument("--dim", type=int, default=3, metavar="d", help="dimension of a preset (default 3)")
    p.add_argument("--variant", choices=("cos", "abs"), default="cos", help="E_first with cos or |cos|")
    p.add_argument("--plot", metavar="FILE", help="write a PNG: E and V against t (log scale); tokens on S^2 when d = 3")
    p.add_argument("--json", dest="json_out", metavar="FILE", help="also write the JSON report to FILE")
    p.add_argument("--backend", choices=("numpy", "torch"), default="numpy",
                   help="float64 integrator: numpy DOP853 (default) or batched DOP853 on torch (needs the llm extra)")
    p.add_argument("--device", choices=("cpu", "cuda"), help="torch device of --backend torch (default: cpu)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="with --samples: split the initial conditions over a Dask LocalCluster of N processes")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --samples: split the initial conditions over an existing Dask cluster (tcp://HOST:PORT)")
    p.add_argument("--progress", action="store_true", help="show a progress bar on stderr (default: when stderr is a terminal)")
    add_force_option(p)
    add_format_option(p)
    p.set_defaults(run=run)


class _Bar:
    """A one-line progress bar on stderr (the CLI's; the library only calls back)."""

    def __init__(self, enabled: bool, label: str) -> None:
        self.enabled = enabled
        self.label = label
        self.shown = -1

    def __call__(self, fraction: float) -> None:
        pct = int(100 * min(max(fraction, 0.0), 1.0))
        if self.enabled and pct != self.shown:
            self.shown = pct
            filled = pct * 30 // 100
            sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {pct:3d}%")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.shown >= 0:
            sys.stderr.write("\n")


def _check(args) -> list[Target]:
    """Every option and output target, before any work; returns the files to write."""
    check_t_end(args.t_end, "--t-end")
    check_range("--digits", args.digits, 5, MAX_DIGITS)
    check_range("--samples", args.samples, 1, MAX_SAMPLES)
    if args.digits is not None and args.samples is not None:
        raise UsageError("--digits and --samples cannot be combined (the Taylor method runs one instance at a time)")
    if args.workers is not None or args.scheduler is not None:
        if args.workers is not None and args.scheduler is not None:
            raise UsageError("--workers and --scheduler cannot be combined (a LocalCluster or an existing cluster)")
        if args.samples is None or args.backend != "numpy":
            raise UsageError("--workers/--scheduler split the --samples initial conditions of the numpy DOP853; "
                             "give --samples K (and no --backend torch)")
        check_range("--workers", args.workers, 1, 64)
    check_range("--points", args.points, 2, MAX_POINTS)
    check_range("--tokens", args.tokens, 1, MAX_TOKENS)
    check_range("--dim", args.dim, 1, MAX_PRESET_DIM)
    for flag, value in (("--rtol", args.rtol), ("--atol", args.atol)):
        if not (math.isfinite(value) and 0 < value < 1):
            raise InvalidInput(flag, "a tolerance in (0, 1)", value)
    if args.plot and not args.plot.lower().endswith(".png"):
        raise InvalidInput("--plot", "a file name ending in .png", args.plot)
    if args.seed < 0 or args.seed >= 2 ** 32:
        raise InvalidInput("--seed", "an integer between 0 and 2^32 - 1", args.seed)
    targets = [Target(flag, Path(path)) for flag, path in (("--plot", args.plot), ("--json", args.json_out)) if path]
    _check_backend(args)
    check_targets(targets, args.force)  # checked before integrating, not when writing the result
    return targets


def _check_backend(args) -> None:
    """``--backend torch`` needs torch, and ``--device cuda`` a CUDA device: refused (exit 2) before any work."""
    if args.backend != "torch":
        if args.device is not None:
            raise UsageError("--device applies to --backend torch only")
        return
    if args.digits is not None:
        raise UsageError("--digits and --backend torch cannot be combined (torch runs float64 or float32)")
    from numerics.torch_backend import _torch

    torch = _torch()  # MissingDependency (exit 2) names the install command
    if args.device == "cuda" and not torch.cuda.is_available():
        raise UsageError(f"--device cuda: CUDA is not available to torch {torch.__version__} on this machine "
                         "(torch.cuda.is_available() is False); use --device cpu or a CUDA build of torch")


def _system(args):
    from numerics.presets import preset
    from theorems.system_json import load_system

    if args.instance:
        return load_system(args.instance)
    return preset(args.preset or "constant-identity-full", N=args.tokens, d=args.dim, seed=args.seed)


def run(args) -> int:
    from numerics.dop853 import DOP853
    from numerics.evidence import batch_summary, summarize
    from numerics.presets import with_random_tokens
    from numerics.taylor import TaylorMP

    targets = _check(args)
    if not args.instance:  # a preset has at least one head: refuse before building it
        check_simulation(args.tokens, args.dim, 1, args.t_end, args.samples, args.digits)
    system = _system(args)
    check_simulation(system.N, system.d, system.H, args.t_end, args.samples, args.digits)
    bar = _Bar(args.progress or sys.stderr.isatty(), "simulate")
    try:
        if args.digits is not None:
            traj = TaylorMP(digits=args.digits).integrate(system, args.t_end, samples=args.points, progress=bar)
        else:
            batch = [system] if args.samples is None else with_random_tokens(system, args.samples, args.seed)
            if args.workers is not None or args.scheduler is not None:
                traj = _distributed(args, system, bar)
            else:
                if args.backend == "torch":
                    from numerics.torch_dop853 import TorchDOP853

                    integrator = TorchDOP853(rtol=args.rtol, atol=args.atol, device=args.device or "cpu")
                else:
                    integrator = DOP853(rtol=args.rtol, atol=args.atol)
                traj = integrator.integrate(batch, args.t_end, samples=args.points, progress=bar)
    finally:
        bar.close()
    payload: dict[str, Any] = {"instance": system.name, "N": system.N, "d": system.d, "H": system.H,
                               "mask": system.mask, "beta": str(system.beta), "integrator": traj.to_json()}
    if args.samples is None:
        payload.update(summarize(traj, 0, args.variant))
    else:
        payload["batch"] = batch_summary(traj, args.variant)
    files: list[tuple[Target, str | bytes]] = []
    if args.plot:  # every payload is rendered before anything is written (all or nothing)
        from numerics.plotting import plot_trajectory

        files.append((targets[0], plot_trajectory(traj, variant=args.variant, title=system.name)))
        payload["plot"] = args.plot
    if args.json_out:
        files.append((targets[-1], json.dumps(payload, indent=2) + "\n"))
    if files:
        write_all(files, args.force)
    emit(_render(payload), payload, args.format)
    return EXIT_OK


def _distributed(args, system, bar):
    """The --samples batch split into parts on the same executor as ``verify reproduce``
    (identical numbers to the serial run: each instance's steps do not depend on the others)."""
    from numerics.batch_parts import join_parts, simulate_part
    from theorems.system_json import system_to_dict
    from verify.reproduce.executor import make_executor
    from verify.reproduce.tasks import decode

    import os

    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # the CLI owns logging: no Dask INFO chatter
    executor = make_executor(args.workers, args.scheduler)
    try:
        workers = args.workers or int(executor.describe().get("workers") or 1)
        n_parts = min(args.samples, 4 * workers)  # a few parts per worker balance uneven instances
        bounds = [round(k * args.samples / n_parts) for k in range(n_parts + 1)]
        data = system_to_dict(system)
        jobs = [(f"simulate-{k}", simulate_part, (data, args.samples, args.seed, lo, hi, args.t_end, args.points,
                                                  args.rtol, args.atol))
                for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:]))]
        parts: dict[int, dict] = {}
        for index, (status, _seconds, text) in executor.run(jobs):
            if status != "ok":
                raise RuntimeError(f"a simulation part failed on the cluster: {text}")
            parts[index] = decode(text)
            bar(len(parts) / len(jobs))
    finally:
        executor.close()
    return join_parts([parts[k] for k in range(len(jobs))], workers)


def _render(p: dict[str, Any]) -> str:
    integ = p["integrator"]
    lines = [f"instance {p['instance']}: N={p['N']} d={p['d']} H={p['H']} mask={p['mask']} beta={p['beta']}",
             f"integrator {integ['method']} ({integ['precision']['kind']}, {integ['precision']['bits']} bits): "
             f"{integ['status']}, {integ['stats']['steps']} steps, {integ['stats']['wall_time_s']:.3g} s, "
             f"error estimate {integ['error_estimate']:.3g} ({integ['error_kind']})"]
    if "final" in p:
        f = p["final"]
        lines.append(f"at t={f['t']:g}: E_first({p['E_variant']})={f['E_first']:.3e}  E_pair={f['E_pair']:.3e}  "
                     f"V={f['V']:.3e}  hemisphere margin={f.get('hemisphere_margin', float('nan')):.3g}")
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
