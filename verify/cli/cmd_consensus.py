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

LIMITS = {"--prompts": 1000, "--tokens": 2048, "--passes": 100, "--batch-size": 1000}
"""Upper limits of the size options (the paper's protocol is 100 prompts x 200 tokens, 10 passes)."""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("consensus", help="measure consensus across depth by re-feeding random prompts")
    parser.add_argument("model", help="model name (gpt2-xl, gpt-neo-2.7B, gpt2-tiny, ...) or a local directory")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--weights", metavar="DIR", help="local Hugging Face directory with trained weights")
    source.add_argument("--random-init", action="store_true", help="random weights from the named config")
    parser.add_argument("--prompts", type=int, default=100, help="number of random-token prompts (default 100, at most 1000)")
    parser.add_argument("--tokens", type=int, default=200, help="tokens per prompt (default 200, at most 2048)")
    parser.add_argument("--passes", type=int, default=1, metavar="K", help="re-feeding passes over all blocks (default 1, at most 100)")
    parser.add_argument("--no-ffn", action="store_true", help="remove the feedforward: each block is x + Attn(LN_1(x))")
    parser.add_argument("--weights-mode", choices=("trained", "random", "random-fresh"), default=None,
                        help="trained (periodic), random (random once, periodic) or random-fresh (re-drawn every pass, seed 42+i+1); "
                             "default: random with --random-init, trained otherwise")
    parser.add_argument("--device", default="cpu", help="cpu or cuda[:N] (default cpu)")
    parser.add_argument("--dtype", choices=("float32", "float64", "float16", "bfloat16"), default="float32", help="default float32")
    parser.add_argument("--seed", type=int, default=0, help="seed for prompts and random init (default 0)")
    parser.add_argument("--batch-size", type=int, default=10, help="prompts per forward batch (default 10, at most 1000)")
    parser.add_argument("--plot", metavar="FILE", help="write a PNG of E against layer (log axis) with the 95%% band")
    parser.add_argument("--out", metavar="DIR", help="write consensus.json and consensus.npz here")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_force_option(parser)
    add_format_option(parser)
    parser.set_defaults(run=run)


class _Bar:
    """A one-line progress bar on stderr, redrawn at most ~10 times a second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.last = 0.0
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        width = 30
        filled = int(width * done / max(total, 1))
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} blocks  {now - self.start:6.1f} s")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


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


def _check_outputs(args) -> list[Target]:
    """Option limits and every output file, before loading or measuring anything."""
    if args.seed < 0:
        raise InvalidInput("--seed", "a non-negative integer", args.seed)
    for flag, high in LIMITS.items():
        check_range(flag, getattr(args, flag[2:].replace("-", "_")), 1, high)
    targets = []
    if args.out:
        out = Path(args.out)
        check_dir("--out", out)
        targets += [Target("--out", out / "consensus.json"), Target("--out", out / "consensus.npz")]
    if args.plot:
        if not args.plot.lower().endswith(".png"):
            raise InvalidInput("--plot", "a file name ending in .png", args.plot)
        targets.append(Target("--plot", Path(args.plot)))
    check_targets(targets, args.force)
    return targets


def run(args) -> int:
    from llm_checks.consensus import ConsensusOptions, measure_consensus
    from llm_checks.loaders import load_model
    from llm_checks.render import render_consensus

    targets = _check_outputs(args)
    mode = args.weights_mode or ("random" if args.random_init else "trained")
    random_init = args.random_init or (mode != "trained" and args.weights is None)
    options = ConsensusOptions(prompts=args.prompts, tokens=args.tokens, passes=args.passes, ffn=not args.no_ffn,
                               weights_mode=mode, seed=args.seed, batch_size=args.batch_size)
    loaded = load_model(args.model, weights=args.weights, random_init=random_init, seed=args.seed,
                        dtype=args.dtype, device=args.device)
    result = measure_consensus(loaded, options, progress=_Bar(not args.no_progress))
    payload = result.to_json()
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
        write_all([(t, files[t.path]) for t in targets], args.force)
    text = render_consensus(result)
    if args.out or args.plot:
        text += "\n" + "\n".join(f"wrote {p}" for p in ([payload["files"]["json"], payload["files"]["npz"]] if args.out else []) + ([args.plot] if args.plot else []))
    emit(text, payload, args.format)
    return EXIT_OK
