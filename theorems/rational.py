"""The one parser of an exact rational given by a user: an option value such as ``--eps 1/100``.

``parse_rational(value, field)`` reads ``"1/100"``, ``"0.01"``, ``"1e-3"``, an ``int``, a
:class:`~fractions.Fraction` (any :class:`numbers.Rational`) or a ``float`` (read as the decimal its
``repr`` spells: ``0.01`` is ``1/100``, not the binary double).  The text is refused before
:class:`~fractions.Fraction` sees it when it is longer than :data:`MAX_CHARS` or carries an exponent of
more than three digits (``Fraction("1e999999999")`` would build a billion-digit integer), and the
result when its numerator or denominator has more than :data:`MAX_DIGITS` digits.  ``low`` / ``high``
bound the value, open (``low < q < high``) unless ``closed``.  Every refusal is
:class:`~theorems.errors.InvalidInput` naming ``field``, what was expected and what arrived.

Not for certificate files (their schemas accept only ``"p/q"`` strings and integers: a certificate is
exact data, never a decimal; :mod:`verify._sos.cert_schema`).
"""
from __future__ import annotations

import math
import numbers
import re
from fractions import Fraction

from .errors import InvalidInput

MAX_CHARS = 200
MAX_DIGITS = 60
_EXPONENT = re.compile(r"[eE][+-]?0*(\d+)")
EXAMPLE = "a rational such as 1/100 or 0.01"


def parse_rational(value: object, field: str, low: Fraction | int | None = None, high: Fraction | int | None = None,
                   closed: bool = False, decimals: bool = True) -> Fraction:
    """``value`` as an exact :class:`Fraction` within the bounds (module docstring); ``decimals=False``
    takes only ``"p/q"``, integers and rationals (no float, no decimal point, no exponent)."""
    if isinstance(value, bool) or not isinstance(value, (str, numbers.Rational, float)) or (not decimals and (
            isinstance(value, float) or (isinstance(value, str) and any(c in value for c in ".eE")))):
        raise InvalidInput(field, EXAMPLE if decimals else "an exact rational such as 1/100 (int, Fraction or 'p/q')",
                           value)
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(field, f"{EXAMPLE} (a finite number)", value)
    text = value.strip() if isinstance(value, str) else repr(value) if isinstance(value, float) else None
    if text is not None:
        exponent = _EXPONENT.search(text)
        if len(text) > MAX_CHARS or (exponent and len(exponent.group(1)) > 3):
            raise InvalidInput(field, f"{EXAMPLE} (at most {MAX_CHARS} characters, exponents below 1000)", value)
        try:
            q = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise InvalidInput(field, EXAMPLE, value) from None
    else:
        q = Fraction(value.numerator, value.denominator)
    if (low is not None and (q < low or (q == low and not closed))) or \
            (high is not None and (q > high or (q == high and not closed))):
        ends = "[]" if closed else "()"
        raise InvalidInput(field, f"a rational in {ends[0]}{'-oo' if low is None else low}, "
                                  f"{'oo' if high is None else high}{ends[1]}", value)
    if max(abs(q.numerator), q.denominator) >= 10 ** MAX_DIGITS:
        raise InvalidInput(field, f"a rational with at most {MAX_DIGITS} digits", value)
    return q
