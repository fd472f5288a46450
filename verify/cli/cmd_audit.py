"""``verify audit MODEL``: which hypotheses of the paper's theorems a transformer satisfies.

Thin renderer over :func:`verify.api.audit.audit` (which calls :func:`llm_checks.audit.audit`).
Exit code: 0 if every hypothesis of the requested theorem(s) holds, 3 if one fails, 4 if none fails
but one is unknown, 2 on bad input (missing or corrupt weights, unknown model or theorem, missing
torch).
"""
from __future__ import annotations

import sys

from .common import add_force_option, add_format_option, emit


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("audit", help="audit a transformer's weights against the theorems' hypotheses")
    parser.add_argument("model", help="model name (gpt2-xl, gpt-neo-2.7B, gpt2-tiny, minilm, smollm2, ...) or a local directory / .gguf file")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--weights", metavar="DIR", help="local Hugging Face directory (config.json + safetensors) or .gguf file")
    source.add_argument("--random-init", action="store_true", help="random weights from the named config (no download)")
    parser.add_argument("--theorem", action="append", metavar="ID", help="theorem id (3.2, 4.2, 4.4-sym); repeatable; default all")
    parser.add_argument("--seed", type=int, default=0, help="seed for random init and prompts (default 0)")
    parser.add_argument("--hemisphere-prompts", type=int, default=1, metavar="N",
                        help="random prompts whose token states are tested for the hemisphere condition (0: skip; default 1)")
    parser.add_argument("--hemisphere-tokens", type=int, default=32, metavar="T", help="tokens per hemisphere prompt (default 32)")
    parser.add_argument("--allow-pickle", action="store_true", help="allow pickle checkpoints (loaded with torch.load(weights_only=True))")
    parser.add_argument("--no-tables", action="store_true", help="omit the per-layer, per-head tables from the JSON output")
    parser.add_argument("--plot", metavar="FILE", help="write layer x head heatmaps (antisymmetric share of U, ||U - I||, ||P||) as PNG")
    parser.add_argument("--no-progress", action="store_true", help="no progress messages on stderr")
    add_force_option(parser)
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from numerics.support.progress import TextProgress
    from verify.api.audit import AuditOptions, check_options, run as run_audit
    from verify.api._options import flag

    opts = AuditOptions.from_namespace(args)
    targets = check_options(args.model, opts, flag)  # every option and the plot file, before loading the model

    def say(message: str) -> None:
        if not args.no_progress:
            sys.stderr.write(message + "\n")
            sys.stderr.flush()

    report = run_audit(args.model, opts, targets, progress=TextProgress(sys.stderr, "audit", not args.no_progress),
                       on_event=say, name=flag)
    emit(report.text, report.to_json(), args.format)
    return report.exit_code
