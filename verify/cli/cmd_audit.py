"""``verify audit MODEL``: which hypotheses of the paper's theorems a transformer satisfies.

Thin renderer over :func:`llm_checks.audit.audit`.  Exit code: 0 if every hypothesis of the
requested theorem(s) holds, 3 if one fails, 4 if none fails but one is unknown, 2 on bad input
(missing or corrupt weights, unknown model or theorem, missing torch).
"""
from __future__ import annotations

import sys
from pathlib import Path

from .common import UsageError, add_force_option, add_format_option, emit, exit_code
from .outputs import Target, check_targets, write_all


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
    from llm_checks.audit import audit, resolve_theorems
    from llm_checks.loaders import load_model
    from llm_checks.prompts import random_prompts
    from llm_checks.render import render_audit

    from theorems.errors import InvalidInput

    if args.hemisphere_prompts < 0 or args.hemisphere_tokens < 2:
        raise UsageError("--hemisphere-prompts must be >= 0 and --hemisphere-tokens >= 2")
    if args.seed < 0:
        raise InvalidInput("--seed", "a non-negative integer", args.seed)
    resolve_theorems(args.theorem)  # fail fast on a typo, before loading a large model
    targets = []
    if args.plot:
        if not args.plot.lower().endswith(".png"):
            raise InvalidInput("--plot", "a file name ending in .png", args.plot)
        targets = [Target("--plot", Path(args.plot))]
        check_targets(targets, args.force)

    def say(message: str) -> None:
        if not args.no_progress:
            sys.stderr.write(message + "\n")
            sys.stderr.flush()

    loaded = load_model(args.model, weights=args.weights, random_init=args.random_init, seed=args.seed,
                        allow_pickle=args.allow_pickle, on_event=say)
    prompts = None
    if args.hemisphere_prompts:
        config = loaded.model.config
        limit = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
        if limit is not None and args.hemisphere_tokens > int(limit):
            raise InvalidInput("--hemisphere-tokens", f"at most {int(limit)} tokens (the model's learned positions)",
                               args.hemisphere_tokens)
        prompts = random_prompts(args.hemisphere_prompts, args.hemisphere_tokens, int(loaded.model.config.vocab_size), args.seed)
    say("measuring every layer and head")
    from numerics.progress import TextProgress

    report = audit(loaded, theorems=args.theorem, prompts=prompts,
                   progress=TextProgress(sys.stderr, "audit", not args.no_progress))
    payload = report.to_json(tables=not args.no_tables)
    text = render_audit(report)
    if args.plot:
        from llm_checks.plot_audit import audit_png

        write_all([(targets[0], audit_png(report))], args.force)
        payload["plot"] = args.plot
        text += f"\nwrote {args.plot}"
    emit(text, payload, args.format)
    return exit_code(report.status)


