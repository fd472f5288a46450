"""Inputs shared by the API calls: an attention-system instance given in any of its three forms."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from theorems.errors import InvalidInput


def resolve_instance(instance: Any, default: Callable[[], Any] | None = None):
    """The :class:`~theorems.system.AttentionSystem` that ``instance`` names.

    ``instance`` is a path (``str`` or :class:`~pathlib.Path`) to an instance file
    (docs/format.md), a JSON-like ``dict`` in the same format, an ``AttentionSystem``, or
    ``None``: then ``default()`` when a default is given, else ``None``.  The file reader and the
    dictionary reader name the offending field of bad data (:mod:`theorems.system_json`).
    """
    from theorems.system import AttentionSystem  # lazily: NumPy and SymPy (cold start of the CLI)
    from theorems.system_json import load_system, system_from_dict

    if instance is None:
        return default() if default is not None else None
    if isinstance(instance, AttentionSystem):
        return instance
    if isinstance(instance, (str, Path)):
        return load_system(instance)
    if isinstance(instance, dict):
        return system_from_dict(instance)
    raise InvalidInput("instance", "a path to an instance file, a JSON-like dict or an AttentionSystem",
                       type(instance).__name__)
