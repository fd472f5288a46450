"""``verify.consensus``: the paper's depth-by-re-feeding consensus measurement (docs/model.md §5).

A façade over :func:`llm_checks.consensus.measure_consensus` (torch is imported inside the call)::

    r = verify.consensus("gpt2-tiny", random_init=True, prompts=4, tokens=16, passes=2)
    r.payload["summary"]["E_first"]["final_median"], r.record   # the llm_checks ConsensusResult

A measurement, not a verdict (``status`` ``completed``, exit 0).  ``prompts``: a number of random-token
prompts or a file (a JSON list of token-id lists, or text, one prompt per line).  ``out`` receives
``consensus.json``, ``consensus.npz`` and, while the run lasts, a checkpoint after every pass (``resume``
continues it; :mod:`llm_checks.checkpoint` refuses one that does not fit the run).  Every option and
target is checked before the model loads, every file rendered before any is written.  ``on_event`` gets
the loader's messages, ``progress(fraction)`` the blocks measured.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from theorems.errors import InvalidInput
from verify.limits import check_range
from verify.outputs import Target, check_dir, check_targets, file_target, write_all
from verify.report import Report

from ._table import FORCE, Command, Option, OptionError, Values as Options, api, is_int
from .audit import CALLBACKS, WEIGHTS, check_model, model_option

CHECKPOINT = "checkpoint"
"""A directory in ``out`` that grows by one pass file after every pass of every prompt batch
(:mod:`llm_checks.checkpoint`); removed when the run completes."""
LIMITS = {"prompts": 1000, "tokens": 2048, "passes": 1000, "batch_size": 1000}
"""Upper limits of the size options.  ``passes`` is the paper's depth: 100 prompts x 200 tokens re-fed
1000 times through GPT-2 XL (48,000 layers) and GPT-Neo 2.7B (32,000); the run is further bounded by
:data:`CELL_BUDGET`."""
CELL_BUDGET = 10_000_000
"""Most ``prompts x passes x blocks`` cells one run may record: three float64 metrics and the done mask
per cell (about 25 bytes, so 250 MB).  The paper's largest run, GPT-2 XL at 100 prompts x 1000 passes x
48 blocks, is 4.8 million cells."""
DTYPES = ("float32", "float64", "float16", "bfloat16")
COMMAND = Command(
    "consensus", "consensus", "measure consensus across depth by re-feeding prompts", None, None,
    (model_option("model name (gpt2-xl, gpt-neo-2.7B, minilm, smollm2, gpt2-tiny, ...), a local directory or .gguf "
                  "file, or a Hugging Face id found in the local cache"),
     WEIGHTS, Option("random_init", "bool", False, group="source", help="random weights from the named config"),
     Option("prompts", default=100, metavar="N|FILE", help="number of random-token prompts (default 100, at most "
            "1000), or a file: a JSON list of token-id lists, or text (one prompt per line, tokenized with the model's "
            "own tokenizer)"),
     Option("tokens", "int", 200, low=2, high=LIMITS["tokens"], help="tokens per random prompt (default 200, at most 2048)"),
     Option("passes", "int", 1, low=1, high=LIMITS["passes"], metavar="K",
            help="re-feeding passes over all blocks (default 1, at most 1000: the paper's depth; prompts x passes x "
            "blocks at most 10 million cells)"),
     Option("no_ffn", "bool", False, help="remove the feedforward (the MLP returns zero, its norm is the identity)"),
     Option("weights_mode", "choice", choices=("trained", "random", "random-fresh"), help="trained (periodic), random "
            "(random once, periodic) or random-fresh (re-drawn every pass, seed 42+i+1); default: random with "
            "--random-init, trained otherwise"),
     Option("anchor", default="first", help="anchor of E_first: first, mean or a token index (default first)"),
     Option("center", "bool", False, help="mean-centre the token states before the cosines"),
     Option("final_ln", "bool", False, group="final", help="apply the final norm to the states before the metrics"),
     Option("raw_stream", "bool", False, flag="--no-final-ln", cli_only=True, group="final",
            cli={"dest": "final_ln", "action": "store_false"}, help="metrics on the raw residual stream (default)"),
     Option("device", "text", "cpu", help="cpu or cuda[:N] (default cpu)"),
     Option("dtype", "choice", "float32", choices=DTYPES, help="default float32"),
     Option("compare_float32", "bool", False,
            help="re-run the first batch in float32 on the same weights and report the per-block drift"),
     Option("seed", "seed", 0, help="seed for prompts and random init (default 0)"),
     Option("batch_size", "int", 10, low=1, high=LIMITS["batch_size"],
            help="prompts per forward batch (default 10, at most 1000)"),
     Option("plot", "path", metavar="FILE", help="write a PNG of E against layer (log axis): the median and the 10-90%% band over prompts"),
     Option("out", "path", metavar="DIR",
            help="write consensus.json and consensus.npz here, and a checkpoint after every pass"),
     Option("resume", "bool", False, help="continue the run whose checkpoint is in --out DIR"),
     FORCE, *CALLBACKS))
CLI_OPTIONS = [o.name for o in COMMAND.options if not (o.cli_only or o.api_only or o.name == "model")]
"""The options echoed in the report's ``cli_options``."""


