"""``verify consensus MODEL``: the paper's depth-by-re-feeding consensus measurement (docs/model.md §5).

Thin renderer over :func:`verify.api.consensus.consensus` (which calls
:func:`llm_checks.consensus.measure_consensus`); writes JSON + NPZ (``--out``) and a PNG
(``--plot``) atomically, shows a progress bar on stderr.  Exit code 0 when the measurement ran (it
is a measurement, not a verdict), 2 on bad input.
"""
from __future__ import annotations

import sys

from .common import add_force_option, add_format_option, emit


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
    from numerics.support.progress import TextProgress

    return TextProgress(sys.stderr, "consensus blocks", enabled)


def _say(enabled: bool):
    def say(message: str) -> None:
        if enabled:
            sys.stderr.write(message.rstrip("\n") + "\n")
            sys.stderr.flush()
    return say


def run(args) -> int:
    from verify.api.consensus import ConsensusCall, check_options, run as measure
    from verify.api._options import flag

    opts = ConsensusCall.from_namespace(args)
    targets = check_options(opts, flag)  # option limits and every output file, before loading anything
    report = measure(args.model, opts, targets, progress=_Bar(not args.no_progress), on_event=_say(not args.no_progress),
                     name=flag)
    emit(report.text, report.to_json(), args.format)
    return report.exit_code
