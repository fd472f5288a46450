"""Adversarial tests of the Python API (``verify.*``), the frozen ``Report`` and the CLI's JSON contract.

Every attack is kept as a test that asserts the CORRECT behaviour.  Tests that currently expose a
bug are marked ``xfail(strict=True, reason=...)`` so the suite stays green and each turns into an
XPASS failure once its hole is closed (then drop the mark).

Attacks: false "holds" (tampered certificates, near-unit decimal tokens, poles in P, huge beta,
objects that lie), crashes instead of the project's errors (wrong types for every argument), the
``--format json`` contract (errors and every command), frozen records, output targets, HTML display,
and plots of self-built reports.  Everything runs on tiny instances with ``simulate=False`` where
possible (the whole file takes well under 40 s on 2 cores).
"""
from __future__ import annotations

import contextlib
import copy
import json
import os
import pickle
import signal
import subprocess
import sys
import types
from pathlib import Path

import jsonschema
import pytest

import verify
from theorems.errors import ConsensusVerifyError, InvalidInput, UnknownName
from verify.report import VERDICTS, Report, error_payload, schema_path

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
HF = str(EX / "hemisphere_full.json")
CAUSAL = str(EX / "causal_two_heads.json")
PARRILO = "2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4"
ERROR_SCHEMA = json.loads(schema_path("error").read_text())
EXIT_OF = {"holds": 0, "fails": 3, "unknown": 4, "certificate_invalid": 5}


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


def _hf() -> dict:
    return json.loads(Path(HF).read_text())


