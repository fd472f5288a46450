"""How the API calls name their options in errors, the error for an option that has no effect, and
the type checks every API call shares.

The CLI and the API share the checks: the API names an option by its keyword (``t_end``), the
CLI by its flag (``--t-end``), so each check takes the naming function.  The type checks are
strict: a bool option takes ``True`` / ``False`` (or a NumPy ``bool_``), never a string read by its
truthiness; an integer option takes an integer, never a bool, a float or a string; a path option
takes a ``str`` or an ``os.PathLike`` of text without NUL bytes.
"""
from __future__ import annotations

import numbers
import os
import sys
from pathlib import Path
from typing import Any

from theorems.errors import InvalidInput

POSITIONAL = {"theorem_id": "ID", "polynomial": "POLY"}
"""The CLI's names of the positional arguments (the API names them by their keyword)."""


class OptionConflict(InvalidInput):
    """An option that cannot be combined with another, or that would have no effect in this mode."""

    def __init__(self, field: str, message: str, got: object = None) -> None:
        super().__init__(field, f"{field} left out", got)
        self.args = (f"{field}: {message}",)  # the message says why; field, expected and got feed the JSON error


def keyword(name: str) -> str:
    """How the API names an option in its errors: the keyword argument."""
    return name


def flag(name: str) -> str:
    """How the CLI names an option in its errors: ``--t-end``, ``--json``, ``ID`` for a positional argument."""
    if name in POSITIONAL:
        return POSITIONAL[name]
    return "--json" if name == "json_out" else "--" + name.replace("_", "-")


def is_bool(value: Any) -> bool:
    """``True`` / ``False`` or a NumPy ``bool_`` (NumPy is not imported for this: a value can only be a
    ``bool_`` when NumPy is loaded)."""
    if isinstance(value, bool):
        return True
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.bool_)


def is_int(value: Any) -> bool:
    """An integer (``int`` or a NumPy integer), not a bool."""
    return isinstance(value, numbers.Integral) and not is_bool(value)


def is_number(value: Any) -> bool:
    """A real number (``int``, ``float``, a NumPy scalar, a ``Fraction``), not a bool."""
    return isinstance(value, numbers.Real) and not is_bool(value)


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a ``bool``; anything but a real bool is refused (a string ``"no"`` is truthy)."""
    if not is_bool(value):
        raise InvalidInput(name, "True or False", value)
    return bool(value)


def int_range(low: int, high: int | None) -> str:
    """The words of an integer range in an error: ``an integer between 1 and 64``."""
    return f"an integer >= {low}" if high is None else f"an integer between {low} and {high}"


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an ``int`` in ``[low, high]`` (``high=None``: no upper limit)."""
    if not is_int(value) or value < low or (high is not None and value > high):
        raise InvalidInput(name, int_range(low, high), value)
    return int(value)


def check_path(name: str, value: Any) -> Path | None:
    """``value`` as a :class:`~pathlib.Path`; ``None`` and ``""`` mean not given (``None``)."""
    if value is None or (isinstance(value, str) and not value):
        return None
    try:
        text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    except TypeError:  # an os.PathLike whose __fspath__ returns neither str nor bytes
        text = None
    if not isinstance(text, str):
        raise InvalidInput(name, "a path (a str or a pathlib.Path)", value)
    if "\0" in text:
        raise InvalidInput(name, "a path without NUL bytes", text)
    return Path(text)


def check_seed(name: str, value: Any, bits: int = 64) -> int:
    """A seed: an integer in ``[0, 2^bits)`` (``torch.manual_seed`` takes 64 bits, a preset's seed 32)."""
    if not is_int(value) or not 0 <= value < 2 ** bits:
        raise InvalidInput(name, f"an integer between 0 and 2^{bits} - 1", value)
    return int(value)
