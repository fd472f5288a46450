"""Reading untrusted JSON with bounded size, nesting and integer length.

``json.loads`` alone is not safe on input from anywhere: text nested 100,000 deep raises
``RecursionError``, an integer literal of 5,000 digits raises Python's int/str conversion
``ValueError`` (without naming the field), and a multi-gigabyte file is read whole.  Here every
one of these is an :class:`~theorems.errors.InvalidInput` naming the file (and, for integers,
the JSON path of the offending value):

* the file is at most ``max_bytes`` (default 50 MB), checked with ``stat`` before reading;
* arrays and objects are nested at most ``max_depth`` (default 64) deep, measured on the text
  before parsing;
* integer literals have at most ``MAX_INT_DIGITS`` digits;
* ``NaN`` and ``Infinity`` (accepted by Python, not JSON) are refused.
"""
from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from .errors import InvalidInput

MAX_BYTES = 50 * 1024 * 1024
MAX_DEPTH = 64
MAX_INT_DIGITS = 4000
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class _HugeInt:
    """Placeholder for an integer literal longer than ``MAX_INT_DIGITS`` (reported with its path)."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _depth_exceeds(text: str, max_depth: int) -> bool | None:
    """True when brackets nest deeper than ``max_depth``; None when the scan cannot tell (unbalanced)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(max_depth):
        if not brackets:
            return False
        shorter = brackets.replace("[]", "").replace("{}", "")
        if shorter == brackets:
            return None  # unbalanced: a syntax error that json.loads will describe
        brackets = shorter
    return True if brackets else False


def _find_huge(data: Any) -> tuple[str, int] | None:
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _HugeInt):
            return path or "(top level)", value.digits
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
    return None


def loads(text: str, field: str, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``text`` (module docstring); ``field`` names the source in every error."""
    too_deep = InvalidInput(field, f"JSON nested at most {max_depth} deep", "deeper nesting")
    if _depth_exceeds(text, max_depth):
        raise too_deep
    huge: list[int] = []

    def parse_int(literal: str) -> int | _HugeInt:
        if len(literal.lstrip("-")) > MAX_INT_DIGITS:
            huge.append(len(literal))
            return _HugeInt(len(literal))
        return int(literal)

    def parse_constant(name: str) -> Any:
        raise InvalidInput(field, "valid JSON numbers", name, "NaN and Infinity are not JSON")

    try:
        data = json.loads(text, parse_int=parse_int, parse_constant=parse_constant)
    except RecursionError:
        raise too_deep from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(field, "valid JSON", f"syntax error at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if huge:
        where, digits = _find_huge(data) or ("(somewhere)", huge[0])
        raise InvalidInput(f"{field}: {where}", f"an integer of at most {MAX_INT_DIGITS} digits (write exact values as strings)",
                           f"a {digits}-digit integer")
    return data


def read_json(path: str | Path, field: str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """Read and parse a JSON file: a regular file of at most ``max_bytes``, UTF-8, bounded nesting.

    ``path`` is a ``str`` or a :class:`~pathlib.Path` (an integer would be read as a file
    descriptor, bytes are not a path here) without NUL bytes."""
    if not isinstance(path, (str, Path)):
        raise InvalidInput(field, "a path to a JSON file (a str or a pathlib.Path)", type(path).__name__)
    if "\0" in str(path):
        raise InvalidInput(field, "a path without NUL bytes", str(path))
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InvalidInput(field, "a readable JSON file", str(path), exc.strerror or str(exc)) from None
    if not stat.S_ISREG(st.st_mode):
        raise InvalidInput(field, "a readable JSON file (a regular file)", str(path), "it is not a regular file")
    if st.st_size > max_bytes:
        raise InvalidInput(field, f"a file of at most {max_bytes // (1024 * 1024)} MB", str(path),
                           f"it has {st.st_size} bytes")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(max_bytes + 1)
        text = raw.decode("utf-8")
    except OSError as exc:
        raise InvalidInput(field, "a readable JSON file", str(path), exc.strerror or str(exc)) from None
    except UnicodeDecodeError:
        raise InvalidInput(field, "UTF-8 JSON text", str(path), "the file holds binary data") from None
    if len(raw) > max_bytes:
        raise InvalidInput(field, f"a file of at most {max_bytes // (1024 * 1024)} MB", str(path))
    return loads(text, f"{field} {path}", max_depth)
