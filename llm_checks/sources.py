"""Where weights come from: the single entry point :func:`resolve_model` (what identifies them, file
hashes, shape, memory estimate and tokenizer, is :mod:`llm_checks.identity`, re-exported here).

:func:`resolve_model` accepts a registry name, a local directory or ``.gguf`` file, a path inside a
Hugging Face cache, a hub id (``org/name[@rev]`` or a legacy id such as ``gpt2``, resolved offline by
:mod:`llm_checks.hub`), an already loaded :class:`~llm_checks.loaders.LoadedModel`, a
``transformers.PreTrainedModel`` (:mod:`llm_checks.in_memory`) or a TransformerLens
``HookedTransformer`` (:mod:`llm_checks.lens`).  Every kind ends as a ``LoadedModel``, so the
audit and the consensus measurement see one type and give the same numbers for the same weights.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from theorems.errors import InvalidInput

from .identity import WEIGHT_SUFFIXES, file_records, memory_estimate, shape_of, tokenizer_loader  # noqa: F401  (re-exported)

_LOAD_OPTIONS = ("weights", "random_init", "allow_pickle")


def is_model_object(model: Any) -> bool:
    """True for what :func:`resolve_model` takes as an object (not a name or path): a LoadedModel, a
    ``transformers.PreTrainedModel``, a TransformerLens ``HookedTransformer`` (or ``TransformerBridge``,
    which :func:`resolve_model` refuses saying what to pass instead).  Never imports torch for a str or a Path."""
    if isinstance(model, (str, Path)):
        return False
    from .loaders import LoadedModel

    if isinstance(model, LoadedModel):
        return True
    from . import in_memory, lens

    return in_memory.is_pretrained(model) or lens.is_lens_model(model)


def resolve_model(
    model: Any,
    *,
    weights: str | Path | None = None,
    random_init: bool = False,
    seed: int = 0,
    allow_pickle: bool = False,
    dtype: str | None = None,
    device: str | None = None,
    on_event: Callable[[str], None] | None = None,
):
    """Any accepted model (module docstring) -> :class:`~llm_checks.loaders.LoadedModel`.

    Names and paths go through :func:`llm_checks.loaders.load_model` (``dtype`` default float32,
    ``device`` default cpu).  Objects are never modified: ``weights``, ``random_init`` and
    ``allow_pickle`` do not apply to them and are refused; ``dtype`` / ``device`` ``None`` keep the
    object's own, other values give the measurement converted copies of the tensors (the object's
    parameters stay as they are).  A LoadedModel is returned as it is (``dtype`` / ``device`` must
    then be ``None`` or its own).
    """
    if isinstance(model, (str, Path)):
        from .loaders import load_model

        return load_model(str(model), weights=weights, random_init=random_init, seed=seed, allow_pickle=allow_pickle,
                          dtype=dtype or "float32", device=device or "cpu", on_event=on_event)
    if not is_model_object(model):
        raise InvalidInput("model", "a model name, a local directory or .gguf file, a Hugging Face id, a LoadedModel, "
                           "a transformers PreTrainedModel or a TransformerLens HookedTransformer", type(model).__name__)
    given = {"weights": weights, "random_init": random_init, "allow_pickle": allow_pickle}
    for key in _LOAD_OPTIONS:
        if given[key]:
            raise InvalidInput(key, "no loading option for a model object (it is already loaded)", given[key],
                               hint="pass a name or path to load, or leave the option out")
    from . import in_memory, lens
    from .loaders import LoadedModel

    if isinstance(model, LoadedModel):
        for key, value, own in (("dtype", dtype, model.dtype), ("device", device, _device_of(model.model))):
            if value is not None and value != own and not (value == "cuda" and own.startswith("cuda")):
                raise InvalidInput(key, f"{own} (the LoadedModel's own) or None", value, hint="load it again with that option")
        return model
    if lens.is_lens_model(model):
        return lens.from_lens(model, dtype=dtype, device=device, on_event=on_event)
    return in_memory.from_pretrained_object(model, dtype=dtype, device=device, on_event=on_event)


def _device_of(model) -> str:
    return str(next(model.parameters()).device)
