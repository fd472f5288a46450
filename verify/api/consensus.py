"""``verify.consensus``: the paper's depth-by-re-feeding consensus measurement (docs/model.md §5).

The library call behind ``verify consensus MODEL`` (a façade over
:func:`llm_checks.consensus.measure_consensus`; torch is imported inside the call)::

    import verify
    r = verify.consensus("gpt2-tiny", random_init=True, prompts=4, tokens=16, passes=2)
    r.payload["summary"]["E_first"]["final_mean"], r.record   # the llm_checks ConsensusResult

It is a measurement, not a verdict: ``status`` is ``completed`` and the exit code 0.  ``prompts``
is a number of random-token prompts or a file (a JSON list of token-id lists, or text, one prompt
per line, tokenized with the model's tokenizer).  ``out`` receives ``consensus.json`` and
``consensus.npz`` and, while the run lasts, a checkpoint after every pass (``resume`` continues
it; the checkpoint format and its checks are :mod:`llm_checks.checkpoint`'s: a checkpoint that
does not fit the run is refused, naming the field, before anything is measured, reported or
written); ``plot`` a PNG.  Every target is checked before the model is loaded and every file is
rendered before any is written (:mod:`verify.outputs`).  Every option is type-checked before the
model loads: the sizes against :data:`LIMITS`, ``seed`` below 2^64, ``device`` ``cpu`` or
``cuda[:N]``, and a bool option takes ``True`` / ``False`` only.  Nothing here prints: ``on_event`` gets
the loader's messages, ``progress(fraction)`` the blocks measured.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Callable

from theorems.errors import InvalidInput
from verify.limits import check_range
from verify.outputs import Target, check_dir, check_targets, write_all
from verify.report import Report

from ._options import check_bool, check_int, check_path, check_seed, is_int, keyword

CHECKPOINT = "checkpoint.npz"
"""Written to ``out`` after every pass of every prompt batch; removed when the run completes."""
LIMITS = {"prompts": 1000, "tokens": 2048, "passes": 100, "batch_size": 1000}
"""Upper limits of the size options (the paper's protocol is 100 prompts x 200 tokens, 10 passes)."""


@dataclass(frozen=True)
class ConsensusCall:
    """The options of ``verify consensus`` (snake_case, the CLI's defaults; ``weights_mode=None``:
    ``random`` with ``random_init``, ``trained`` otherwise)."""

    weights: str | Path | None = None
    random_init: bool = False
    prompts: int | str | Path = 100
    tokens: int = 200
    passes: int = 1
    no_ffn: bool = False
    weights_mode: str | None = None
    anchor: str | int = "first"
    center: bool = False
    final_ln: bool = False
    device: str = "cpu"
    dtype: str = "float32"
    compare_float32: bool = False
    seed: int = 0
    batch_size: int = 10
    plot: str | Path | None = None
    out: str | Path | None = None
    resume: bool = False
    force: bool = False

    @classmethod
    def from_namespace(cls, args) -> "ConsensusCall":
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})

    @property
    def mode(self) -> str:
        return self.weights_mode or ("random" if self.random_init else "trained")


BOOLS = ("random_init", "no_ffn", "center", "final_ln", "compare_float32", "resume", "force")
DTYPES = ("float32", "float64", "float16", "bfloat16")
WEIGHTS_MODES = ("trained", "random", "random-fresh")


def _prompt_count(value) -> int | None:
    """The number of random prompts ``value`` names (an int or a string of digits), else ``None`` (a file)."""
    if is_int(value):
        return int(value)
    text = str(value).strip()
    return int(text) if text.isascii() and text.isdigit() else None


def _check_prompts(value, name: Callable[[str], str]) -> int | None:
    """``prompts``: a count (an int or a string of digits) or an existing prompts file (a str or a Path)."""
    if not (is_int(value) or isinstance(value, (str, Path))):
        raise InvalidInput(name("prompts"), "a number of random prompts or an existing prompts file", value)
    count = _prompt_count(value)
    if count is None and not check_path(name("prompts"), value).is_file():
        raise InvalidInput(name("prompts"), "a number of random prompts or an existing prompts file", value)
    return count


