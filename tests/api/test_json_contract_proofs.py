"""The JSON contract of the proof-side commands: ``verify <command> --format json`` on holds, fails and
unknown cases validates against the published schema ``verify/schemas/<kind>.schema.json``, and the
schemas reject payloads with a field of the wrong type (they are not vacuous)."""
from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path

import jsonschema
import pytest

from verify.cli.main import main
from verify.report import schema_path

ROOT = Path(__file__).resolve().parents[2]
EX = str(ROOT / "examples")
QUARTIC = "2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4"
KINDS = ("list", "assumptions", "theorem", "sos", "lyapunov", "recheck", "depth", "error")
EXIT = {"holds": 0, "fails": 3, "unknown": 4, "certificate_invalid": 5, "not_applicable": 6}


def _instance(**over):
    data = {"name": "contract", "d": 2, "beta": 1, "mask": "causal", "heads": [{"P": "identity", "U": "identity"}],
            "tokens": [[1, 0], ["3/5", "4/5"]]}
    return json.dumps(data | over)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Instance and certificate files the cases read (a saved certificate and a tampered copy)."""
    d = tmp_path_factory.mktemp("contract")
    (d / "unbounded.json").write_text(_instance(heads=[{"P": [["t*sin(t)", 0], [0, 1]], "U": "identity"}]))
    (d / "hot.json").write_text(_instance(beta=10000))
    code, _ = _run("sos", QUARTIC, "--save", str(d / "q.json"))
    assert code == 0
    cert = json.loads((d / "q.json").read_text())
    cert["polynomial"][0][1] = str(cert["polynomial"][0][1]) + "1"
    (d / "tampered.json").write_text(json.dumps(cert))
    return d


CASES = {  # name: (argv with {d} for the files directory, expected verdict or status)
    "list": (["list"], "ok"),
    "assumptions_holds": (["assumptions", "3.2", "--instance", f"{EX}/hemisphere_full.json"], "holds"),
    "assumptions_fails": (["assumptions", "4.2", "--instance", f"{EX}/hemisphere_full.json"], "not_applicable"),
    "assumptions_unknown": (["assumptions", "4.2", "--instance", "{d}/unbounded.json"], "unknown"),
    "assumptions_claim_proof": (["assumptions", "D1"], "holds"),
    "theorem_holds": (["theorem", "4.2", "--no-simulate", "--certified-rate"], "holds"),
    "theorem_holds_with_evidence": (["theorem", "4.4-sym", "--t-end", "2"], "holds"),
    "theorem_fails": (["theorem", "4.2", "--no-simulate", "--instance", f"{EX}/hemisphere_full.json"], "not_applicable"),
    "theorem_refuted": (["theorem", "4.4-same-sign", "--no-simulate"], "fails"),
    "theorem_unknown": (["theorem", "4.2", "--no-simulate", "--instance", "{d}/hot.json"], "unknown"),
    "sos_holds": (["sos", QUARTIC, "--vars", "x,y"], "holds"),
    "sos_fails": (["sos", "x*y - 1", "--on", "x >= 0, y >= 0, x <= 1, y <= 1"], "fails"),
    "sos_unknown": (["sos", "x^4*y^2 + x^2*y^4 - 3*x^2*y^2 + 1"], "unknown"),
    "lyapunov_holds": (["lyapunov", "--field", "-x + y^2, -y", "--vars", "x,y", "--degree", "4"], "holds"),
    "lyapunov_fails": (["lyapunov", "--field", "1 - x, -y", "--vars", "x,y"], "fails"),
    "lyapunov_unknown": (["lyapunov", "--field", "x + y, -y", "--vars", "x,y"], "unknown"),
    "recheck_holds": (["recheck", "{d}/q.json"], "holds"),
    "recheck_invalid": (["recheck", "{d}/tampered.json"], "certificate_invalid"),
    "depth_holds": (["depth", "4.2", "--no-simulate"], "holds"),
    "depth_layers_holds": (["depth", "4.2", "--model", "layers", "--no-simulate"], "holds"),
    "depth_fails": (["depth", "4.2", "--no-simulate", "--instance", f"{EX}/hemisphere_full.json"], "not_applicable"),
    "depth_unknown": (["depth", "4.2", "--no-simulate", "--instance", f"{EX}/causal_two_heads.json"], "unknown"),
    "error_unknown_id": (["theorem", "9.9"], "error"),
    "error_bad_option": (["sos", "x^2", "--products", "1"], "error"),
    "error_bad_instance": (["depth", "4.2", "--instance", "{d}/missing.json"], "error"),
}


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    return code, out.getvalue()


@pytest.fixture(scope="module")
def outputs(files):
    """Every case run once through the CLI with --format json: ``name -> (exit code, payload)``."""
    results = {}
    for name, (argv, _) in CASES.items():
        code, out = _run(*[a.replace("{d}", str(files)) for a in argv], "--format", "json")
        results[name] = (code, json.loads(out))
    return results


@pytest.fixture(scope="module")
def validators():
    out = {}
    for kind in KINDS:
        schema = json.loads(schema_path(kind).read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        out[kind] = jsonschema.Draft202012Validator(schema)
    return out


def test_every_schema_is_draft_2020_12_and_names_its_kind(validators):
    for kind in KINDS:
        schema = validators[kind].schema
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["properties"]["kind"] == {"const": kind}
        assert schema["properties"]["schema_version"]["const"] == "1"
        assert {"schema_version", "kind"} <= set(schema["required"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_command_output_validates_against_its_schema(name, outputs, validators):
    code, payload = outputs[name]
    command, expected = CASES[name][0][0], CASES[name][1]
    kind = "error" if expected == "error" else command
    assert list(payload)[:2] == ["schema_version", "kind"] and payload["kind"] == kind
    errors = [f"{e.json_path}: {e.message}" for e in validators[kind].iter_errors(payload)]
    assert errors == []
    if kind == "error":
        assert code == 2 and payload["error"]["message"]
    elif kind == "list":
        assert code == 0 and payload["status"] == "ok"
    else:
        assert payload["verdict"] == expected and code == EXIT[expected]


def test_saved_reports_validate_and_certificates_keep_their_format(tmp_path, validators):
    assert _run("theorem", "4.2", "--no-simulate", "--save", str(tmp_path / "t"))[0] == 0
    assert _run("depth", "4.2", "--no-simulate", "--save", str(tmp_path / "d"))[0] == 0
    reports = sorted(tmp_path.glob("*/*__report.json"))
    certificates = sorted(set(tmp_path.glob("*/*.json")) - set(reports))
    assert len(reports) == 2 and len(certificates) >= 2
    for path in reports:
        data = json.loads(path.read_text())
        assert list(validators[data["kind"]].iter_errors(data)) == []
    for path in certificates:
        data = json.loads(path.read_text())
        assert "schema_version" not in data and data["format"].startswith("consensus-verify/")


def _set(path: str, value):
    def mutate(payload):
        *parents, last = path.split("/")
        target = payload
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[int(last) if isinstance(target, list) else last] = value
    return mutate


MUTATIONS = [  # (case, mutation, what is wrong)
    ("list", _set("theorems/0/id", 4.2), "a theorem id as a number"),
    ("list", _set("status", "done"), "a status other than ok"),
    ("assumptions_holds", _set("hypotheses/0/exact", "yes"), "exact as a string"),
    ("assumptions_fails", _set("hypotheses/0/verdict", "failed"), "a verdict outside the enum"),
    ("assumptions_holds", _set("instance/N", "4"), "N as a string"),
    ("theorem_holds", _set("steps/0/kind", "lemma"), "an unknown step kind"),
    ("theorem_holds", _set("steps/0/obligations/0/verdict", True), "an obligation verdict as a bool"),
    ("theorem_holds", _set("steps/0/extra", 1), "an unknown key in a proof step"),
    ("theorem_holds", _set("provenance/wall_time_s", "0.1"), "wall time as a string"),
    ("sos_holds", _set("stats/gram_blocks", "3"), "gram blocks as a string"),
    ("sos_holds", _set("certificate", None), "holds without a certificate"),
    ("sos_fails", _set("result/witness", {}), "fails without a point"),
    ("lyapunov_holds", _set("certificate", []), "a certificate as a list"),
    ("recheck_holds", _set("verdict", "fails"), "a recheck verdict outside holds / certificate_invalid"),
    ("recheck_invalid", lambda p: p.pop("note"), "certificate_invalid without its note"),
    ("depth_holds", _set("bound", 1.5), "a float bound"),
    ("depth_holds", _set("rate", None), "holds without a rate"),
    ("depth_fails", _set("model", "discrete"), "an unknown model"),
    ("error_bad_option", _set("error/message", None), "an error without a message"),
    ("error_unknown_id", _set("error/code", 2), "an unknown key in the error"),
    ("sos_unknown", _set("schema_version", 1), "schema_version as a number"),
    ("depth_holds", _set("kind", "theorem"), "the wrong kind"),
]


@pytest.mark.parametrize("case, mutate, wrong", MUTATIONS, ids=[m[2] for m in MUTATIONS])
def test_a_field_of_the_wrong_type_fails_validation(case, mutate, wrong, outputs, validators):
    payload = copy.deepcopy(outputs[case][1])
    kind = payload["kind"]
    assert list(validators[kind].iter_errors(payload)) == []  # the original is valid
    mutate(payload)
    assert list(validators[kind].iter_errors(payload)), f"the {kind} schema accepts {wrong}"


@pytest.mark.parametrize("command", ["list", "assumptions", "theorem", "sos", "lyapunov", "recheck", "depth"])
def test_help_has_no_rest_markup(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    text = capsys.readouterr().out
    assert exc.value.code == 0 and text.startswith(f"usage: verify {command}")
    assert not [mark for mark in ("`", ":func:", ":mod:", ":class:", ":data:") if mark in text]
