"""``verify simulate``: integrate eq. 5 and report consensus metrics (a renderer over
:func:`verify.api.simulate.simulate`: this module parses the flags, checks every option and output
target before any work, naming the flag, and prints the report)."""
from __future__ import annotations

import os
import sys

from .common import add_force_option, add_format_option, emit
from verify.limits import MAX_T_END


def _description() -> str:
    """Built when ``verify simulate --help`` is formatted: the preset list imports numerics (cold start)."""
    from numerics.presets import PRESETS

    return ("Integrate the attention dynamics from an instance file or a preset (default: constant-identity-full). "
            "Options that would have no effect are refused: --tokens/--dim with --instance, --seed with --instance "
            "and no --samples, --rtol/--atol with --digits. Presets: " + ", ".join(PRESETS))


def add_parser(sub) -> None:
    p = sub.add_parser("simulate", help="simulate the continuous model (eq. 5) and report E, V, hemisphere events",
                       description=_description)
    src = p.add_mutually_exclusive_group()
    src.add_argument("--instance", metavar="FILE", help="instance JSON file (see docs/format.md)")
    src.add_argument("--preset", metavar="NAME", help="a preset '<P>-<U>-<mask>' (default constant-identity-full)")
    p.add_argument("--t-end", type=float, required=True, metavar="T", help=f"final time (at most {MAX_T_END:g})")
    p.add_argument("--digits", type=int, metavar="D",
                   help="arbitrary precision (Taylor method) with D digits; the metrics are computed and printed with D digits")
    p.add_argument("--rtol", type=float, help="relative tolerance of the float64 integrator (default 1e-10)")
    p.add_argument("--atol", type=float, help="absolute tolerance of the float64 integrator (default 1e-12)")
    p.add_argument("--points", type=int, default=151, metavar="K", help="number of output times (default 151)")
    p.add_argument("--samples", type=int, metavar="K", help="simulate K random initial conditions (mean, 95%% band)")
    p.add_argument("--seed", type=int, help="seed of the preset and of the random initial conditions (default 0)")
    p.add_argument("--tokens", type=int, metavar="N", help="number of tokens of a preset (default 12)")
    p.add_argument("--dim", type=int, metavar="d", help="dimension of a preset (default 3)")
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


def run(args) -> int:
    from verify.api._options import flag
    from verify.api.simulate import SimulateOptions, check_options, run as simulate

    opts = SimulateOptions.from_namespace(args)
    targets = check_options(opts, flag)  # every option and output file, before any work
    if opts.workers is not None or opts.scheduler is not None:
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # the CLI owns logging: no Dask INFO chatter
    bar = _Bar(args.progress or sys.stderr.isatty(), "simulate")
    try:
        report = simulate(opts, targets, progress=bar)
    finally:
        bar.close()
    emit(report.text, report.to_json(), args.format)
    return report.exit_code