def _check_device(opts: ConsensusCall, name: Callable[[str], str]) -> None:
    """``device`` (cpu or cuda[:N]), ``dtype`` and ``weights_mode``, before the loader sees them."""
    if not isinstance(opts.device, str) or not (opts.device == "cpu" or opts.device.startswith("cuda")):  # as the loader
        raise InvalidInput(name("device"), "cpu or cuda[:N]", opts.device)
    if not isinstance(opts.dtype, str) or opts.dtype not in DTYPES:
        raise InvalidInput(name("dtype"), ", ".join(DTYPES), opts.dtype)
    if opts.weights_mode is not None and (not isinstance(opts.weights_mode, str) or opts.weights_mode not in WEIGHTS_MODES):
        raise InvalidInput(name("weights_mode"), "'trained', 'random' or 'random-fresh'", opts.weights_mode)


def check_options(opts: ConsensusCall, name: Callable[[str], str] = keyword) -> list[Target]:
    """Option limits and every output file, before loading or measuring anything."""
    from llm_checks.metrics import check_metric_options

    check_seed(name("seed"), opts.seed)  # torch.manual_seed takes 64 bits
    for key in BOOLS:
        check_bool(name(key), getattr(opts, key))
    count = _check_prompts(opts.prompts, name)
    sizes = {"prompts": count, "tokens": opts.tokens, "passes": opts.passes, "batch_size": opts.batch_size}
    for key, high in LIMITS.items():
        if key != "prompts" or count is not None:  # a prompts file is counted once read
            check_int(name(key), sizes[key], 2 if key == "tokens" else 1, high)
    _check_device(opts, name)
    check_path(name("weights"), opts.weights)
    try:
        check_metric_options(opts.anchor, opts.center)
    except InvalidInput as exc:
        raise InvalidInput(name("anchor"), exc.expected, opts.anchor, hint=exc.hint) from None
    if opts.resume and not opts.out:
        raise InvalidInput(name("resume"), f"{name('out')} DIR naming the directory of the interrupted run", None)
    return _targets(opts, name)


def _targets(opts: ConsensusCall, name: Callable[[str], str]) -> list[Target]:
    """``out`` (``consensus.json``, ``consensus.npz`` and the checkpoint) and ``plot``, checked."""
    targets = []
    out = check_path(name("out"), opts.out)
    if out is not None:
        check_dir(name("out"), out)
        targets += [Target(name("out"), out / "consensus.json"), Target(name("out"), out / "consensus.npz")]
        ckpt = out / CHECKPOINT
        if opts.resume and not ckpt.is_file():
            raise InvalidInput(name("resume"), f"a checkpoint {ckpt}", "no such file", hint=f"run once with {name('out')} DIR first")
        if ckpt.exists() and not opts.resume and not opts.force:
            raise InvalidInput(name("out"), "a directory without an unfinished run", f"checkpoint {ckpt}",
                               hint=f"pass {name('resume')} to continue it, or {name('force')} to start afresh")
    plot = check_path(name("plot"), opts.plot)
    if plot is not None:
        if not str(opts.plot).lower().endswith(".png"):
            raise InvalidInput(name("plot"), "a file name ending in .png", str(opts.plot))
        targets.append(Target(name("plot"), plot))
    check_targets(targets, opts.force or opts.resume)
    return targets


def _prompts(opts: ConsensusCall, loaded, name: Callable[[str], str]):
    """``(prompts or None, count, tokens, source)`` from ``prompts`` (a count or a file)."""
    from llm_checks.loaders import tokenizer_factory
    from llm_checks.prompts import read_prompts_file

    count = _prompt_count(opts.prompts)
    if count is not None:
        return None, count, opts.tokens, "random"
    rows, kind = read_prompts_file(opts.prompts, int(loaded.model.config.vocab_size), tokenizer_factory(loaded))
    if len(rows) > LIMITS["prompts"]:
        raise InvalidInput(name("prompts"), f"at most {LIMITS['prompts']} prompts", len(rows))
    check_range(name("tokens"), max(len(r) for r in rows), 2, LIMITS["tokens"])
    return rows, len(rows), max(len(r) for r in rows), f"{kind}: {Path(opts.prompts).resolve()}"


