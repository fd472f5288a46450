"""The one strict reader of exact certificate fields (verify/certificate_fields.py): floats, zero
denominators, bools as integers, oversized numbers and unknown keys are refused, naming the field."""
from __future__ import annotations

from fractions import Fraction

import pytest

from theorems.errors import InvalidInput
from verify.certificate_fields import MAX_DIGITS, json_int, json_matrix, json_object, json_rational, json_vector


@pytest.mark.parametrize("value", [0.5, 1, "0.5", "1e3", "1/0", "-0/0", "1/-2", " 1", "1" * (MAX_DIGITS + 1),
                                   "1/" + "3" * (MAX_DIGITS + 1), None, True])
def test_a_rational_is_an_exact_string_or_refused(value):
    with pytest.raises(InvalidInput) as err:
        json_rational(value, "c.x")
    assert err.value.field == "c.x"


def test_exact_values_read_back_exactly():
    assert json_rational("-3/7", "x") == Fraction(-3, 7) and json_rational("1" * MAX_DIGITS, "x") == int("1" * MAX_DIGITS)
    assert json_matrix([["1", "2/3"], ["0", "-1"]], "m", 2) == ((1, Fraction(2, 3)), (0, -1))
    assert json_vector(["1/2"], "v", 1) == (Fraction(1, 2),)


@pytest.mark.parametrize("call, field", [
    (lambda: json_int(True, "n", 0, 5), "n"), (lambda: json_int(6, "n", 0, 5), "n"), (lambda: json_int(2.0, "n", 0, 5), "n"),
    (lambda: json_vector(["1"], "v", 2), "v"), (lambda: json_vector(["1", 0.5], "v", 2), "v[1]"),
    (lambda: json_matrix([["1", "2"], ["3"]], "m", 2), "m[1]"), (lambda: json_matrix([["1"]], "m", 2, 1), "m"),
    (lambda: json_object({"a": 1, "b": 2}, "o", {"a"}), "o"), (lambda: json_object({}, "o", {"a"}), "o"),
    (lambda: json_object([], "o", {"a"}), "o"),
])
def test_shapes_types_and_keys_are_checked(call, field):
    with pytest.raises(InvalidInput) as err:
        call()
    assert err.value.field == field


def test_optional_keys_may_be_absent():
    assert json_object({"a": 1}, "o", {"a", "label"}, optional=("label",)) == {"a": 1}
