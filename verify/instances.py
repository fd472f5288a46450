"""Instances in any of their forms, and the example instances shipped inside the package.

One resolution for every caller (the API calls, :mod:`verify.coq`): a path to an instance file
(``verify docs format``), ``"example:NAME"`` for a packaged example (``verify examples``), a
JSON-like ``dict`` in the same format, or an :class:`~theorems.system.AttentionSystem`.  The
examples live in ``verify/data/examples/`` (package data, so a wheel carries them; the
repository's ``examples/*.json`` are byte-identical copies, checked in ``tests/wheel``).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from theorems.errors import InvalidInput, UnknownName

PREFIX = "example:"
"""``--instance example:NAME`` names a packaged example instead of a file."""
DIRECTORY = Path(__file__).resolve().parent / "data" / "examples"


def example_names() -> tuple[str, ...]:
    """The names of the packaged examples (file stems, sorted)."""
    return tuple(sorted(p.stem for p in DIRECTORY.glob("*.json")))


def example_path(name: str) -> Path:
    """The packaged file of example ``name`` (``UnknownName`` with close matches when there is none)."""
    if not isinstance(name, str):
        raise InvalidInput("name", "an example name as text", name)
    names = example_names()
    if name not in names:
        raise UnknownName("example", name, names)
    return DIRECTORY / f"{name}.json"


def resolve_instance(instance: Any, default: Callable[[], Any] | None = None) -> Any:
    """The :class:`~theorems.system.AttentionSystem` that ``instance`` names (module docstring), or
    ``default()`` for ``None`` (``None`` without a default).  The file and dictionary readers name
    the offending field of bad data (:mod:`theorems.system_json`); ``UnknownName`` with close
    matches for an unknown example; a missing file named like an example (``examples/NAME.json``
    outside a clone) gets the hint ``example:NAME``."""
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
    raise InvalidInput("instance", "a path to an instance file, example:NAME, a JSON-like dict or an AttentionSystem",
                       type(instance).__name__)


__all__ = ["DIRECTORY", "PREFIX", "example_names", "example_path", "resolve_instance"]
