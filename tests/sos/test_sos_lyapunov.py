"""find_lyapunov: textbook systems certified exactly; unstable or non-equilibrium cases are not."""
from fractions import Fraction as F

import pytest
import sympy

from theorems.errors import InvalidInput
from theorems.verdict import Status
from verify._sos import LyapunovCertificate, find_lyapunov
from verify.certificate_kinds import certificate_from_json
from verify._sos import poly
from verify._sos.certificate import thaw

x, y, z = sympy.symbols("x y z")

TEXTBOOK = [
    # (name, field, variables, degree, decay)
    ("damped oscillator x'' + x' + x = 0", [y, -x - y], [x, y], 2, 0),
    ("linear stable 3x3 (Khalil ex. 4.x style)", [-x + y, -y + z, -z - x], [x, y, z], 2, F(1, 10)),
    ("x' = -x + y^2, y' = -y (cascade, needs a quartic V)", [-x + y**2, -y], [x, y], 4, 0),
    ("x' = -x^3 + y, y' = -x - y^3 (cubic damping)", [-x**3 + y, -x - y**3], [x, y], 2, 0),
    ("x' = -x + x y, y' = -y - x^2 (strict decrease)", [-x + x * y, -y - x**2], [x, y], 2, F(1, 10)),
    ("linear rotation with damping x' = -y, y' = x - y", [-y, x - y], [x, y], 2, 0),
]


@pytest.mark.parametrize("name, field, variables, degree, decay", TEXTBOOK, ids=[t[0][:30] for t in TEXTBOOK])
def test_textbook_systems_are_certified(name, field, variables, degree, decay):
    result = find_lyapunov(field, variables, degree=degree, decay=decay)
    assert result.status is Status.HOLDS, result.verdict.reason
    cert = result.certificate
    assert isinstance(cert, LyapunovCertificate) and cert.recheck().holds
    assert cert.decay == F(decay)
    # the stored V really is positive at a few rational points and decreasing along f there
    n = len(variables)
    for k in range(1, 4):
        point = tuple(F(k * (i + 1), 3) * (-1) ** i for i in range(n))
        v = thaw(cert.V)
        assert poly.evaluate(v, point) >= cert.eps * sum(c * c for c in point)
    again = certificate_from_json(cert.to_json())
    assert again == cert and again.recheck().holds


def test_unstable_linear_system_not_certified():
    result = find_lyapunov([x + y, -y], [x, y])
    assert result.status is Status.UNKNOWN and result.certificate is None


def test_non_equilibrium_is_refuted():
    result = find_lyapunov([x + 1, -y], [x, y])
    assert result.status is Status.FAILS
    assert result.verdict.witness["f(0)"] == {"x": "1"}


def test_changed_V_breaks_the_certificate():
    cert = find_lyapunov([y, -x - y], [x, y]).certificate
    v = dict(cert.V)
    mono = next(iter(v))
    tampered = dict(v)
    tampered[mono] += F(1, 1000)
    import dataclasses
    bad = dataclasses.replace(cert, V=tuple(sorted(tampered.items())))
    verdict = bad.recheck()
    assert verdict.status is Status.FAILS and "different polynomial" in verdict.reason


@pytest.mark.parametrize("kwargs, field", [
    ({"degree": 3}, "degree"),
    ({"eps": 0}, "eps"),
    ({"eps": 0.1}, "eps"),
    ({"decay": -1}, "decay"),
])
def test_invalid_options(kwargs, field):
    with pytest.raises(InvalidInput) as info:
        find_lyapunov([y, -x - y], [x, y], **kwargs)
    assert info.value.field == field


def test_field_length_must_match():
    with pytest.raises(InvalidInput) as info:
        find_lyapunov([y], [x, y])
    assert info.value.field == "field"