def run(model, opts: ConsensusCall, targets: list[Target], *, progress: Callable[[float], None] | None = None,
        on_event: Callable[[str], None] | None = None, name: Callable[[str], str] = keyword) -> Report:
    """Load, measure, write the files and report; ``targets`` come from :func:`check_options`."""
    from llm_checks.checkpoint import load_checkpoint, save_checkpoint
    from llm_checks.consensus import ConsensusOptions, measure_consensus
    from llm_checks.loaders import load_model
    from llm_checks.metrics import check_metric_options
    from llm_checks.render import render_consensus

    say = on_event or (lambda message: None)
    ckpt = Path(opts.out) / CHECKPOINT if opts.out else None
    resume = load_checkpoint(ckpt) if opts.resume and ckpt else None  # its own checks, before the model loads
    random_init = opts.random_init or (opts.mode != "trained" and opts.weights is None)
    started = time.perf_counter()
    loaded = load_model(str(model), weights=opts.weights, random_init=random_init, seed=opts.seed, dtype=opts.dtype,
                        device=opts.device, on_event=on_event)
    say(f"loaded {loaded.name} in {time.perf_counter() - started:.1f} s")
    rows, count, tokens, source = _prompts(opts, loaded, name)
    try:
        check_metric_options(opts.anchor, opts.center, tokens if rows is None else min(len(r) for r in rows))
    except InvalidInput as exc:
        raise InvalidInput(name("anchor"), exc.expected + " (the shortest prompt)", opts.anchor) from None
    options = ConsensusOptions(prompts=count, tokens=tokens, passes=opts.passes, ffn=not opts.no_ffn,
                               weights_mode=opts.mode, seed=opts.seed, batch_size=opts.batch_size, anchor=opts.anchor,
                               center=opts.center, final_ln=opts.final_ln, prompts_source=source,
                               compare_float32=opts.compare_float32)
    checkpoint = None if ckpt is None else (lambda state: save_checkpoint(ckpt, state))
    result = measure_consensus(loaded, options, progress=progress, prompts=rows, checkpoint=checkpoint, resume=resume,
                               on_resume=lambda b, p: say(f"resuming at prompt batch {b}, pass {p}"))
    body = {"status": "completed", **result.to_json()}
    body["cli_options"] = {k: str(v) if isinstance(v, Path) else v for k, v in asdict(opts).items()}
    body["cli_options"].update(model=str(model), prompts=str(opts.prompts))
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
    text = render_consensus(result)
    if written:
        text += "\n" + "\n".join(f"wrote {p}" for p in written)
    report = Report("consensus", body, text, files=written, record=result)
    if opts.out:
        files[Path(opts.out) / "consensus.json"] = json.dumps(report.payload, indent=2) + "\n"
    if files:
        write_all([(t, files[t.path]) for t in targets], opts.force or opts.resume)
    if opts.out:
        (Path(opts.out) / CHECKPOINT).unlink(missing_ok=True)  # the run is complete: nothing left to resume
    return report


def consensus(model, *, weights: str | Path | None = None, random_init: bool = False, prompts: int | str | Path = 100,
              tokens: int = 200, passes: int = 1, no_ffn: bool = False, weights_mode: str | None = None,
              anchor: str | int = "first", center: bool = False, final_ln: bool = False, device: str = "cpu",
              dtype: str = "float32", compare_float32: bool = False, seed: int = 0, batch_size: int = 10,
              plot: str | Path | None = None, out: str | Path | None = None, resume: bool = False, force: bool = False,
              progress: Callable[[float], None] | None = None, on_event: Callable[[str], None] | None = None) -> Report:
    """Measure consensus across depth for ``model`` (a registry name, a local directory or ``.gguf``
    file, or a cached Hugging Face id); the options are ``verify consensus``'s (module docstring).
    The report's ``record`` is the :class:`llm_checks.consensus.ConsensusResult`."""
    opts = ConsensusCall(weights, random_init, prompts, tokens, passes, no_ffn, weights_mode, anchor, center, final_ln,
                         device, dtype, compare_float32, seed, batch_size, plot, out, resume, force)
    return run(model, opts, check_options(opts), progress=progress, on_event=on_event)


__all__ = ["CHECKPOINT", "ConsensusCall", "LIMITS", "check_options", "consensus", "run"]
