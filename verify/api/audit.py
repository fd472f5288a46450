"""``verify.audit``: which hypotheses of the paper's theorems a transformer's weights satisfy.

The library call behind ``verify audit MODEL`` (a façade over :func:`llm_checks.audit.audit`;
torch is imported inside the call, never by ``import verify``)::

    import verify
    r = verify.audit("gpt2-tiny", random_init=True, theorem=["4.2"], hemisphere_tokens=8)
    r.verdict, r.exit_code             # 'fails', 3: holds 0 / fails 3 / unknown 4
    r.record                           # the llm_checks.audit.AuditReport

``model`` is a registry name (``gpt2-xl``, ``minilm``, ...), a local directory or ``.gguf`` file,
or an already loaded :class:`llm_checks.loaders.LoadedModel` (then the loading options
``weights``, ``random_init`` and ``allow_pickle`` do not apply and are refused).  ``seed`` (an
integer below 2^64) seeds the random initialisation and the hemisphere prompts; ``hemisphere_prompts``
is at most 1000 and ``hemisphere_tokens`` at most 2048 (:data:`LIMITS`).  Every option is
type-checked before anything loads (a bool option takes ``True`` / ``False`` only).  ``plot`` writes the layer x head heatmaps
(PNG), refused before any work when the target is unsafe (:mod:`verify.outputs`; ``force``
replaces an existing file).  Nothing here prints: ``on_event(message)`` receives the loader's
messages and ``progress(fraction, label)`` is called once per measured layer.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Sequence

from theorems.errors import InvalidInput
from verify.outputs import Target, check_targets, write_all
from verify.report import Report

from ._options import OptionConflict, check_bool, check_int, check_path, check_seed, keyword


@dataclass(frozen=True)
class AuditOptions:
    """The options of ``verify audit`` (snake_case, the CLI's defaults)."""

    weights: str | Path | None = None
    random_init: bool = False
    theorem: str | Sequence[str] | None = None
    seed: int = 0
    hemisphere_prompts: int = 1
    hemisphere_tokens: int = 32
    allow_pickle: bool = False
    no_tables: bool = False
    plot: str | Path | None = None
    force: bool = False

    @classmethod
    def from_namespace(cls, args) -> "AuditOptions":
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})


def _is_loaded(model: Any) -> bool:
    from llm_checks.loaders import LoadedModel

    return isinstance(model, LoadedModel)


LIMITS = {"hemisphere_prompts": (0, 1000), "hemisphere_tokens": (2, 2048)}
"""Range of the size options (the hemisphere test keeps every token state of every prompt in memory;
the model's learned positions may limit ``hemisphere_tokens`` further); ``seed`` is below 2^64."""
BOOLS = ("random_init", "allow_pickle", "no_tables", "force")


def check_options(model, opts: AuditOptions, name: Callable[[str], str] = keyword) -> list[Target]:
    """Every option and the plot target, before loading anything (errors name options with ``name``)."""
    from llm_checks.audit import resolve_theorems

    for key, (low, high) in LIMITS.items():
        check_int(name(key), getattr(opts, key), low, high)
    check_seed(name("seed"), opts.seed)  # torch.manual_seed takes 64 bits
    for key in BOOLS:
        check_bool(name(key), getattr(opts, key))
    if _is_loaded(model):
        for key in ("weights", "random_init", "allow_pickle"):
            if getattr(opts, key):
                raise OptionConflict(name(key), "has no effect on an already loaded model", getattr(opts, key))
    elif not isinstance(model, (str, Path)):
        raise InvalidInput("model", "a model name, a local directory or .gguf file, or a LoadedModel", type(model).__name__)
    check_path(name("weights"), opts.weights)
    _check_theorem_ids(opts.theorem, name)
    resolve_theorems(opts.theorem)  # fail fast on a typo, before loading a large model
    targets = []
    plot = check_path(name("plot"), opts.plot)
    if plot is not None:
        if not str(opts.plot).lower().endswith(".png"):
            raise InvalidInput(name("plot"), "a file name ending in .png", str(opts.plot))
        targets = [Target(name("plot"), plot)]
    check_targets(targets, opts.force)
    return targets


def _check_theorem_ids(ids: Any, name: Callable[[str], str]) -> None:
    """``None`` (every audited theorem), one id or a list of ids, as text."""
    if ids is None or isinstance(ids, str):
        return
    if not isinstance(ids, (list, tuple)) or not all(isinstance(i, str) for i in ids):
        raise InvalidInput(name("theorem"), "a theorem id such as '4.2' or a list of ids (text)", ids)


def run(model, opts: AuditOptions, targets: list[Target], *, progress: Callable[..., None] | None = None,
        on_event: Callable[[str], None] | None = None, name: Callable[[str], str] = keyword) -> Report:
    """Load (unless ``model`` is loaded), audit and report; ``targets`` come from :func:`check_options`."""
    from llm_checks.audit import audit as run_audit
    from llm_checks.loaders import load_model
    from llm_checks.prompts import random_prompts
    from llm_checks.render import render_audit

    loaded = model if _is_loaded(model) else load_model(
        str(model), weights=opts.weights, random_init=opts.random_init, seed=opts.seed,
        allow_pickle=opts.allow_pickle, on_event=on_event)
    prompts = None
    if opts.hemisphere_prompts:
        config = loaded.model.config
        limit = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
        if limit is not None and opts.hemisphere_tokens > int(limit):
            raise InvalidInput(name("hemisphere_tokens"), f"at most {int(limit)} tokens (the model's learned positions)",
                               opts.hemisphere_tokens)
        prompts = random_prompts(opts.hemisphere_prompts, opts.hemisphere_tokens, int(config.vocab_size), opts.seed)
    if on_event is not None:
        on_event("measuring every layer and head")
    record = run_audit(loaded, theorems=opts.theorem, prompts=prompts, progress=progress)
    body = {"verdict": record.status.value, **record.to_json(tables=not opts.no_tables)}
    text = render_audit(record)
    if targets:
        from llm_checks.plot_audit import audit_png

        write_all([(targets[0], audit_png(record))], opts.force)
        body["plot"] = str(targets[0].path)
        text += f"\nwrote {targets[0].path}"
    return Report("audit", body, text, exit_code=record.status.exit_code, files=[str(t.path) for t in targets],
                  record=record)


def audit(model, *, weights: str | Path | None = None, random_init: bool = False,
          theorem: str | Sequence[str] | None = None, seed: int = 0, hemisphere_prompts: int = 1,
          hemisphere_tokens: int = 32, allow_pickle: bool = False, no_tables: bool = False,
          plot: str | Path | None = None, force: bool = False, progress: Callable[..., None] | None = None,
          on_event: Callable[[str], None] | None = None) -> Report:
    """Audit ``model`` against ``theorem`` (ids; every audited theorem by default); the options are
    ``verify audit``'s (module docstring).  The report's ``verdict`` combines every hypothesis in
    three-valued logic; its ``record`` is the :class:`llm_checks.audit.AuditReport`."""
    opts = AuditOptions(weights, random_init, theorem, seed, hemisphere_prompts, hemisphere_tokens, allow_pickle,
                        no_tables, plot, force)
    return run(model, opts, check_options(model, opts), progress=progress, on_event=on_event)


__all__ = ["AuditOptions", "audit", "check_options", "run"]
