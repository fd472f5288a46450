"""Inputs shared by the API calls: an attention-system instance given in any of its three forms."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from theorems.errors import InvalidInput

from .examples import PREFIX, example_names, example_path


def resolve_instance(instance: Any, default: Callable[[], Any] | None = None):
    """The :class:`~theorems.system.AttentionSystem` that ``instance`` names.

    ``instance`` is a path (``str`` or :class:`~pathlib.Path`) to an instance file
    (``verify docs format``), ``"example:NAME"`` for a packaged example (``verify examples``;
    ``UnknownName`` with close matches), a JSON-like ``dict`` in the same format, an
    ``AttentionSystem``, or ``None``: then ``default()`` when a default is given, else ``None``.
    The file reader and the dictionary reader name the offending field of bad data
    (:mod:`theorems.system_json`).  A missing file named like an example (``examples/NAME.json``
    outside a clone) gets the hint ``example:NAME``.
    """
    from theorems.system import AttentionSystem  # lazily: NumPy and SymPy (cold start of the CLI)
    from theorems.system_json import load_system, system_from_dict

    if instance is None:
        return default() if default is not None else None
    if isinstance(instance, AttentionSystem):
        return instance
    if isinstance(instance, str) and instance.startswith(PREFIX):
        return load_system(example_path(instance[len(PREFIX):]))
    if isinstance(instance, (str, Path)):
        stem = Path(instance).stem
        if not os.path.lexists(instance) and Path(instance).suffix == ".json" and stem in example_names():
            raise InvalidInput("instance", "a readable JSON file", str(instance),
                               f"No such file; the packaged example is {PREFIX}{stem} "
                               f"(verify examples {stem} --copy DIR writes it)")
        return load_system(instance)
    if isinstance(instance, dict):
        return system_from_dict(instance)
    raise InvalidInput("instance", "a path to an instance file, a JSON-like dict or an AttentionSystem",
                       type(instance).__name__)
