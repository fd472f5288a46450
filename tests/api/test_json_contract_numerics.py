"""The JSON contract of the numeric-side commands: ``verify simulate / audit / consensus / reproduce
--format json`` validates against the published schema ``verify/schemas/<kind>.schema.json``, the
file a command writes (``--json``, ``consensus.json``) is the same payload, and the schemas reject
payloads with a field of the wrong type (they are not vacuous)."""
from __future__ import annotations

import contextlib
import copy
import importlib.util
import io
import json
import os

import jsonschema
import pytest

from verify.cli.main import main
from verify.report import SCHEMA_VERSION, schema_path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
TORCH = importlib.util.find_spec("torch") is not None and importlib.util.find_spec("transformers") is not None
TORCH_REASON = "needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'"
TWO = {"name": "two", "d": 3, "beta": 1, "mask": "full", "heads": [{"P": "zero", "U": "identity"}],
       "tokens": [[1, 0, 0], ["3/5", "4/5", 0]]}


def _run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*argv, "--format", "json"])
    return code, json.loads(out.getvalue())


def _validator(kind):
    schema = json.loads(schema_path(kind).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("contract-numerics")
    (d / "two.json").write_text(json.dumps(TWO))
    return d


SIMULATE = {  # name: argv ({d}: the files directory)
    "default_preset": ["simulate", "--t-end", "2", "--points", "5"],
    "batch": ["simulate", "--preset", "periodic-identity-causal", "--t-end", "2", "--points", "5", "--samples", "3"],
    "digits": ["simulate", "--instance", "{d}/two.json", "--t-end", "2", "--points", "5", "--digits", "20", "--json", "{d}/mp.json"],
}


@pytest.mark.parametrize("name", sorted(SIMULATE))
def test_simulate_json_validates(name, files):
    code, payload = _run(*[a.replace("{d}", str(files)) for a in SIMULATE[name]])
    assert code == 0 and payload["schema_version"] == SCHEMA_VERSION and payload["kind"] == "simulate"
    _validator("simulate").validate(payload)
    assert payload["status"] == "completed"
    assert ("batch" in payload) == (name == "batch")
    if name == "digits":
        assert isinstance(payload["final"]["E_pair"], str) and payload["metrics_precision"]["digits"] == 20
        assert json.loads((files / "mp.json").read_text()) == payload
    if name == "default_preset":
        assert payload["source"]["default"] is True and payload["source"]["name"] == "constant-identity-full"


@pytest.fixture(scope="module")
def reproduce_payload(tmp_path_factory):
    out = tmp_path_factory.mktemp("contract-reproduce") / "r"
    code, payload = _run("reproduce", "--smoke", "--no-llm", "--only", "theorems", "--no-progress", "--out", str(out))
    assert code == 0
    return out, payload


def test_reproduce_json_validates_and_is_the_report_file_with_the_header(reproduce_payload):
    out, payload = reproduce_payload
    _validator("reproduce").validate(payload)
    assert payload["status"] == "completed" and payload["out"] == str(out.resolve())
    on_disk = json.loads((out / "report.json").read_text())
    body = {k: v for k, v in payload.items() if k not in ("schema_version", "kind", "status", "out")}
    assert body == {k: v for k, v in on_disk.items() if k != "kind"} and on_disk["kind"] == "consensus-verify reproduction report"
    assert [c["id"] for c in payload["claims"]] == ["check-3.2", "check-4.2", "check-4.4-sym"]


@pytest.mark.skipif(not TORCH, reason=TORCH_REASON)
def test_audit_json_validates():
    code, payload = _run("audit", "gpt2-tiny", "--random-init", "--hemisphere-tokens", "8", "--no-progress")
    assert code == 6 and payload["verdict"] == "not_applicable"  # the exit code carries the verdict
    _validator("audit").validate(payload)
    assert set(payload["heads"]) >= {"p", "U_skew_share"}


@pytest.mark.skipif(not TORCH, reason=TORCH_REASON)
def test_consensus_json_validates_and_is_the_file_written(tmp_path):
    out = tmp_path / "run"
    code, payload = _run("consensus", "gpt2-tiny", "--random-init", "--prompts", "2", "--tokens", "8", "--no-progress",
                         "--out", str(out))
    assert code == 0
    _validator("consensus").validate(payload)
    assert payload["status"] == "completed" and json.loads((out / "consensus.json").read_text()) == payload


def test_a_usage_error_is_the_error_payload(files):
    code, payload = _run("simulate", "--instance", str(files / "two.json"), "--t-end", "1", "--tokens", "5")
    assert code == 2
    _validator("error").validate(payload)
    assert payload["error"]["field"] == "--tokens" and "has no effect" in payload["error"]["message"]


def test_the_schemas_reject_a_wrong_field(files, reproduce_payload):
    _, sim = _run("simulate", "--instance", str(files / "two.json"), "--t-end", "1", "--points", "3", "--digits", "12")
    _, plain = _run("simulate", "--instance", str(files / "two.json"), "--t-end", "1", "--points", "3")
    bad = []
    for kind, payload, edit in [
        ("simulate", sim, lambda p: p["final"].update(E_pair=0.0)),          # a high-precision metric as a float
        ("simulate", plain, lambda p: p["final"].update(E_pair="0.1")),      # a float64 metric as a string
        ("simulate", plain, lambda p: p.update(status="holds")),            # a simulation decides nothing
        ("simulate", plain, lambda p: p.pop("integrator")),
        ("simulate", plain, lambda p: p.update(kind="audit")),
        ("reproduce", reproduce_payload[1], lambda p: p["claims"][0].update(status="proved")),
        ("reproduce", reproduce_payload[1], lambda p: p.update(schema_version="2")),
    ]:
        validator = _validator(kind)
        validator.validate(payload)
        broken = copy.deepcopy(payload)
        edit(broken)
        if validator.is_valid(broken):
            bad.append(kind)
    assert not bad
