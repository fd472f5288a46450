"""Adversarial tests of the Python API and the JSON contract: 1. False "holds".

Each attack asserts the correct behaviour; shared inputs and fixtures: adversary_api_helpers.py.
"""
from __future__ import annotations

from adversary_api_helpers import *  # noqa: F401,F403


def _set(path, value):
    def mutate(c):
        obj = c
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value
    return mutate


TAMPER_INVALID = {  # well formed, mathematically wrong: must re-check as certificate_invalid
    "one rational changed": _set(["sos_terms", 0, "gram", 0, 0], "3"),
    "off-diagonal changed": _set(["sos_terms", 0, "gram", 0, 2], "-1"),
    "asymmetric gram": _set(["sos_terms", 0, "gram", 1, 0], "2"),
    "gram entries swapped": lambda c: c["sos_terms"][0]["gram"][0].__setitem__(
        slice(None), [c["sos_terms"][0]["gram"][0][i] for i in (1, 0, 2)]),
    "diagonal slightly lowered": _set(["sos_terms", 0, "gram", 1, 1], "1/1000"),
    "polynomial coefficient": _set(["polynomial", 0, 1], "6"),
    "sos term dropped": _set(["sos_terms"], []),
    "basis swapped": lambda c: c["sos_terms"][0]["basis"].reverse(),
}


TAMPER_MALFORMED = {  # not a certificate at all: InvalidInput naming the field
    "extra key": _set(["extra"], 1),
    "float rational": _set(["sos_terms", 0, "gram", 0, 0], 2.0),
    "bool rational": _set(["sos_terms", 0, "gram", 0, 0], True),
    "nan rational": _set(["sos_terms", 0, "gram", 0, 0], float("nan")),
    "'inf' rational": _set(["sos_terms", 0, "gram", 0, 0], "inf"),
    "huge exponent": _set(["sos_terms", 0, "gram", 0, 0], "1e999999999"),
    "None rational": _set(["sos_terms", 0, "gram", 0, 0], None),
    "version as string": _set(["version"], "1"),
    "kind as list": _set(["kind"], ["nonnegativity"]),
    "negative exponent": _set(["polynomial", 0, 0], [0, -4]),
    "duplicate monomial": lambda c: c["polynomial"].append([[0, 4], "1"]),
    "duplicate variables": _set(["variables"], ["x", "x"]),
    "markup variable": _set(["variables"], ["x", "<b>"]),
    "label not a string": _set(["label"], 5),
    "gram not a list": _set(["sos_terms", 0, "gram"], "PSD"),
}


@pytest.mark.parametrize("name", sorted(TAMPER_INVALID))
def test_recheck_of_a_tampered_certificate_never_holds(parrilo, name):
    cert = copy.deepcopy(parrilo[1])
    TAMPER_INVALID[name](cert)
    try:
        r = verify.recheck(cert)
    except InvalidInput:
        return  # refusing the file is also sound
    assert r.verdict == "certificate_invalid" and r.exit_code == 5, r.text
    _validate(r.to_json())


@pytest.mark.parametrize("name", sorted(TAMPER_MALFORMED))
def test_recheck_of_a_malformed_certificate_names_the_field(parrilo, name):
    cert = copy.deepcopy(parrilo[1])
    TAMPER_MALFORMED[name](cert)
    with pytest.raises(InvalidInput) as exc:
        verify.recheck(cert)
    assert exc.value.field.startswith("certificate"), exc.value.field
    jsonschema.validate(error_payload(exc.value), ERROR_SCHEMA)


def test_recheck_reports_the_recomputed_claim_never_the_stored_one(parrilo):
    cert = copy.deepcopy(parrilo[1])
    cert["claim"] = "x >= 5 for all real x"  # a lie about what is proved
    r = verify.recheck(cert)
    assert r.verdict == "holds"
    assert "x >= 5" not in r.payload["claim"] and r.payload["claim"] == parrilo[1]["claim"]


def test_recheck_reads_to_json_not_the_objects_own_verdict(parrilo):
    from theorems.verdict import holds

    broken = copy.deepcopy(parrilo[1])
    broken["sos_terms"][0]["gram"][0][0] = "3"

    class Liar:
        def to_json(self):
            return broken

        def recheck(self):
            return holds("sos_certificate", "trust me")

    assert verify.recheck(Liar()).verdict == "certificate_invalid"

    class NotJson:
        def to_json(self):
            return json.dumps(parrilo[1])  # a string, not the decoded object

        def recheck(self):
            return holds("x", "trust me")

    with pytest.raises(InvalidInput):
        verify.recheck(NotJson())


def test_recheck_refuses_reports_and_payloads(reports):
    for thing in (reports["sos"], reports["sos"].payload, reports["sos"].to_json(), reports["recheck"].to_json()):
        with pytest.raises(InvalidInput):
            verify.recheck(thing)


