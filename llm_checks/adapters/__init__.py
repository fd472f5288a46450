"""One adapter per architecture, each a function ``adapt(model) -> ModelLayout``.

:func:`adapt` dispatches on ``config.model_type``; unknown types raise
:class:`theorems.errors.UnknownName` listing the supported ones.
"""
from __future__ import annotations

import importlib

from theorems.errors import UnknownName

from ..layout import ModelLayout

_MODULES = {
    "gpt2": "gpt2",
    "gpt_neo": "gpt_neo",
    "llama": "llama",
    "mistral": "llama",
    "qwen2": "llama",
    "bert": "bert",
}

SUPPORTED = tuple(sorted(_MODULES))


def adapt(model) -> ModelLayout:
    """The canonical layout of a Hugging Face model (read-only views of its parameters)."""
    model_type = str(getattr(model.config, "model_type", type(model).__name__))
    if model_type not in _MODULES:
        raise UnknownName("architecture", model_type, SUPPORTED)
    module = importlib.import_module(f"{__name__}.{_MODULES[model_type]}")
    return module.adapt(model)


__all__ = ["adapt"]
