"""Every fate route's ``verify fate --format json`` payload validates against the published schema.

The schema lists the routes a report may name; a route added to the code but not to the schema made
valid reports fail validation (the ``repulsion`` route did).  So: one instance per route, run through
the CLI, each payload validated; the schema's route list equals the certificate's; and the schema
rejects a route it does not know (it is not vacuous)."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import jsonschema
import pytest

from fate_cases import instance_json, random_problem
from verify._fate.certificate import ROUTES
from verify.cli.main import main
from verify.report import schema_path

SCHEMA = json.loads(schema_path("fate").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
IDENTITY = [{"P": "identity", "U": "identity"}]

CASES = {  # route: (instance, expected fate); an int is a seed of fate_cases.random_problem(seed, nonsymmetric=True)
    "hemisphere": ({"d": 3, "beta": 1, "mask": "full", "heads": IDENTITY,
                    "tokens": [[1, 0, 0], [0, 1, 0], ["3/5", "4/5", 0]]}, "consensus"),
    "cap": ({"d": 3, "beta": 1, "mask": "causal", "heads": IDENTITY,
             "tokens": [[1, 0, 0], ["3/5", "4/5", 0], ["3/5", 0, "4/5"]]}, "consensus"),
    "basin": (32, "non-consensus"),
    "contraction": (67, "consensus"),
    "projective": (57, "consensus"),
    "moving-consensus": (8, "consensus"),
    "repulsion": (53, "non-consensus"),
    None: (23, "unknown"),
}


def _schema_routes() -> set:
    report = next(branch for branch in SCHEMA["oneOf"] if "route" in branch["properties"])
    return set(report["properties"]["route"]["enum"])


def _payload(tmp_path: Path, instance) -> tuple[int, dict]:
    data = instance_json(random_problem(instance, nonsymmetric=True)) if isinstance(instance, int) else instance
    path = tmp_path / "instance.json"
    path.write_text(json.dumps(data))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["fate", "--instance", str(path), "--format", "json"])
    return code, json.loads(out.getvalue())


def test_the_cases_cover_every_route_and_the_schema_lists_exactly_those():
    assert set(CASES) == set(ROUTES) | {None}
    assert _schema_routes() == set(ROUTES) | {None}


@pytest.mark.parametrize("route", list(CASES), ids=lambda r: r or "unknown")
def test_each_route_reports_valid_json(route, tmp_path):
    instance, fate = CASES[route]
    code, payload = _payload(tmp_path, instance)
    assert (payload["route"], payload["fate"]) == (route, fate)
    assert code == (4 if route is None else 0)
    assert [f"{e.json_path}: {e.message}" for e in VALIDATOR.iter_errors(payload)] == []
    if route is not None:
        assert payload["certificate"]["route"] == route


def test_the_schema_rejects_a_route_it_does_not_know(tmp_path):
    _, payload = _payload(tmp_path, CASES["repulsion"][0])
    assert VALIDATOR.is_valid(payload)
    payload["route"] = "hope"
    assert not VALIDATOR.is_valid(payload)