NEAR_UNIT = {
    "1 + 1e-17": ["1.00000000000000001", 0, 0],
    "1 - 1e-17": ["0.99999999999999999", 0, 0],
    "(0.6, 0.8 + 1e-20)": ["0.6", "0.80000000000000000001", 0],
    "(sqrt2/2, sqrt2/2 + 1e-40)": ["sqrt(2)/2", "sqrt(2)/2 + 10^-40", 0],
    "1e-17 as a fraction": ["100000000000000001/100000000000000000", 0, 0],
}


@pytest.mark.parametrize("name", sorted(NEAR_UNIT))
def test_near_unit_decimal_tokens_are_refused_everywhere(name):
    data = _hf()
    data["tokens"][1] = NEAR_UNIT[name]
    calls = (lambda: verify.assumptions("3.2", instance=data), lambda: verify.theorem("3.2", data, simulate=False),
             lambda: verify.depth("3.2", instance=data, simulate=False),
             lambda: verify.simulate(instance=data, t_end=1, points=3))
    for call in calls:
        with pytest.raises(InvalidInput) as exc:
            call()
        assert exc.value.field == "tokens[1]"


POLES = ("1/(t-1)", "1/sin(t)", "tan(t)", "log(t)", "sqrt(sin(t))", "1/(sin(t)^2 - 10^-60)", "1/(t - 2)^2",
         "1/(t-pi)^2", "sin(1/(t-3))", "exp(t^2)", "t", "1/cos(t)", "abs(sin(t))/sin(t)", "sin(t)/abs(sin(t))",
         "sin(t^2)", "sqrt(t)", "t*sin(t)")


@pytest.mark.parametrize("entry", POLES)
def test_P_with_poles_or_unbounded_entries_is_never_certified(entry):
    data = _hf()
    data["heads"][0]["P"]["entries"][0][1] = entry
    for call in (lambda: verify.assumptions("3.2", instance=data), lambda: verify.theorem("3.2", data, simulate=False)):
        try:
            r = call()
        except InvalidInput:
            continue
        assert r.verdict != "holds", (entry, r.text)


def test_a_piecewise_constant_P_is_not_uniformly_continuous():
    data = _hf()
    data["heads"][0]["P"] = {"kind": "stack", "dt": 1.0, "periodic": True, "interpolation": "constant",
                             "layers": [[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [["1/2", 0, 0], [0, -1, 0], [0, 0, 0]]]}
    r = verify.assumptions("3.2", instance=data)
    assert r.verdict == "not_applicable" and r.exit_code == 6
    assert verify.theorem("3.2", data, simulate=False).verdict != "holds"


@pytest.mark.parametrize("beta", ["10^151", "10^200", 1e151, "exp(400)", 0, -1, "-10^-100", float("nan"), "t", True, None])
def test_out_of_range_beta_is_refused(beta):
    data = _hf()
    data["beta"] = beta
    with pytest.raises(InvalidInput) as exc:
        verify.theorem("3.2", data, simulate=False)
    assert exc.value.field == "beta"


@pytest.mark.parametrize("tokens", [[[1, 0, 0], [-1, 0, 0]], [[1, 0, 0], [0, 1, 0], [-1, 0, 0]],
                                    [[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, 0, 0]]])
def test_tokens_outside_every_open_hemisphere_never_hold(tokens):
    data = _hf()
    data["tokens"] = tokens
    assert verify.theorem("3.2", data, simulate=False).verdict != "holds"
    assert verify.depth("3.2", instance=data, simulate=False).verdict != "holds"


def test_an_attention_system_whose_float_and_exact_tokens_disagree_is_not_certified():
    import numpy as np

    from theorems.system import AttentionSystem
    from theorems.system_json import system_from_dict

    s = system_from_dict(_hf())
    antipodal = np.array([[1.0, 0, 0], [-1.0, 0, 0], [0, 1.0, 0], [0, -1.0, 0]])
    from theorems.errors import InvalidInput

    with pytest.raises(InvalidInput, match="tokens: expected the float values of tokens_exact"):
        AttentionSystem(s.d, s.beta, s.mask, s.heads, antipodal, s.tokens_exact, s.layer_norm, "liar", "")


def test_tokens_mutated_after_validation_are_not_certified():
    from theorems.system_json import system_from_dict

    data = _hf()
    data["tokens"] = [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8], [2 / 3, 1 / 3, 2 / 3]]  # float data
    system = system_from_dict(data)
    assert verify.theorem("3.2", system, simulate=False).verdict == "holds"
    try:
        system.tokens[:] *= 100  # |x_i| = 100: not the model on the sphere any more
    except ValueError:
        return  # a read-only array is the fix
    try:
        r = verify.theorem("3.2", system, simulate=False)
    except InvalidInput:
        return
    assert r.verdict != "holds"
