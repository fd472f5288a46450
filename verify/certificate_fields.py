"""The exact fields of a certificate file, read strictly: objects with known keys, bounded integers,
rationals written as strings (never floats), vectors and matrices of them.

One reader for the certificate kinds that store exact data (fate, equilibrium); every error is an
:class:`InvalidInput` naming the field.  Only ``re`` and ``Fraction``: the re-check path imports no
float or solver code through it.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Iterable, Mapping

from theorems.errors import InvalidInput

MAX_DIGITS = 400
"""Most digits in the numerator or the denominator of one stored rational."""
_RATIONAL = re.compile(r"-?[0-9]+(/[0-9]+)?", re.ASCII)


def json_object(value: Any, field: str, keys: set[str], optional: Iterable[str] = ()) -> Mapping[str, Any]:
    """``value``, an object with only ``keys``, each present unless ``optional``."""
    if not isinstance(value, Mapping):
        raise InvalidInput(field, "a JSON object", type(value).__name__)
    extra = set(value) - keys
    if extra:
        raise InvalidInput(field, f"only the keys {sorted(keys)}", sorted(extra))
    missing = keys - set(value) - set(optional)
    if missing:
        raise InvalidInput(field, f"the keys {sorted(keys)}", f"missing {sorted(missing)}")
    return value


def json_int(value: Any, field: str, lo: int, hi: int) -> int:
    """An integer (not a bool) in ``[lo, hi]``."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidInput(field, f"an integer in [{lo}, {hi}]", value)
    return value


def json_rational(value: Any, field: str) -> Fraction:
    """A rational written as a string (``"-3/7"``), at most :data:`MAX_DIGITS` digits per part."""
    if not isinstance(value, str) or not _RATIONAL.fullmatch(value):
        raise InvalidInput(field, "a rational number as a string such as \"-3/7\" (never a float)", value)
    if any(len(part.lstrip("-")) > MAX_DIGITS for part in value.split("/")):
        raise InvalidInput(field, f"a rational with at most {MAX_DIGITS} digits in numerator and denominator",
                           f"{len(value)} characters")
    if "/" in value and int(value.split("/")[1]) == 0:
        raise InvalidInput(field, "a nonzero denominator", value)
    return Fraction(value)


def json_vector(value: Any, field: str, size: int) -> tuple[Fraction, ...]:
    """A list of ``size`` rationals."""
    if not isinstance(value, list) or len(value) != size:
        raise InvalidInput(field, f"a list of {size} rationals", value if not isinstance(value, list) else len(value))
    return tuple(json_rational(v, f"{field}[{k}]") for k, v in enumerate(value))


def json_matrix(value: Any, field: str, rows: int, cols: int | None = None) -> tuple[tuple[Fraction, ...], ...]:
    """A ``rows x cols`` matrix of rationals (square when ``cols`` is not given)."""
    cols = rows if cols is None else cols
    if not isinstance(value, list) or len(value) != rows:
        raise InvalidInput(field, f"a {rows}x{cols} matrix of rationals", value if not isinstance(value, list) else len(value))
    return tuple(json_vector(row, f"{field}[{r}]", cols) for r, row in enumerate(value))


__all__ = ["MAX_DIGITS", "json_int", "json_matrix", "json_object", "json_rational", "json_vector"]
