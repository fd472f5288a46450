"""``verify.audit``: which hypotheses of the paper's theorems a transformer's weights satisfy.

A façade over :func:`llm_checks.audit.audit` (torch is imported inside the call, never by ``import verify``)::

    r = verify.audit("gpt2-tiny", random_init=True, theorem=["4.2"], hemisphere_tokens=8)
    r.verdict, r.exit_code, r.record   # 'not_applicable', 6 (holds 0, unknown 4); the llm_checks AuditReport

The verdict combines every hypothesis of ``theorem`` (default: every audited theorem) in three-valued
logic.  ``model``: anything :func:`llm_checks.sources.resolve_model` accepts (for a model object,
``weights``, ``random_init`` and ``allow_pickle`` are refused).  Every option and the ``plot`` target are
checked before anything loads.  ``on_event(message)`` receives the loader's messages, ``progress(fraction,
label)`` each measured layer.  ``fate``: the layer x head map of certified fates instead (:mod:`.fate_heads`).
"""
from __future__ import annotations

import os
from typing import Any, Callable, Sequence

from theorems.errors import InvalidInput
from verify.outputs import file_target, write_all
from verify.report import Report

from ._table import FORCE, REQUIRED, Command, Option, OptionError, api


def model_option(help: str) -> Option:
    return Option("model", default=REQUIRED, positional=True, flag="model", help=help)


def check_model(model: Any) -> Any:
    """A name or path (as ``str``), or a model object :mod:`llm_checks` accepts (passed on unchanged)."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    from llm_checks.sources import is_model_object

    if not is_model_object(model):
        raise InvalidInput("model", "a model name, a local directory or .gguf file, a Hugging Face id, a LoadedModel, "
                           "a transformers PreTrainedModel or a TransformerLens HookedTransformer", type(model).__name__)
    return model


CALLBACKS = (Option("progress", "callable", api_only=True, help="progress(fraction, ...), called as the run advances"),
             Option("on_event", "callable", api_only=True, help="on_event(message): the loader's messages"),
             Option("no_progress", "bool", False, cli_only=True, help="no progress messages on stderr"))
"""The callbacks of the calls that load a model, and the CLI's switch for its messages."""
WEIGHTS = Option("weights", "path", metavar="DIR", group="source",
                 help="local Hugging Face directory (config.json + safetensors) or .gguf file")
COMMAND = Command(
    "audit", "audit", "audit a transformer's weights against the theorems' hypotheses", None, None,
    (model_option("model name (gpt2-xl, gpt-neo-2.7B, gpt2-tiny, minilm, smollm2, ...) or a local directory / .gguf file"),
     WEIGHTS,
     Option("random_init", "bool", False, group="source", help="random weights from the named config (no download)"),
     Option("theorem", metavar="ID", cli={"action": "append"},
            help="theorem id (3.2, 4.2, 4.4-sym); repeatable; default all"),
     Option("seed", "seed", 0, help="seed for random init and prompts (default 0)"),
     Option("hemisphere_prompts", "int", 1, low=0, high=1000, metavar="N", help="random prompts whose token states "
            "are tested for the hemisphere condition (0: skip; default 1)"),
     Option("hemisphere_tokens", "int", 32, low=2, high=2048, metavar="T", help="tokens per hemisphere prompt (default 32)"),
     Option("allow_pickle", "bool", False, help="allow pickle checkpoints (loaded with torch.load(weights_only=True))"),
     Option("no_tables", "bool", False, help="omit the per-layer, per-head tables from the JSON output"),
     Option("plot", "path", metavar="FILE",
            help="write layer x head heatmaps (antisymmetric share of U, ||U - I||, ||P||) as PNG"),
     Option("fate", "bool", False, help="certify each head's fate from one prompt instead (layer x head map; "
            "verify docs fate, real heads)"),
     Option("prompt", "text", metavar="TEXT", help="the prompt of --fate (default: a fixed sentence)"),
     Option("prompts", "path", metavar="FILE", help="a text file whose first non-empty line is the prompt of --fate"),
     Option("fate_budget", "number", 600.0, high=86400, metavar="SECONDS",
            help="--fate: wall-clock seconds for the validated enclosures of the heads whose tokens straddle ker w "
                 "(0: none; default 600)"),
     Option("fate_workers", "int", 1, low=1, high=256, metavar="N",
            help="--fate: run those enclosures on a Dask LocalCluster of N processes (default 1: in this process)"),
     FORCE, *CALLBACKS))


