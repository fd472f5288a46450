"""``verify consensus MODEL``: the paper's depth-by-re-feeding consensus measurement (SPEC §5).

Thin renderer over :func:`llm_checks.consensus.measure_consensus`; writes JSON + NPZ (``--out``)
and a PNG (``--plot``) atomically, shows a progress bar on stderr.  Exit code 0 when the
measurement ran (it is a measurement, not a verdict), 2 on bad input.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from theorems.errors import InvalidInput

from .common import EXIT_OK, add_force_option, add_format_option, emit
from .limits import check_range
from .outputs import Target, check_dir, check_targets, write_all

CHECKPOINT = "checkpoint.npz"
"""Written to --out after every pass of every prompt batch; removed when the run completes."""

LIMITS = {"--prompts": 1000, "--tokens": 2048, "--passes": 100, "--batch-size": 1000}
"""Upper limits of the size options (the paper's protocol is 100 prompts x 200 tokens, 10 passes)."""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("consensus", help="measure consensus across depth by re-feeding prompts")
    parser.add_argument("model", help="model name (gpt2-xl, gpt-neo-2.7B, minilm, smollm2, gpt2-tiny, ...), a local directory "
                                      "or .gguf file, or a Hugging Face id found in the local cache")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--weights", metavar="DIR", help="local Hugging Face directory / .gguf file / cached Hugging Face id")
    source.add_argument("--random-init", action="store_true", help="random weights from the named config")
    parser.add_argument("--prompts", default="100", metavar="N|FILE",
                        help="number of random-token prompts (default 100, at most 1000), or a file: a JSON list of "
                             "token-id lists, or text (one prompt per line, tokenized with the model's own tokenizer)")
    parser.add_argument("--tokens", type=int, default=200, help="tokens per random prompt (default 200, at most 2048)")
    parser.add_argument("--passes", type=int, default=1, metavar="K", help="re-feeding passes over all blocks (default 1, at most 100)")
    parser.add_argument("--no-ffn", action="store_true", help="remove the feedforward (the MLP returns zero, its norm is the identity)")
    parser.add_argument("--weights-mode", choices=("trained", "random", "random-fresh"), default=None,
                        help="trained (periodic), random (random once, periodic) or random-fresh (re-drawn every pass, seed 42+i+1); "
                             "default: random with --random-init, trained otherwise")
    parser.add_argument("--anchor", default="first", help="anchor of E_first: first, mean or a token index (default first)")
    parser.add_argument("--center", action="store_true", help="mean-centre the token states before the cosines")
    final = parser.add_mutually_exclusive_group()
    final.add_argument("--final-ln", dest="final_ln", action="store_true", help="apply the final norm to the states before the metrics")
    final.add_argument("--no-final-ln", dest="final_ln", action="store_false", help="metrics on the raw residual stream (default)")
    parser.set_defaults(final_ln=False)
    parser.add_argument("--device", default="cpu", help="cpu or cuda[:N] (default cpu)")
    parser.add_argument("--dtype", choices=("float32", "float64", "float16", "bfloat16"), default="float32", help="default float32")
    parser.add_argument("--compare-float32", action="store_true",
                        help="re-run the first batch in float32 on the same weights and report the per-block drift")
    parser.add_argument("--seed", type=int, default=0, help="seed for prompts and random init (default 0)")
    parser.add_argument("--batch-size", type=int, default=10, help="prompts per forward batch (default 10, at most 1000)")
    parser.add_argument("--plot", metavar="FILE", help="write a PNG of E against layer (log axis) with the 95%% band")
    parser.add_argument("--out", metavar="DIR", help="write consensus.json and consensus.npz here, and a checkpoint after every pass")
    parser.add_argument("--resume", action="store_true", help="continue the run whose checkpoint is in --out DIR")
    parser.add_argument("--no-progress", action="store_true", help="no progress messages on stderr")
    add_force_option(parser)
    add_format_option(parser)
    parser.set_defaults(run=run)


def _Bar(enabled: bool):
    """Blocks measured, with an ETA, on stderr: the project's one progress utility."""
    from numerics.progress import TextProgress

    return TextProgress(sys.stderr, "consensus blocks", enabled)


def _creatable_dir(path: Path, flag: str) -> None:
    """``path`` is a writable directory or can be made one: probed by creating the missing parts
    and removing them again, so a bad ``--out`` fails before hours of measurement, not after."""
    if path.exists():
        if not path.is_dir():
            raise InvalidInput(flag, "a directory (or a path where one can be created)", str(path), hint="it is an existing file")
        if not os.access(path, os.W_OK):
            raise InvalidInput(flag, "a writable directory", str(path))
        return
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    try:
        path.mkdir(parents=True)
    except OSError as exc:
        raise InvalidInput(flag, "a directory that can be created", str(path), hint=exc.strerror or str(exc)) from None
    for part in missing:  # deepest first: leave the file system as it was
        part.rmdir()


def _prompt_count(value: str) -> int | None:
    text = str(value).strip()
    return int(text) if text.isdigit() else None


def _check_outputs(args) -> list[Target]:
    """Option limits and every output file, before loading or measuring anything."""
    if args.seed < 0:
        raise InvalidInput("--seed", "a non-negative integer", args.seed)
    count = _prompt_count(args.prompts)
    if count is None and not Path(args.prompts).is_file():
        raise InvalidInput("--prompts", "a number of random prompts or an existing prompts file", args.prompts)
    sizes = {"--prompts": count, "--tokens": args.tokens, "--passes": args.passes, "--batch-size": args.batch_size}
    for flag, high in LIMITS.items():
        if sizes[flag] is not None:
            check_range(flag, sizes[flag], 2 if flag == "--tokens" else 1, high)
    from llm_checks.metrics import check_metric_options

    try:
        check_metric_options(args.anchor, args.center)
    except InvalidInput as exc:
        raise InvalidInput("--anchor", exc.expected, args.anchor, hint=exc.hint) from None
    if args.resume and not args.out:
        raise InvalidInput("--resume", "--out DIR naming the directory of the interrupted run", None)
    targets = []
    if args.out:
        out = Path(args.out)
        check_dir("--out", out)
        targets += [Target("--out", out / "consensus.json"), Target("--out", out / "consensus.npz")]
        ckpt = out / CHECKPOINT
        if args.resume and not ckpt.is_file():
            raise InvalidInput("--resume", f"a checkpoint {ckpt}", "no such file", hint="run once with --out DIR first")
        if ckpt.exists() and not args.resume and not args.force:
            raise InvalidInput("--out", "a directory without an unfinished run", f"checkpoint {ckpt}",
                               hint="pass --resume to continue it, or --force to start afresh")
    if args.plot:
        if not args.plot.lower().endswith(".png"):
            raise InvalidInput("--plot", "a file name ending in .png", args.plot)
        targets.append(Target("--plot", Path(args.plot)))
    check_targets(targets, args.force or args.resume)
    return targets


def _say(enabled: bool):
    def say(message: str) -> None:
        if enabled:
            sys.stderr.write(message.rstrip("\n") + "\n")
            sys.stderr.flush()
    return say


def _prompts(args, loaded):
    """``(prompts or None, count, tokens, source)`` from ``--prompts`` (a count or a file)."""
    from llm_checks.loaders import tokenizer_factory
    from llm_checks.prompts import read_prompts_file

    count = _prompt_count(args.prompts)
    if count is not None:
        return None, count, args.tokens, "random"
    rows, kind = read_prompts_file(args.prompts, int(loaded.model.config.vocab_size), tokenizer_factory(loaded))
    if len(rows) > LIMITS["--prompts"]:
        raise InvalidInput("--prompts", f"at most {LIMITS['--prompts']} prompts", len(rows))
    longest = max(len(r) for r in rows)
    check_range("--tokens", longest, 2, LIMITS["--tokens"])
    return rows, len(rows), longest, f"{kind}: {Path(args.prompts).resolve()}"


def run(args) -> int:
    from llm_checks.checkpoint import load_checkpoint, save_checkpoint
    from llm_checks.consensus import ConsensusOptions, measure_consensus
    from llm_checks.loaders import load_model
    from llm_checks.render import render_consensus

    targets = _check_outputs(args)
    say = _say(not args.no_progress)
    mode = args.weights_mode or ("random" if args.random_init else "trained")
    random_init = args.random_init or (mode != "trained" and args.weights is None)
    started = time.perf_counter()
    loaded = load_model(args.model, weights=args.weights, random_init=random_init, seed=args.seed,
                        dtype=args.dtype, device=args.device, on_event=say)
    say(f"loaded {loaded.name} in {time.perf_counter() - started:.1f} s")
    rows, count, tokens, source = _prompts(args, loaded)
    from llm_checks.metrics import check_metric_options

    shortest = tokens if rows is None else min(len(r) for r in rows)
    try:
        check_metric_options(args.anchor, args.center, shortest)
    except InvalidInput as exc:
        raise InvalidInput("--anchor", exc.expected + " (the shortest prompt)", args.anchor) from None
    options = ConsensusOptions(prompts=count, tokens=tokens, passes=args.passes, ffn=not args.no_ffn,
                               weights_mode=mode, seed=args.seed, batch_size=args.batch_size, anchor=args.anchor,
                               center=args.center, final_ln=args.final_ln, prompts_source=source,
                               compare_float32=args.compare_float32)
    checkpoint = resume = None
    if args.out:
        ckpt = Path(args.out) / CHECKPOINT
        resume = load_checkpoint(ckpt) if args.resume else None
        checkpoint = lambda state: save_checkpoint(ckpt, state)  # noqa: E731
        if resume:
            say(f"resuming at prompt batch {resume['batch']}, pass {resume['next_pass']}")
    result = measure_consensus(loaded, options, progress=_Bar(not args.no_progress), prompts=rows,
                               checkpoint=checkpoint, resume=resume)
    payload = result.to_json()
    payload["cli_options"] = {k: v for k, v in vars(args).items() if k != "run"}
    files: dict[Path, str | bytes] = {}
    if args.out:  # every payload is rendered before anything is written (all or nothing)
        out = Path(args.out)
        payload["files"] = {"json": str(out / "consensus.json"), "npz": str(out / "consensus.npz")}
        files[out / "consensus.npz"] = result.to_npz_bytes()
    if args.plot:
        from llm_checks.plot import consensus_png

        files[Path(args.plot)] = consensus_png(result)
        payload["plot"] = str(args.plot)
    if args.out:
        files[Path(args.out) / "consensus.json"] = json.dumps(payload, indent=2) + "\n"
    if files:
        write_all([(t, files[t.path]) for t in targets], args.force or args.resume)
    if args.out:
        (Path(args.out) / CHECKPOINT).unlink(missing_ok=True)  # the run is complete: nothing left to resume
    text = render_consensus(result)
    if args.out or args.plot:
        text += "\n" + "\n".join(f"wrote {p}" for p in ([payload["files"]["json"], payload["files"]["npz"]] if args.out else []) + ([args.plot] if args.plot else []))
    emit(text, payload, args.format)
    return EXIT_OK