def check_options(opts: Options) -> list[Target]:
    """The prompts, the device, the anchor and every output file, before loading or measuring anything."""
    from llm_checks.metrics import check_metric_options
    from llm_checks.prompts import prompt_count

    valid = is_int(opts.prompts) or isinstance(opts.prompts, (str, Path))
    count = prompt_count(opts.prompts) if valid else None
    if not valid or (count is None and not Path(opts.prompts).is_file()):
        raise OptionError("prompts", "a number of random prompts or an existing prompts file", opts.prompts)
    if count is not None:  # a prompts file is counted once read
        check_range("prompts", count, 1, LIMITS["prompts"])
    if not (opts.device == "cpu" or opts.device.startswith("cuda")):  # as the loader
        raise OptionError("device", "cpu or cuda[:N]", opts.device)
    try:
        check_metric_options(opts.anchor, opts.center)
    except InvalidInput as exc:
        raise OptionError("anchor", exc.expected, opts.anchor, exc.hint) from None
    if opts.resume and not opts.out:
        raise OptionError("resume", "{out} DIR naming the directory of the interrupted run", None)
    targets = []
    if opts.out is not None:
        out = Path(opts.out)
        check_dir("out", out)
        targets += [Target("out", out / "consensus.json"), Target("out", out / "consensus.npz")]
        if opts.resume and not (out / CHECKPOINT).is_dir():
            raise OptionError("resume", f"a checkpoint directory {out / CHECKPOINT}", "no such directory",
                              "run once with {out} DIR first")
        if (out / CHECKPOINT).exists() and not opts.resume and not opts.force:
            raise OptionError("out", "a directory without an unfinished run", f"checkpoint {out / CHECKPOINT}",
                              "pass {resume} to continue it, or {force} to start afresh")
    check_targets(targets, opts.force or opts.resume)
    return targets + file_target("plot", opts.plot, opts.force or opts.resume, ".png")


def _consensus(**values: Any) -> Report:
    """Check, load, measure, write the files and report."""
    from llm_checks.checkpoint import load_checkpoint, save_checkpoint
    from llm_checks.consensus import ConsensusOptions, check_cell_budget, measure_consensus
    from llm_checks.metrics import check_metric_options
    from llm_checks.prompts import resolve_prompts
    from llm_checks.sources import resolve_model

    opts = Options(values, model=check_model(values["model"]))
    targets, progress, on_event = check_options(opts), opts.progress, opts.on_event
    say = on_event or (lambda message: None)
    ckpt = Path(opts.out) / CHECKPOINT if opts.out else None
    resume = load_checkpoint(ckpt) if opts.resume and ckpt else None  # its own checks, before the model loads
    mode = opts.weights_mode or ("random" if opts.random_init else "trained")
    random_init = opts.random_init or (mode != "trained" and opts.weights is None)
    started = time.perf_counter()
    loaded = resolve_model(opts.model, weights=opts.weights, random_init=random_init, seed=opts.seed, dtype=opts.dtype,
                           device=opts.device, on_event=on_event)
    say(f"loaded {loaded.name} in {time.perf_counter() - started:.1f} s")
    rows, count, tokens, source = resolve_prompts(opts.prompts, opts.tokens, loaded, LIMITS["prompts"], LIMITS["tokens"])
    check_cell_budget(count, opts.passes, loaded, CELL_BUDGET)
    try:
        check_metric_options(opts.anchor, opts.center, tokens if rows is None else min(len(r) for r in rows))
    except InvalidInput as exc:
        raise OptionError("anchor", exc.expected + " (the shortest prompt)", opts.anchor) from None
    options = ConsensusOptions(prompts=count, tokens=tokens, passes=opts.passes, ffn=not opts.no_ffn,
                               weights_mode=mode, seed=opts.seed, batch_size=opts.batch_size, anchor=opts.anchor,
                               center=opts.center, final_ln=opts.final_ln, prompts_source=source,
                               compare_float32=opts.compare_float32)
    checkpoint = None if ckpt is None else (lambda state: save_checkpoint(ckpt, state))
    result = measure_consensus(loaded, options, progress=progress, prompts=rows, checkpoint=checkpoint, resume=resume,
                               on_resume=lambda b, p: say(f"resuming at prompt batch {b}, pass {p}"))
    body = {"status": "completed", **result.to_json()}
    body["cli_options"] = {k: str(v) if isinstance(v, Path) else v for k, v in opts.items() if k in CLI_OPTIONS}
    model = str(opts.model) if isinstance(opts.model, (str, Path)) else loaded.name  # an object: its name, not its repr
    body["cli_options"].update(model=model, prompts=str(opts.prompts))
    files: dict[Path, str | bytes] = {}
    if opts.out:  # every payload is rendered before anything is written (all or nothing)
        out = Path(opts.out)
        body["files"] = {"json": str(out / "consensus.json"), "npz": str(out / "consensus.npz")}
        files[out / "consensus.npz"] = result.to_npz_bytes()
    if opts.plot:
        from llm_checks.plot import consensus_png

        files[Path(opts.plot)] = consensus_png(result)
        body["plot"] = str(opts.plot)
    written = [str(t.path) for t in targets]
    text = result.render() + "".join(f"\nwrote {p}" for p in written)
    report = Report("consensus", body, text, files=written, record=result)
    if opts.out:
        files[Path(opts.out) / "consensus.json"] = json.dumps(report.payload, indent=2) + "\n"
    if files:
        write_all([(t, files[t.path]) for t in targets], opts.force or opts.resume)
    if opts.out:  # the run is complete: nothing left to resume
        import shutil

        shutil.rmtree(Path(opts.out) / CHECKPOINT, ignore_errors=True)
    return report


consensus = api(COMMAND, _consensus, __name__)

__all__ = ["CELL_BUDGET", "CHECKPOINT", "COMMAND", "LIMITS", "consensus"]