def _audit(model: Any, weights: str | None, random_init: bool, theorem: str | Sequence[str] | None, seed: int,
           hemisphere_prompts: int, hemisphere_tokens: int, allow_pickle: bool, no_tables: bool, plot: str | None,
           force: bool, progress: Callable[..., None] | None, on_event: Callable[[str], None] | None,
           fate: bool = False, prompt: str | None = None, prompts: str | None = None,
           fate_budget: float = 600.0, fate_workers: int = 1) -> Report:
    from llm_checks.audit import audit as run_audit, resolve_theorems
    from llm_checks.prompts import random_prompts
    from llm_checks.sources import resolve_model

    model = check_model(model)
    heads = fate or prompt is not None or prompts is not None  # --fate: the layer x head map of certified fates
    if heads and not fate:
        raise OptionError("prompt", "--prompt and --prompts only with --fate", prompt if prompts is None else prompts,
                          conflict=True)
    if fate_budget < 0:
        raise OptionError("fate_budget", "a number of seconds >= 0 (at most 86400)", fate_budget)
    for name, given in (("fate_budget", fate_budget != 600.0), ("fate_workers", fate_workers != 1)):
        if given and not fate:
            raise OptionError(name, f"--{name.replace('_', '-')} only with --fate", True, conflict=True)
    if fate:
        for name, given in (("theorem", theorem is not None), ("no_tables", no_tables),
                            ("hemisphere_prompts", hemisphere_prompts != 1), ("hemisphere_tokens", hemisphere_tokens != 32)):
            if given:
                raise OptionError(name, f"--{name.replace('_', '-')} belongs to the hypothesis audit, not to --fate",
                                  True, conflict=True)
    if not heads:
        if not (theorem is None or isinstance(theorem, str) or (
                isinstance(theorem, (list, tuple)) and all(isinstance(i, str) for i in theorem))):
            raise OptionError("theorem", "a theorem id such as '4.2' or a list of ids (text)", theorem)
        resolve_theorems(theorem)  # fail fast on a typo, before loading a large model
    targets = file_target("plot", plot, force, ".png")
    if heads:
        from . import fate_heads

        record = fate_heads.audit_fate(model, prompt=prompt, prompts=prompts, weights=weights, on_event=on_event,
                                       random_init=random_init, seed=seed, allow_pickle=allow_pickle,
                                       progress=progress, fate_budget=fate_budget,
                                       fate_workers=fate_workers)
        verdict = "holds" if record.certified == len(record.heads) else "unknown"  # exit 0, or 4
        body = {"verdict": verdict, "scope": "heads", **record.to_json()}
    else:
        loaded = resolve_model(model, weights=weights, random_init=random_init, seed=seed, allow_pickle=allow_pickle,
                               on_event=on_event)
        prompts = None
        if hemisphere_prompts:
            config = loaded.model.config
            limit = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
            if limit is not None and hemisphere_tokens > int(limit):
                raise OptionError("hemisphere_tokens", f"at most {int(limit)} tokens (the model's learned positions)",
                                  hemisphere_tokens)
            prompts = random_prompts(hemisphere_prompts, hemisphere_tokens, int(config.vocab_size), seed)
        if on_event is not None:
            on_event("measuring every layer and head")
        record = run_audit(loaded, theorems=theorem, prompts=prompts, progress=progress)
        body = {"verdict": record.status.value, **record.to_json(tables=not no_tables)}
    text = record.render()
    if targets:
        from llm_checks.plot_audit import audit_png
        from numerics.support.png import figure_png

        png = figure_png(record.figure(), dpi=150, bbox_inches="tight") if heads else audit_png(record)
        write_all([(targets[0], png)], force)
        body["plot"] = str(targets[0].path)
        text += f"\nwrote {targets[0].path}"
    return Report("fate" if heads else "audit", body, text, files=[str(t.path) for t in targets], record=record)


audit = api(COMMAND, _audit, __name__)

__all__ = ["COMMAND", "audit"]