def _strict_json(text: str):
    """Exactly one JSON document (trailing data, NaN and Infinity refused, as RFC 8259 says)."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def _validate(doc: dict) -> None:
    assert doc.get("schema_version") == verify.SCHEMA_VERSION, doc
    assert "kind" in doc and ("verdict" in doc or "status" in doc or doc["kind"] == "error"), doc
    jsonschema.validate(doc, json.loads(schema_path(doc["kind"]).read_text()))


class _TooSlow(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: float):
    """Raise _TooSlow in the main thread after ``seconds`` (pure-Python loops are interrupted)."""
    def fire(*_):
        raise _TooSlow(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _cli(capfd, *argv: str):
    """The ``verify`` command in-process; fd-level capture, so nothing printed anywhere escapes."""
    from verify.cli.main import main

    rc = main([str(a) for a in argv])
    out, err = capfd.readouterr()
    return rc, out, err


@pytest.fixture
def paths(tmp_path):
    """A directory, a missing file, an existing file, a FIFO, a symlink and /dev/null."""
    p = types.SimpleNamespace(dir=str(tmp_path / "d"), missing=str(tmp_path / "missing.json"),
                              file=str(tmp_path / "exists.json"), fifo=str(tmp_path / "fifo"),
                              link=str(tmp_path / "link.json"), devnull="/dev/null", tmp=tmp_path)
    os.mkdir(p.dir)
    Path(p.file).write_text("{}")
    os.mkfifo(p.fifo)
    os.symlink(tmp_path / "target.json", p.link)
    return p


@pytest.fixture(scope="module")
def parrilo():
    """A genuine exact certificate (Parrilo's quartic) and its report."""
    r = verify.sos(PARRILO)
    assert r.verdict == "holds"
    return r, r.record.certificate.to_json()


@pytest.fixture(scope="module")
def reports(parrilo):
    """One real report of most kinds (tiny, fast)."""
    return {
        "assumptions": verify.assumptions("3.2", instance=CAUSAL),
        "theorem": verify.theorem("3.2", simulate=True, t_end=1),
        "sos": parrilo[0],
        "simulate": verify.simulate(t_end=1, points=5, tokens=3),
        "depth": verify.depth("3.2", simulate=False),
        "list": verify.list_results(),
        "recheck": verify.recheck(parrilo[1]),
    }


# =============================================================================================
# 1. False "holds"
# =============================================================================================

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
    assert r.verdict == "fails" and r.exit_code == 3
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
    liar = AttentionSystem(s.d, s.beta, s.mask, s.heads, antipodal, s.tokens_exact, s.layer_norm, "liar", "")
    assert verify.theorem("3.2", liar, simulate=False).verdict != "holds"
    assert verify.assumptions("3.2", instance=liar).verdict != "holds"


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


# =============================================================================================
# 2. Crashes instead of the project's errors
# =============================================================================================

def _sim(**kw):
    return verify.simulate(**({"t_end": 1, "points": 3} | kw))


def _depth(**kw):
    return verify.depth(kw.pop("theorem_id", "3.2"), **({"simulate": False} | kw))


BAD = {  # name -> call(paths); each must raise a ConsensusVerifyError (never TypeError, KeyError, ...)
    "theorem id ''": lambda p: verify.theorem("", simulate=False),
    "theorem id unknown": lambda p: verify.theorem("9.9", simulate=False),
    "theorem instance int": lambda p: verify.theorem("3.2", 5, simulate=False),
    "theorem instance bytes": lambda p: verify.theorem("3.2", b"{}", simulate=False),
    "theorem instance list": lambda p: verify.theorem("3.2", [HF], simulate=False),
    "theorem instance nan": lambda p: verify.theorem("3.2", float("nan"), simulate=False),
    "theorem instance dir": lambda p: verify.theorem("3.2", p.dir, simulate=False),
    "theorem instance missing": lambda p: verify.theorem("3.2", p.missing, simulate=False),
    "theorem instance fifo": lambda p: verify.theorem("3.2", p.fifo, simulate=False),
    "theorem instance /dev/null": lambda p: verify.theorem("3.2", p.devnull, simulate=False),
    "theorem instance dangling link": lambda p: verify.theorem("3.2", p.link, simulate=False),
    "theorem instance {}": lambda p: verify.theorem("3.2", {}, simulate=False),
    "theorem instance no heads": lambda p: verify.theorem("3.2", {k: v for k, v in _hf().items() if k != "heads"}, simulate=False),
    "theorem instance heads None": lambda p: verify.theorem("3.2", _hf() | {"heads": None}, simulate=False),
    "theorem instance heads [[1]]": lambda p: verify.theorem("3.2", _hf() | {"heads": [[1]]}, simulate=False),
    "theorem instance head without P": lambda p: verify.theorem("3.2", _hf() | {"heads": [{"U": "identity"}]}, simulate=False),
    "theorem instance d '3'": lambda p: verify.theorem("3.2", _hf() | {"d": "3"}, simulate=False),
    "theorem instance d True": lambda p: verify.theorem("3.2", _hf() | {"d": True}, simulate=False),
    "theorem instance tokens dict": lambda p: verify.theorem("3.2", _hf() | {"tokens": {"a": 1}}, simulate=False),
    "theorem instance int key": lambda p: verify.theorem("3.2", _hf() | {5: 1}, simulate=False),
    "theorem instance N True": lambda p: verify.theorem("3.2", _hf() | {"N": True}, simulate=False),
    "theorem instance mappingproxy": lambda p: verify.theorem("3.2", types.MappingProxyType(_hf()), simulate=False),
    "theorem instance zero token": lambda p: verify.theorem("3.2", _hf() | {"tokens": [[0, 0, 0]]}, simulate=False),
    "theorem instance name markup too long": lambda p: verify.theorem("3.2", _hf() | {"name": "<" * 300}, simulate=False),
    "theorem t_end nan": lambda p: verify.theorem("3.2", t_end=float("nan")),
    "theorem t_end inf": lambda p: verify.theorem("3.2", t_end=float("inf")),
    "theorem t_end -1": lambda p: verify.theorem("3.2", t_end=-1),
    "theorem t_end True": lambda p: verify.theorem("3.2", t_end=True),
    "theorem t_end None": lambda p: verify.theorem("3.2", t_end=None),
    "theorem t_end '5'": lambda p: verify.theorem("3.2", t_end="5"),
    "theorem t_end 1e9": lambda p: verify.theorem("3.2", t_end=1e9),
    "theorem save /dev/null": lambda p: verify.theorem("3.2", simulate=False, save=p.devnull),
    "theorem save file": lambda p: verify.theorem("3.2", simulate=False, save=p.file),
    "theorem save fifo": lambda p: verify.theorem("3.2", simulate=False, save=p.fifo),
    "theorem save symlink": lambda p: verify.theorem("3.2", simulate=False, save=p.link),
    "assumptions id unknown": lambda p: verify.assumptions("3.3"),
    "assumptions instance fifo": lambda p: verify.assumptions("3.2", instance=p.fifo),
    "sos poly None": lambda p: verify.sos(None),
    "sos poly int": lambda p: verify.sos(5),
    "sos poly bytes": lambda p: verify.sos(b"x^2"),
    "sos poly list": lambda p: verify.sos(["x^2"]),
    "sos poly ''": lambda p: verify.sos(""),
    "sos poly truncated": lambda p: verify.sos("x^2 +"),
    "sos poly sqrt": lambda p: verify.sos("x^(1/2)"),
    "sos poly division by 0": lambda p: verify.sos("1/0*x"),
    "sos poly huge exponent": lambda p: verify.sos("x^1000000"),
    "sos poly markup": lambda p: verify.sos("<script>"),
    "sos on int": lambda p: verify.sos("x^2", on=5),
    "sos on [5]": lambda p: verify.sos("x^2", on=[5]),
    "sos on [.., None]": lambda p: verify.sos("x^2", on=["x >= 0", None]),
    "sos on set": lambda p: verify.sos("x^2", on={"x >= 0"}),
    "sos on bytes": lambda p: verify.sos("x^2", on=b"x >= 0"),
    "sos on strict": lambda p: verify.sos("x^2", on="x > 0"),
    "sos vars [5]": lambda p: verify.sos("x^2", vars=[5]),
    "sos vars 'x,x'": lambda p: verify.sos("x^2", vars="x,x"),
    "sos vars bytes": lambda p: verify.sos("x^2", vars=b"x"),
    "sos degree True": lambda p: verify.sos("x^2", degree=True),
    "sos degree 2.0": lambda p: verify.sos("x^2", degree=2.0),
    "sos degree -2": lambda p: verify.sos("x^2", degree=-2),
    "sos degree huge": lambda p: verify.sos("x^2", degree=10 ** 6),
    "sos degree nan": lambda p: verify.sos("x^2", degree=float("nan")),
    "sos products 1": lambda p: verify.sos("x^2", products=1),
    "sos products 2.5": lambda p: verify.sos("x^2", products=2.5),
    "sos products None": lambda p: verify.sos("x^2", products=None),
    "sos solver None": lambda p: verify.sos("x^2", solver=None),
    "sos solver mosek": lambda p: verify.sos("x^2", solver="mosek"),
    "sos save /dev/null": lambda p: verify.sos("x^2", save=p.devnull),
    "sos save dir": lambda p: verify.sos("x^2", save=p.dir),
    "sos save fifo": lambda p: verify.sos("x^2", save=p.fifo),
    "sos save symlink": lambda p: verify.sos("x^2", save=p.link),
    "sos save existing": lambda p: verify.sos("x^2", save=p.file),
    "sos save below a file": lambda p: verify.sos("x^2", save=os.path.join(p.file, "c.json")),
    "lyapunov field None": lambda p: verify.lyapunov(None, vars="x,y"),
    "lyapunov field [.., 5]": lambda p: verify.lyapunov(["-x", 5], vars="x,y"),
    "lyapunov field too short": lambda p: verify.lyapunov("-x", vars="x,y"),
    "lyapunov vars 'x,x'": lambda p: verify.lyapunov("-x, -y", vars="x,x"),
    "lyapunov vars ''": lambda p: verify.lyapunov("-x, -y", vars=""),
    "lyapunov degree 3": lambda p: verify.lyapunov("-x, -y", vars="x,y", degree=3),
    "lyapunov degree True": lambda p: verify.lyapunov("-x, -y", vars="x,y", degree=True),
    "lyapunov eps float": lambda p: verify.lyapunov("-x, -y", vars="x,y", eps=0.01),
    "lyapunov eps nan": lambda p: verify.lyapunov("-x, -y", vars="x,y", eps=float("nan")),
    "lyapunov eps 1/0": lambda p: verify.lyapunov("-x, -y", vars="x,y", eps="1/0"),
    "lyapunov eps None": lambda p: verify.lyapunov("-x, -y", vars="x,y", eps=None),
    "lyapunov decay -1": lambda p: verify.lyapunov("-x, -y", vars="x,y", decay="-1"),
    "lyapunov save /dev/null": lambda p: verify.lyapunov("-x, -y", vars="x,y", save=p.devnull),
    "depth id None": lambda p: _depth(theorem_id=None),
    "depth id float": lambda p: _depth(theorem_id=3.2),
    "depth id 4.4-sym": lambda p: _depth(theorem_id="4.4-sym"),
    "depth model ODE": lambda p: _depth(model="ODE"),
    "depth model list": lambda p: _depth(model=["ode"]),
    "depth tau 0": lambda p: _depth(model="layers", tau=0),
    "depth tau nan": lambda p: _depth(model="layers", tau=float("nan")),
    "depth tau True": lambda p: _depth(model="layers", tau=True),
    "depth tau 1/0": lambda p: _depth(model="layers", tau="1/0"),
    "depth tau 10^1000": lambda p: _depth(model="layers", tau="10^1000"),
    "depth tau with ode": lambda p: _depth(tau="1/2"),
    "depth eps 0": lambda p: _depth(eps=0),
    "depth eps 1": lambda p: _depth(eps="1"),
    "depth eps inf": lambda p: _depth(eps=float("inf")),
    "depth eps True": lambda p: _depth(eps=True),
    "depth eps 1e-100": lambda p: _depth(eps="1e-100"),
    "depth entry_budget -1": lambda p: _depth(entry_budget=-1),
    "depth entry_budget True": lambda p: _depth(entry_budget=True),
    "depth entry_budget None": lambda p: _depth(entry_budget=None),
    "depth save /dev/null": lambda p: _depth(save=p.devnull),
    "depth save file": lambda p: _depth(save=p.file),
    "depth instance /dev/null": lambda p: _depth(instance=p.devnull),
    "recheck None": lambda p: verify.recheck(None),
    "recheck list": lambda p: verify.recheck([{}]),
    "recheck bytes": lambda p: verify.recheck(b"{}"),
    "recheck JSON text": lambda p: verify.recheck('{"kind": "nonnegativity"}'),
    "recheck ''": lambda p: verify.recheck(""),
    "recheck dir": lambda p: verify.recheck(p.dir),
    "recheck missing": lambda p: verify.recheck(p.missing),
    "recheck /dev/null": lambda p: verify.recheck(p.devnull),
    "recheck fifo": lambda p: verify.recheck(p.fifo),
    "recheck empty object file": lambda p: verify.recheck(p.file),
    "recheck {}": lambda p: verify.recheck({}),
    "simulate t_end None": lambda p: _sim(t_end=None),
    "simulate t_end nan": lambda p: _sim(t_end=float("nan")),
    "simulate t_end inf": lambda p: _sim(t_end=float("inf")),
    "simulate t_end 1e9": lambda p: _sim(t_end=1e9),
    "simulate points True": lambda p: _sim(points=True),
    "simulate points -5": lambda p: _sim(points=-5),
    "simulate points huge": lambda p: _sim(points=10 ** 12),
    "simulate digits True": lambda p: _sim(digits=True),
    "simulate digits 4": lambda p: _sim(digits=4),
    "simulate digits huge": lambda p: _sim(digits=10 ** 9),
    "simulate samples 0": lambda p: _sim(samples=0),
    "simulate samples inf": lambda p: _sim(samples=float("inf")),
    "simulate seed 1.5": lambda p: _sim(seed=1.5),
    "simulate seed True": lambda p: _sim(seed=True),
    "simulate seed 2^40": lambda p: _sim(seed=2 ** 40),
    "simulate tokens 0": lambda p: _sim(tokens=0),
    "simulate tokens huge": lambda p: _sim(tokens=10 ** 9),
    "simulate dim nan": lambda p: _sim(dim=float("nan")),
    "simulate variant None": lambda p: _sim(variant=None),
    "simulate variant COS": lambda p: _sim(variant="COS"),
    "simulate rtol '1e-3'": lambda p: _sim(rtol="1e-3"),
    "simulate rtol True": lambda p: _sim(rtol=True),
    "simulate rtol 1": lambda p: _sim(rtol=1),
    "simulate plot int": lambda p: _sim(plot=5),
    "simulate plot bytes": lambda p: _sim(plot=b"x.png"),
    "simulate plot dir": lambda p: _sim(plot=p.dir),
    "simulate plot .txt": lambda p: _sim(plot=str(p.tmp / "x.txt")),
    "simulate json_out dir": lambda p: _sim(json_out=p.dir),
    "simulate json_out /dev/null": lambda p: _sim(json_out=p.devnull),
    "simulate json_out fifo": lambda p: _sim(json_out=p.fifo),
    "simulate json_out symlink": lambda p: _sim(json_out=p.link),
    "simulate json_out existing": lambda p: _sim(json_out=p.file),
    "simulate json_out = plot": lambda p: _sim(plot=str(p.tmp / "a.png"), json_out=str(p.tmp / "a.png")),
    "simulate backend None": lambda p: _sim(backend=None),
    "simulate backend NUMPY": lambda p: _sim(backend="NUMPY"),
    "simulate device with numpy": lambda p: _sim(device="cpu"),
    "simulate workers without samples": lambda p: _sim(workers=2),
    "simulate force without output": lambda p: _sim(force=True),
    "simulate preset unknown": lambda p: _sim(preset="nope"),
    "simulate preset + instance": lambda p: _sim(preset="constant-identity-full", instance=HF),
    "simulate tokens with instance": lambda p: _sim(instance=HF, tokens=3),
    "simulate seed with instance": lambda p: _sim(instance=HF, seed=3),
    "simulate rtol with digits": lambda p: _sim(digits=20, rtol=1e-6),
    "simulate instance fifo": lambda p: _sim(instance=p.fifo),
    "simulate instance {}": lambda p: _sim(instance={}),
}

TYPE_CRASH = "a wrong type crashes with TypeError/AttributeError/ValueError instead of InvalidInput"
BAD_XFAIL = {  # name -> (call, where the bug is)
    "theorem id None": (lambda p: verify.theorem(None, simulate=False), "theorems/catalogue/registry.py get(): AttributeError"),
    "theorem id int": (lambda p: verify.theorem(5, simulate=False), "theorems/catalogue/registry.py get(): AttributeError"),
    "theorem id float": (lambda p: verify.theorem(3.2, simulate=False), "theorems/catalogue/registry.py get(): AttributeError"),
    "theorem id bytes": (lambda p: verify.theorem(b"3.2", simulate=False), "theorems/catalogue/registry.py get(): TypeError"),
    "assumptions id list": (lambda p: verify.assumptions(["3.2"]), "theorems/catalogue/registry.py get(): AttributeError"),
    "theorem save int": (lambda p: verify.theorem("3.2", simulate=False, save=5), "verify/api/theorem.py Path(save): TypeError"),
    "theorem save NUL": (lambda p: verify.theorem("3.2", simulate=False, save="a\0b"), "verify/outputs.py os.lstat: ValueError (NUL byte)"),
    "theorem instance NUL": (lambda p: verify.theorem("3.2", "a\0b", simulate=False), "theorems/safe_json.py read_json: ValueError (NUL byte)"),
    "recheck NUL": (lambda p: verify.recheck("a\0b"), "theorems/safe_json.py read_json: ValueError (NUL byte)"),
    "sos vars int": (lambda p: verify.sos("x^2", vars=5), "verify/sos/parse.py symbols_from_names: TypeError"),
    "sos save int": (lambda p: verify.sos("x^2", save=5), "verify/api/sos.py save_targets Path(save): TypeError"),
    "sos save bytes": (lambda p: verify.sos("x^2", save=b"c.json"), "verify/api/sos.py save_targets Path(save): TypeError"),
    "sos save NUL": (lambda p: verify.sos("x^2", save="a\0b"), "verify/outputs.py os.lstat: ValueError (NUL byte)"),
    "lyapunov vars None": (lambda p: verify.lyapunov("-x, -y", vars=None), "verify/sos/parse.py symbols_from_names: TypeError"),
    "lyapunov vars int": (lambda p: verify.lyapunov("-x, -y", vars=5), "verify/sos/parse.py symbols_from_names: TypeError"),
    "lyapunov save int": (lambda p: verify.lyapunov("-x, -y", vars="x,y", save=5), "verify/api/sos.py save_targets: TypeError"),
    "depth save int": (lambda p: _depth(save=5), "verify/api/depth.py Path(save): TypeError"),
    "depth save NUL": (lambda p: _depth(save="a\0b"), "verify/outputs.py os.lstat: ValueError (NUL byte)"),
    "simulate t_end '5'": (lambda p: _sim(t_end="5"), "verify/limits.py check_t_end: math.isfinite(str) TypeError"),
    "simulate t_end list": (lambda p: _sim(t_end=[1]), "verify/limits.py check_t_end: TypeError"),
    "simulate t_end bytes": (lambda p: _sim(t_end=b"1"), "verify/limits.py check_t_end: TypeError"),
    "simulate t_end True": (lambda p: _sim(t_end=True), "verify/api/simulate.py check_options: bool accepted as t_end = 1"),
    "simulate points '10'": (lambda p: _sim(points="10"), "verify/limits.py check_range: int <= str TypeError"),
    "simulate digits '20'": (lambda p: _sim(digits="20"), "verify/limits.py check_range: TypeError"),
    "simulate samples '3'": (lambda p: _sim(samples="3"), "verify/limits.py check_range: TypeError"),
    "simulate tokens '3'": (lambda p: _sim(tokens="3"), "verify/limits.py check_range: TypeError"),
    "simulate dim '3'": (lambda p: _sim(dim="3"), "verify/limits.py check_range: TypeError"),
    "simulate json_out int": (lambda p: _sim(json_out=5), "verify/api/simulate.py check_options Path(json_out): TypeError"),
    "simulate json_out bytes": (lambda p: _sim(json_out=b"x.json"), "verify/api/simulate.py Path(json_out): TypeError"),
    "simulate json_out list": (lambda p: _sim(json_out=["x.json"]), "verify/api/simulate.py Path(json_out): TypeError"),
    "simulate progress str": (lambda p: _sim(progress="x"), "verify/api/simulate.py: progress not checked callable, TypeError mid-run"),
    "simulate preset int": (lambda p: _sim(preset=5), "numerics/presets.py preset(): TypeError"),
}


def _assert_project_error(call, p):
    with pytest.raises(ConsensusVerifyError) as exc:
        call(p)
    e = exc.value
    if isinstance(e, InvalidInput):
        assert e.field and e.expected, (e.field, e.expected)
    jsonschema.validate(error_payload(e), ERROR_SCHEMA)
    assert str(e)
    return e


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_api_input_raises_the_projects_error(paths, name):
    _assert_project_error(BAD[name], paths)
    if name.endswith(("existing", "symlink")):  # nothing replaced, nothing followed
        assert Path(paths.file).read_text() == "{}" and not (paths.tmp / "target.json").exists()


@pytest.mark.parametrize("name", sorted(BAD_XFAIL))
def test_bad_api_input_raises_the_projects_error_not_a_crash(paths, name):
    _assert_project_error(BAD_XFAIL[name][0], paths)


def test_bool_options_refuse_strings(paths):
    before = Path(paths.file).read_text()
    with pytest.raises(InvalidInput):
        verify.sos("x^2 + 1", save=paths.file, force="no")
    assert Path(paths.file).read_text() == before
    with pytest.raises(InvalidInput):
        verify.theorem("3.2", simulate="no", t_end=1)


@pytest.mark.parametrize("call,field", [(lambda: verify.theorem("3.2", t_end=-1), "t_end"),
                                        (lambda: verify.sos("x^2", degree=-1), "degree"),
                                        (lambda: _depth(eps="2"), "eps")])
def test_api_errors_name_the_keyword(call, field):
    with pytest.raises(InvalidInput) as exc:
        call()
    assert exc.value.field == field


@pytest.mark.parametrize("kw", [{"digits": 5}, {"points": 2.5}, {"tokens": 2.5}, {"dim": 1}])
def test_simulate_errors_name_the_option_given(kw):
    with pytest.raises(InvalidInput) as exc:
        _sim(**kw)
    assert exc.value.field == next(iter(kw))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_error_payload_is_strict_json(bad):
    with pytest.raises(InvalidInput) as exc:
        verify.theorem("3.2", t_end=bad)
    _strict_json(json.dumps(error_payload(exc.value)))


@pytest.mark.parametrize("preset", [b"x", ["constant-identity-full"]])
def test_error_payload_of_an_unknown_non_string_name_is_json(preset):
    with pytest.raises(UnknownName) as exc:
        _sim(preset=preset)
    doc = error_payload(exc.value)
    jsonschema.validate(doc, ERROR_SCHEMA)
    _strict_json(json.dumps(doc))


@pytest.mark.parametrize("what", ["simulate", "theorem evidence"])
def test_huge_beta_runs_are_refused_or_bounded(what):
    data = _hf()
    data["beta"] = "10^10"  # minutes today on 2 cores (beta 10^8: 5 s; the time grows like beta up to max_steps)
    try:
        with _deadline(2.0):
            if what == "simulate":
                r = verify.simulate(instance=data, t_end=1, points=3)
            else:
                r = verify.theorem("3.2", data, t_end=1)
    except InvalidInput:
        return
    assert r.status in ("completed", "max_steps", "step_too_small", *VERDICTS)


def test_huge_products_is_refused_or_fast():
    try:
        with _deadline(1.5):
            r = verify.sos("x^2 + 1", products=10 ** 9)
    except InvalidInput:
        return
    assert r.verdict == "holds"


# ---- LLM façades: only option checks (a random-init gpt2-tiny at most), skipped without torch -------------

@pytest.fixture
def torch_env(monkeypatch):
    pytest.importorskip("torch", reason="needs the llm extra (torch, transformers)")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


def _refuse_loading(monkeypatch):
    import llm_checks.loaders

    def refuse(*a, **k):
        raise AssertionError("the model was loaded before the options were checked")
    monkeypatch.setattr(llm_checks.loaders, "load_model", refuse)


@pytest.fixture
def no_load(torch_env, monkeypatch):
    _refuse_loading(monkeypatch)


def _png(p) -> str:
    png = p.tmp / "existing.png"
    png.write_bytes(b"old")
    return str(png)


def _cons(**kw):
    return verify.consensus("gpt2-tiny", **({"random_init": True, "prompts": 2, "tokens": 8} | kw))


def _audit(**kw):
    return verify.audit("gpt2-tiny", **({"random_init": True, "theorem": ["4.2"], "hemisphere_tokens": 8} | kw))


LLM_BAD = {
    "audit model None": lambda p: verify.audit(None),
    "audit model int": lambda p: verify.audit(5),
    "audit theorem unknown": lambda p: _audit(theorem=["9.9"]),
    "audit seed -1": lambda p: _audit(seed=-1),
    "audit seed True": lambda p: _audit(seed=True),
    "audit hemisphere_tokens 1": lambda p: _audit(hemisphere_tokens=1),
    "audit plot /dev/null": lambda p: _audit(plot=p.devnull),
    "audit plot dir": lambda p: _audit(plot=p.dir),
    "audit plot existing": lambda p: _audit(plot=_png(p)),
    "consensus prompts 0": lambda p: _cons(prompts=0),
    "consensus prompts huge": lambda p: _cons(prompts=10 ** 9),
    "consensus prompts 'abc'": lambda p: _cons(prompts="abc"),
    "consensus prompts dir": lambda p: _cons(prompts=p.dir),
    "consensus prompts fifo": lambda p: _cons(prompts=p.fifo),
    "consensus tokens True": lambda p: _cons(tokens=True),
    "consensus tokens huge": lambda p: _cons(tokens=10 ** 9),
    "consensus passes 0": lambda p: _cons(passes=0),
    "consensus anchor bogus": lambda p: _cons(anchor="bogus"),
    "consensus batch_size 0": lambda p: _cons(batch_size=0),
    "consensus seed -1": lambda p: _cons(seed=-1),
    "consensus weights_mode bogus": lambda p: _cons(weights_mode="bogus"),
    "consensus out /dev/null": lambda p: _cons(out=p.devnull),
    "consensus out symlink": lambda p: _cons(out=p.link),
    "consensus plot .txt": lambda p: _cons(plot=str(p.tmp / "x.txt")),
    "consensus plot existing": lambda p: _cons(plot=_png(p)),
    "consensus resume without out": lambda p: _cons(resume=True),
}

LLM_XFAIL = {
    "audit theorem int": (lambda p: _audit(theorem=5), "llm_checks/audit.py resolve_theorems: TypeError"),
    "audit theorem [int]": (lambda p: _audit(theorem=[5]), "resolve_theorems -> catalogue get(): AttributeError"),
    "audit weights int": (lambda p: _audit(weights=5, random_init=False), "llm_checks/loaders.py: TypeError (Path(5))"),
    "audit seed 2^70": (lambda p: _audit(seed=2 ** 70), "verify/api/audit.py check_options: no upper bound; torch.manual_seed "
                        "ValueError after loading (CLI: internal error, exit 1, nothing on stdout under --format json)"),
    "audit hemisphere_prompts 1e9": (lambda p: _audit(hemisphere_prompts=10 ** 9), "verify/api/audit.py check_options: no "
                                     "upper bound; MemoryError (60 GiB) after loading the model (patched out here)"),
    "consensus prompts None": (lambda p: _cons(prompts=None), "verify/api/consensus.py check_options Path(None): TypeError"),
    "consensus prompts True": (lambda p: _cons(prompts=True), "verify/api/consensus.py check_options: TypeError"),
    "consensus prompts 2.5": (lambda p: _cons(prompts=2.5), "verify/api/consensus.py check_options: TypeError"),
    "consensus tokens '8'": (lambda p: _cons(tokens="8"), "verify/limits.py check_range: TypeError"),
    "consensus passes '1'": (lambda p: _cons(passes="1"), "verify/limits.py check_range: TypeError"),
    "consensus device int": (lambda p: _cons(device=5), "device not checked before loading; loader AttributeError"),
    "consensus seed 2^70": (lambda p: _cons(seed=2 ** 70), "verify/api/consensus.py check_options: no upper bound; "
                            "ValueError after loading (CLI: internal error, exit 1)"),
    "consensus out int": (lambda p: _cons(out=5), "verify/api/consensus.py check_options Path(5): TypeError"),
}


@pytest.mark.parametrize("name", sorted(LLM_BAD))
def test_llm_facades_refuse_bad_options_before_loading(no_load, paths, name):
    _assert_project_error(LLM_BAD[name], paths)


@pytest.mark.parametrize("name", sorted(LLM_XFAIL))
def test_llm_facades_refuse_bad_options_not_a_crash(torch_env, monkeypatch, paths, name):
    if "hemisphere_prompts" in name:  # would allocate 60 GiB after loading: the refusal must come before
        _refuse_loading(monkeypatch)
    _assert_project_error(LLM_XFAIL[name][0], paths)


# =============================================================================================
# 3. The JSON contract of the CLI
# =============================================================================================

CLI_ERRORS = {
    "format json before the command": ["--format", "json", "theorem", "3.2", "--t-end", "abc"],
    "format json, no command": ["--format", "json"],
    "missing ID": ["theorem", "--format", "json"],
    "bad float": ["theorem", "3.2", "--format", "json", "--t-end", "abc"],
    "--format=json": ["theorem", "3.2", "--format=json", "--t-end", "abc"],
    "last --format wins": ["theorem", "3.2", "--format", "text", "--format", "json", "--t-end", "abc"],
    "unknown option": ["theorem", "3.2", "--format", "json", "--bogus"],
    "close option": ["theorem", "3.2", "--format", "json", "--t-ed", "5"],
    "misspelt command": ["theorm", "3.2", "--format", "json"],
    "unknown theorem": ["theorem", "3.3", "--format", "json", "--no-simulate"],
    "t_end above limit": ["theorem", "3.2", "--format", "json", "--t-end", "1e9"],
    "instance /dev/null": ["theorem", "3.2", "--format", "json", "--instance", "/dev/null"],
    "instance dir": ["theorem", "3.2", "--format", "json", "--instance", "{dir}"],
    "instance fifo": ["assumptions", "3.2", "--format", "json", "--instance", "{fifo}"],
    "instance without value": ["theorem", "3.2", "--format", "json", "--instance"],
    "debug after": ["theorem", "3.2", "--format", "json", "--debug", "--instance", "{missing}"],
    "debug before": ["--debug", "theorem", "3.2", "--format", "json", "--instance", "{missing}"],
    "sos parse error": ["sos", "x^2 +", "--format", "json"],
    "sos products not int": ["sos", "x^2", "--products", "abc", "--format", "json"],
    "sos save symlink": ["sos", "x^2", "--save", "{link}", "--format", "json"],
    "sos save existing": ["sos", "x^2", "--save", "{file}", "--format", "json"],
    "lyapunov missing vars": ["lyapunov", "--field", "-x", "--format", "json"],
    "lyapunov odd degree": ["lyapunov", "--field", "-x", "--vars", "x", "--degree", "3", "--format", "json"],
    "recheck fifo": ["recheck", "{fifo}", "--format", "json"],
    "recheck bad JSON": ["recheck", "{garbage}", "--format", "json"],
    "simulate no t_end": ["simulate", "--format", "json"],
    "simulate no-effect option": ["simulate", "--t-end", "1", "--tokens", "3", "--instance", HF, "--format", "json"],
    "simulate exclusive": ["simulate", "--t-end", "1", "--preset", "x", "--instance", "y", "--format", "json"],
    "simulate unknown preset": ["simulate", "--t-end", "1", "--preset", "nope", "--format", "json"],
    "simulate json /dev/null": ["simulate", "--t-end", "1", "--json", "/dev/null", "--format", "json"],
    "depth unknown id": ["depth", "5.5", "--format", "json"],
    "depth bad model": ["depth", "3.2", "--model", "bad", "--format", "json"],
    "depth eps out of range": ["depth", "3.2", "--eps", "2", "--format", "json"],
    "audit no model": ["audit", "--format", "json"],
    "consensus no model": ["consensus", "--format", "json"],
    "reproduce exclusive": ["reproduce", "--format", "json", "--quick", "--full"],
    "list extra": ["list", "--format", "json", "extra"],
    "double dash": ["theorem", "3.2", "--format", "json", "--", "--x"],
}


def _fill(argv, p):
    garbage = p.tmp / "garbage.json"
    garbage.write_text("{not json")
    names = {"dir": p.dir, "fifo": p.fifo, "missing": p.missing, "link": p.link, "file": p.file, "garbage": str(garbage)}
    return [a.format(**names) for a in argv]


@pytest.mark.parametrize("name", sorted(CLI_ERRORS))
def test_cli_errors_are_one_json_document_with_exit_2(capfd, paths, name):
    rc, out, err = _cli(capfd, *_fill(CLI_ERRORS[name], paths))
    assert rc == 2, (rc, out, err)
    doc = _strict_json(out)
    jsonschema.validate(doc, ERROR_SCHEMA)
    assert doc["error"]["message"] and "Traceback" not in err
    assert Path(paths.file).read_text() == "{}" and not (paths.tmp / "target.json").exists()


@pytest.mark.parametrize("argv", [["theorem", "3.2", "--t-end", "nan"], ["theorem", "3.2", "--t-end", "inf"],
                                  ["simulate", "--t-end", "1", "--rtol", "nan"]])
def test_cli_error_with_a_non_finite_value_is_strict_json(capfd, argv):
    rc, out, _ = _cli(capfd, *argv, "--format", "json")
    assert rc == 2
    jsonschema.validate(_strict_json(out), ERROR_SCHEMA)


def test_cli_abbreviated_format_json_errors_are_json_too(capfd):
    rc, out, _ = _cli(capfd, "list", "--form", "json")
    assert rc == 0 and _strict_json(out)["kind"] == "list"  # the run honours the abbreviation...
    rc, out, _ = _cli(capfd, "theorem", "3.2", "--form", "json", "--t-end", "abc")
    assert rc == 2
    jsonschema.validate(_strict_json(out), ERROR_SCHEMA)  # ...so must the error


def test_cli_format_before_the_command_runs_or_names_format(capfd):
    rc, out, _ = _cli(capfd, "--format", "json", "list")
    doc = _strict_json(out)
    if rc == 0:
        assert doc["kind"] == "list"
    else:
        assert doc["error"]["field"] == "--format" or "--format" in doc["error"]["message"], doc


CLI_RUNS = {  # name -> (argv, expected exit code)
    "list": (["list"], 0),
    "assumptions fails": (["assumptions", "3.2", "--instance", CAUSAL], 3),
    "assumptions LN1": (["assumptions", "LN1"], 0),
    "theorem counterexample": (["theorem", "4.4-sym-later", "--instance", str(EX / "counterexample_4_4_sym.json"),
                                "--no-simulate"], 3),
    "theorem certified rate": (["theorem", "3.2", "--no-simulate", "--certified-rate"], 0),
    "theorem evidence": (["theorem", "4.2", "--t-end", "1"], 0),
    "theorem save": (["theorem", "3.2", "--no-simulate", "--save", "{out}/th"], 0),
    "sos motzkin": (["sos", "x^4*y^2 + x^2*y^4 - 3*x^2*y^2 + 1"], 4),
    "sos refuted": (["sos", "x - 1", "--on", "x >= 0"], 3),
    "sos no refute": (["sos", "x - 1", "--on", "x >= 0", "--no-refute"], 4),
    "sos products": (["sos", "x*y", "--on", "x >= 0, y >= 0", "--products", "2"], 0),
    "sos equality": (["sos", "x^2", "--on", "x*y == 1"], 0),
    "sos save": (["sos", "x^2 + 1", "--save", "{out}/c.json"], 0),
    "sos negative --on": (["sos", "x^2", "--on", "-x >= 0"], 0),
    "lyapunov fails": (["lyapunov", "--field", "1, -y", "--vars", "x,y"], 3),
    "lyapunov decay save": (["lyapunov", "--field", "-x, -y", "--vars", "x,y", "--decay", "1/2", "--save", "{out}/l.json"], 0),
    "recheck": (["recheck", "{cert}"], 0),
    "recheck invalid": (["recheck", "{badcert}"], 5),
    "depth layers": (["depth", "3.2", "--model", "layers", "--tau", "1/2", "--no-simulate"], 0),
    "depth fails": (["depth", "4.2", "--instance", HF, "--no-simulate"], 3),
    "depth save": (["depth", "4.2", "--no-simulate", "--save", "{out}/d"], 0),
    "simulate digits": (["simulate", "--t-end", "0.5", "--points", "3", "--digits", "8"], 0),
    "simulate samples": (["simulate", "--t-end", "1", "--points", "3", "--samples", "2", "--tokens", "3"], 0),
    "simulate abs causal": (["simulate", "--t-end", "1", "--points", "3", "--preset", "constant-identity-causal",
                             "--variant", "abs"], 0),
    "simulate outputs + progress": (["simulate", "--t-end", "1", "--points", "3", "--plot", "{out}/s.png",
                                     "--json", "{out}/s.json", "--progress"], 0),
}


@pytest.fixture(scope="module")
def cert_files(tmp_path_factory, parrilo):
    d = tmp_path_factory.mktemp("certs")
    (d / "ok.json").write_text(json.dumps(parrilo[1]))
    bad = copy.deepcopy(parrilo[1])
    bad["sos_terms"][0]["gram"][0][0] = "3"
    (d / "bad.json").write_text(json.dumps(bad))
    return d


@pytest.mark.parametrize("name", sorted(CLI_RUNS))
def test_cli_json_output_follows_the_contract(capfd, tmp_path, cert_files, name):
    argv, code = CLI_RUNS[name]
    names = {"out": str(tmp_path), "cert": str(cert_files / "ok.json"), "badcert": str(cert_files / "bad.json")}
    argv = [a.format(**names) for a in argv]
    rc, out, err = _cli(capfd, *argv, "--format", "json")
    assert rc == code, (rc, err)
    doc = _strict_json(out)  # nothing but one JSON document: no progress, no "saved ..." line
    _validate(doc)
    assert doc["kind"] == argv[0]
    if "verdict" in doc:
        assert EXIT_OF[doc["verdict"]] == rc
    for written in [a for a in argv if a.startswith(str(tmp_path))]:
        assert Path(written).exists(), written


def test_cli_stdout_of_a_real_process_is_only_json(tmp_path):
    """Import-time prints, warnings and progress lines of a fresh process stay off stdout."""
    r = subprocess.run([sys.executable, "-m", "verify.cli.main", "simulate", "--t-end", "1", "--points", "3",
                        "--json", str(tmp_path / "s.json"), "--progress", "--format", "json", "--debug"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    _validate(_strict_json(r.stdout))
    assert json.loads((tmp_path / "s.json").read_text())["kind"] == "simulate"


def test_api_reports_match_their_schema_and_exit_codes(reports):
    for kind, r in reports.items():
        doc = _strict_json(json.dumps(r.to_json()))
        _validate(doc)
        assert doc["kind"] == kind == r.kind
        if r.verdict is not None:
            assert r.exit_code == EXIT_OF[r.verdict]


# =============================================================================================
# 4. Frozen records
# =============================================================================================

def _containers(value, path="payload"):
    if isinstance(value, dict):
        yield path, value
        for k, v in value.items():
            yield from _containers(v, f"{path}.{k}")
    elif isinstance(value, list):
        yield path, value
        for i, v in enumerate(value):
            yield from _containers(v, f"{path}[{i}]")


DICT_MUTATIONS = {
    "setitem": lambda d: d.__setitem__("verdict", "holds"), "delitem": lambda d: d.__delitem__(next(iter(d))),
    "update": lambda d: d.update(verdict="holds"), "setdefault": lambda d: d.setdefault("zz", 1),
    "pop": lambda d: d.pop(next(iter(d))), "popitem": lambda d: d.popitem(), "clear": lambda d: d.clear(),
    "ior": lambda d: d.__ior__({"verdict": "holds"}),
}
LIST_MUTATIONS = {
    "setitem": lambda x: x.__setitem__(0, "holds"), "slice": lambda x: x.__setitem__(slice(None), []),
    "delitem": lambda x: x.__delitem__(0), "append": lambda x: x.append(1), "extend": lambda x: x.extend([1]),
    "insert": lambda x: x.insert(0, 1), "pop": lambda x: x.pop(), "remove": lambda x: x.remove(x[0]),
    "clear": lambda x: x.clear(), "sort": lambda x: x.sort(), "reverse": lambda x: x.reverse(),
    "iadd": lambda x: x.__iadd__([1]), "imul": lambda x: x.__imul__(0),
}


def test_every_nested_container_of_a_real_payload_is_read_only(reports):
    for r in reports.values():
        before = r.to_json()
        for path, c in _containers(r.payload):
            table = DICT_MUTATIONS if isinstance(c, dict) else LIST_MUTATIONS
            for how, mutate in table.items():
                if not c:
                    continue
                with pytest.raises(TypeError):
                    mutate(c)
        assert r.to_json() == before
        with pytest.raises(AttributeError):
            r.payload = {}
        with pytest.raises(AttributeError):
            r.files = ()
        assert isinstance(r.files, tuple) and all(isinstance(f, str) for f in r.files)


def test_to_json_shares_no_container_with_the_report(reports):
    for r in reports.values():
        fresh = r.to_json()
        ids = {id(c) for _, c in _containers(r.payload)}
        for path, c in _containers(fresh):
            assert id(c) not in ids, path
            assert type(c) in (dict, list), path
        fresh["verdict"] = "holds"
        fresh.clear()
        assert r.to_json() != fresh


def test_the_record_of_a_proof_is_frozen(reports):
    rec = reports["sos"].record
    with pytest.raises(AttributeError):
        rec.status = "holds"
    with pytest.raises(AttributeError):
        rec.certificate.sos_terms = ()


def test_a_self_built_report_is_frozen_and_validated():
    body = {"verdict": "fails", "hypotheses": [{"name": "x", "witness": {"z": [1, 2]}}]}
    r = Report("assumptions", body, "verdict: fails", 3)
    body["verdict"] = "holds"
    body["hypotheses"][0]["witness"]["z"].append(3)
    assert r.verdict == "fails" and r.payload["hypotheses"][0]["witness"]["z"] == [1, 2]
    for bad in ({"verdict": "true"}, {"steps": []}):
        with pytest.raises(ValueError):
            Report("theorem", bad, "")


def test_payload_cannot_be_reinitialised():
    r = Report("assumptions", {"verdict": "fails", "hypotheses": [{"name": "x"}]}, "verdict: fails", 3)
    with contextlib.suppress(TypeError):
        r.payload.__init__(verdict="holds")
    with contextlib.suppress(TypeError):
        r.payload["hypotheses"].__init__([])
    assert r.verdict == "fails" and len(r.payload["hypotheses"]) == 1


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_of_a_report_stay_frozen(how):
    r = Report("assumptions", {"verdict": "fails", "hypotheses": [{"name": "x"}]}, "verdict: fails", 3)
    r2 = copy.deepcopy(r) if how == "deepcopy" else pickle.loads(pickle.dumps(r))
    assert r2 == r
    with pytest.raises(TypeError):
        r2.payload["verdict"] = "holds"
    with pytest.raises(TypeError):
        r2.payload["hypotheses"].append({})


def test_report_exit_code_must_match_its_verdict():
    for verdict, code in (("holds", 3), ("fails", 0), ("unknown", 0), ("certificate_invalid", 0)):
        with pytest.raises(ValueError):
            Report("theorem" if verdict != "certificate_invalid" else "recheck", {"verdict": verdict}, "", code)


# =============================================================================================
# 5. Output targets: refused before any work, nothing written half-way
# =============================================================================================

@pytest.fixture
def no_work(monkeypatch):
    """Every expensive step raises: a refusal must come before any of them."""
    import verify.api.simulate as api_sim
    import verify.depth
    import verify.sos.lyapunov
    import verify.sos.prove
    import verify.theorem.check

    def boom(*a, **k):
        raise AssertionError("work started before the output target was checked")
    monkeypatch.setattr(verify.sos.prove, "prove_nonnegative", boom)
    monkeypatch.setattr(verify.sos.lyapunov, "find_lyapunov", boom)
    monkeypatch.setattr(verify.theorem.check, "check_theorem", boom)
    monkeypatch.setattr(verify.depth, "certify_depth", boom)
    monkeypatch.setattr(api_sim, "_integrate", boom)


def _targets(p):
    existing_png = p.tmp / "old.png"
    existing_png.write_bytes(b"old")
    link_png = p.tmp / "link.png"
    os.symlink(p.tmp / "victim.png", link_png)
    fifo_png = p.tmp / "fifo.png"
    os.mkfifo(fifo_png)
    dir_png = p.tmp / "dir.png"
    dir_png.mkdir()
    return {"existing": str(existing_png), "symlink": str(link_png), "fifo": str(fifo_png), "dir": str(dir_png)}


@pytest.mark.parametrize("kind", ["existing", "symlink", "fifo", "dir", "/dev/null"])
def test_file_targets_are_refused_before_any_work(no_work, paths, kind):
    t = _targets(paths)
    png = "/dev/null" if kind == "/dev/null" else t[kind]
    js = {"existing": paths.file, "symlink": paths.link, "fifo": paths.fifo, "dir": paths.dir, "/dev/null": "/dev/null"}[kind]
    calls = [lambda: verify.sos("x^2 + 1", save=js), lambda: verify.lyapunov("-x, -y", vars="x,y", save=js),
             lambda: verify.simulate(t_end=1, json_out=js), lambda: verify.simulate(t_end=1, plot=png),
             lambda: verify.simulate(t_end=1, plot=str(paths.tmp / "new.png"), json_out=js)]
    for call in calls:
        with pytest.raises(InvalidInput):
            call()
    assert Path(paths.file).read_text() == "{}" and Path(t["existing"]).read_bytes() == b"old"
    assert not (paths.tmp / "target.json").exists() and not (paths.tmp / "victim.png").exists()
    assert not (paths.tmp / "new.png").exists()


@pytest.mark.parametrize("kind", ["existing report", "existing certificate", "report is a directory", "report is a symlink"])
def test_directory_targets_are_refused_before_any_work(no_work, tmp_path, kind):
    save = tmp_path / "save"
    save.mkdir()
    names = {"theorem": "3_2__report.json" if kind != "existing certificate" else "3_2__someproof.json",
             "depth": "3_2__depth_ode__report.json" if kind != "existing certificate" else "3_2__depth_ode.json"}
    for what, call in (("theorem", lambda: verify.theorem("3.2", simulate=False, save=save)),
                       ("depth", lambda: verify.depth("3.2", simulate=False, save=save))):
        target = save / names[what]
        if kind == "report is a directory":
            target.mkdir()
        elif kind == "report is a symlink":
            os.symlink(tmp_path / "victim.json", target)
        else:
            target.write_text("old")
        with pytest.raises(InvalidInput):
            call()
        assert not (tmp_path / "victim.json").exists()
        if kind.startswith("existing"):
            assert target.read_text() == "old"
        assert [p.name for p in save.iterdir()] == [target.name]  # nothing else written, no temporary left
        if target.is_dir():
            target.rmdir()
        else:
            target.unlink()


def test_a_save_into_a_link_to_a_directory_is_refused(no_work, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "alias")
    for call in (lambda: verify.theorem("3.2", simulate=False, save=tmp_path / "alias"),
                 lambda: verify.depth("3.2", simulate=False, save=tmp_path / "alias")):
        with pytest.raises(InvalidInput):
            call()
    assert list(real.iterdir()) == []


def test_forced_writes_replace_only_regular_files_and_report_them(tmp_path):
    c = tmp_path / "c.json"
    c.write_text("old")
    r = verify.sos("x^2 + 1", save=c, force=True)
    assert r.files == (str(c),) and json.loads(c.read_text())["kind"] == "nonnegativity"
    assert verify.recheck(c).verdict == "holds"
    link = tmp_path / "l.json"
    os.symlink(c, link)
    with pytest.raises(InvalidInput):
        verify.sos("x^2 + 1", save=link, force=True)
    r = verify.sos("x^4*y^2 + x^2*y^4 - 3*x^2*y^2 + 1", save=tmp_path / "none.json")  # no certificate: nothing written
    assert r.verdict == "unknown" and r.files == () and not (tmp_path / "none.json").exists()


# =============================================================================================
# 6. HTML (and Markdown) display
# =============================================================================================

MARKUP = "<img src=x onerror=alert(1)><script>alert('x')</script>&amp;"


def _assert_escaped(html_text: str, shown: bool = True) -> None:
    assert "<script" not in html_text and "<img" not in html_text, html_text
    if shown:
        assert "&lt;script&gt;" in html_text or "&lt;img" in html_text, html_text


def test_markup_in_instance_names_is_escaped_in_html():
    data = _hf() | {"name": MARKUP, "description": MARKUP}
    for r in (verify.theorem("3.2", data, simulate=False), verify.assumptions("3.2", instance=data),
              verify.depth("3.2", instance=data, simulate=False), verify.simulate(instance=data, t_end=1, points=3)):
        html_text = r._repr_html_()
        _assert_escaped(html_text, shown=r.kind != "depth")
        assert MARKUP not in r._repr_markdown_().split("```text")[0]


def test_markup_in_certificate_labels_and_self_built_reports_is_escaped(parrilo):
    cert = copy.deepcopy(parrilo[1])
    cert["label"] = MARKUP
    _assert_escaped(verify.recheck(cert)._repr_html_())
    r = Report("simulate", {"status": MARKUP}, MARKUP + "\n```\n" + MARKUP)
    _assert_escaped(r._repr_html_())
    md = r._repr_markdown_()
    assert md.count("```") == 2  # the text cannot close the code fence


@pytest.mark.parametrize("name", ["$x^$", "$\\frac{$", "$\\undefinedmacro$"])
def test_tex_markup_in_instance_names_is_drawn_literally(tmp_path, name):
    import matplotlib

    matplotlib.use("Agg")
    r = verify.simulate(instance=_hf() | {"name": name}, t_end=1, points=3, plot=tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 0
    r.plot().savefig(tmp_path / "again.png")


# =============================================================================================
# 7. Plots of reports built or tampered by the caller
# =============================================================================================

def _sim_report(**body):
    return Report("simulate", {"status": "completed", **body}, "")


PLOT_BAD = {
    "series of strings": lambda: _sim_report(series={"t": ["a"], "E_pair": [1]}).plot(),
    "series t scalar": lambda: _sim_report(series={"t": 5, "E_pair": 5}).plot(),
    "series nested": lambda: _sim_report(series={"t": [[0, 1]], "E_pair": [[1, 2]]}).plot(),
    "batch without mean": lambda: _sim_report(batch={"t": [0, 1], "E_pair": {"x": 1}}).plot(),
    "title not text": lambda: _sim_report(series={"t": [0, 1], "E_pair": [1, 0.5]}).plot(title=object()),
    "variant unknown": lambda: _sim_report(series={"t": [0, 1], "E_pair": [1, 0.5]}).plot(variant="zzz"),
    "consensus without n_blocks": lambda: Report("consensus", {"status": "completed",
                                                               "metrics": {"E": {"per_prompt": [[1, 2]]}}}, "").plot(),
    "consensus metrics list": lambda: Report("consensus", {"status": "completed", "metrics": [1]}, "").plot(),
    "consensus per_prompt text": lambda: Report("consensus", {"status": "completed", "n_blocks": 1,
                                                              "metrics": {"E": {"per_prompt": "abc"}}}, "").plot(),
    "audit d_model text": lambda: Report("audit", {"verdict": "fails", "heads": {"x": 1}, "layout": {"d_model": "a"}},
                                         "").plot(),
    "depth bound text": lambda: Report("depth", {"verdict": "holds", "bound": "abc", "observed": 1}, "").plot(),
}


@pytest.mark.parametrize("name", ["series mismatch", "no series", "list", "sos", "theorem without evidence",
                                  "theorem without record", "depth empty", "audit without tables", "unknown option"])
def test_plots_of_unusable_reports_raise_invalid_input(name):
    calls = {
        "series mismatch": lambda: _sim_report(series={"t": [0, 1], "E_pair": [1]}).plot(),
        "no series": lambda: _sim_report(final={"E_pair": 1}).plot(),
        "list": lambda: Report("list", {"status": "ok"}, "").plot(),
        "sos": lambda: Report("sos", {"verdict": "holds"}, "").plot(),
        "theorem without evidence": lambda: Report("theorem", {"verdict": "holds"}, "").plot(),
        "theorem without record": lambda: Report("theorem", {"verdict": "holds", "numerical_evidence": {"x": 1}}, "").plot(),
        "depth empty": lambda: Report("depth", {"verdict": "holds"}, "").plot(),
        "audit without tables": lambda: Report("audit", {"verdict": "fails"}, "").plot(),
        "unknown option": lambda: _sim_report(series={"t": [0, 1], "E_pair": [1, 0.5]}).plot(foo=1),
    }
    with pytest.raises(InvalidInput):
        calls[name]()


@pytest.mark.parametrize("name", sorted(PLOT_BAD))
def test_plots_of_malformed_self_built_reports_raise_invalid_input(name):
    import matplotlib

    matplotlib.use("Agg")
    with pytest.raises(InvalidInput):
        PLOT_BAD[name]()


@pytest.mark.parametrize("key,value", [("t_end", 1e9), ("samples", 10 ** 9)])
def test_theorem_plot_does_not_trust_a_tampered_horizon(reports, monkeypatch, key, value):
    import numerics.dop853 as dop

    real = reports["theorem"]
    assert real.payload["numerical_evidence"]
    payload = real.to_json()
    payload["numerical_evidence"]["integrator"][key] = value
    forged = Report("theorem", payload, real.text, real.exit_code, record=real.record)

    def spy(self, systems, t_end, **kw):
        raise AssertionError(f"integrated to t_end={t_end} with {kw}")
    monkeypatch.setattr(dop.DOP853, "integrate", spy)
    with pytest.raises(InvalidInput):
        forged.plot()


def test_theorem_plot_refuses_a_record_of_another_instance(reports):
    import matplotlib

    matplotlib.use("Agg")
    other = verify.theorem("4.2", t_end=1)
    forged = Report("theorem", reports["theorem"].to_json(), "", 0, record=other.record)
    with pytest.raises(InvalidInput):
        forged.plot()
