"""Schema drift: every payload the code can emit validates against its published schema, and every
enum / const of ``verify/schemas/<kind>.schema.json`` equals the code constant it mirrors.

Two halves.  The behavioural tests run cheap commands in-process on inputs the contract tests
(``test_json_contract_*.py``) do not reach, and validate what they print: an enclosure-only late
entry of ``verify depth`` (verdict holds, no closed-form bound), ``verify theorem --certified-rate``
on an instance where the depth verdict is ``not_applicable``, a proof step of kind ``certificate``
that cannot run (``4.4-hemisphere`` in ``d = 1``; it now carries an ``unknown`` verdict), and the ``verify audit MODEL --fate`` head map
(built from synthetic heads, no model download).  The structural tests tie each schema enum to the
tuple, ``Literal`` or ``Enum`` in the code that produces the value, so a value added to the code
and not to the schema (as ``repulsion`` was to the fate routes) fails here first.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import types
import typing
from functools import lru_cache

import jsonschema
import numpy as np
import pytest

from theorems.verdict import Status, applicability
from verify.cli.main import main
from verify.report import KINDS, SCHEMA_VERSION, VERDICTS, VARIANTS, Report, schema_path

STATUS = [s.value for s in Status]


# ---------------------------------------------------------------- helpers

@lru_cache(maxsize=None)
def _schema(kind: str) -> dict:
    return json.loads(schema_path(kind).read_text())


@lru_cache(maxsize=None)
def _validator(kind: str) -> jsonschema.Draft202012Validator:
    schema = _schema(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _errors(payload: dict) -> list[str]:
    return [f"{e.json_path}: {e.message}" for e in _validator(payload["kind"]).iter_errors(payload)]


def _resolve(schema: dict, node):
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
        node = _at(schema, node["$ref"][1:])
    return node


def _at(schema: dict, pointer: str):
    """The node at a JSON pointer (``/$defs/step/properties/kind``), following local ``$ref`` s on the way."""
    node = schema
    for part in pointer.strip("/").split("/"):
        node = _resolve(schema, node)
        node = node[int(part)] if isinstance(node, list) else node[part]
    return _resolve(schema, node)


def _enum(kind: str, pointer: str) -> list:
    node = _at(_schema(kind), pointer)
    return list(node["enum"]) if "enum" in node else [node["const"]]


def _property_enums(kind: str, name: str) -> list[tuple[str, list]]:
    """Every ``enum`` / ``const`` of a property called ``name`` anywhere in the schema: ``[(pointer, values)]``."""
    found: list[tuple[str, list]] = []

    def walk(node, path):
        if isinstance(node, dict):
            prop = node.get("properties", {}).get(name) if isinstance(node.get("properties"), dict) else None
            if isinstance(prop, dict) and ("enum" in prop or "const" in prop):
                found.append((f"{path}/properties/{name}", list(prop["enum"]) if "enum" in prop else [prop["const"]]))
            for key, value in node.items():
                walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}/{i}")

    walk(_schema(kind), "")
    return found


def _choices(command, option: str) -> tuple:
    return next(o.choices for o in command.options if o.name == option)


def _run(*argv: str) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main([*argv, "--format", "json"])
    return code, json.loads(out.getvalue())


SPREAD = {"name": "spread", "d": 3, "beta": 1, "mask": "causal",  # causal tokens outside the cap of x_1
          "heads": [{"P": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "U": "identity"}],
          "tokens": [["2/3", "2/3", "1/3"], [0, 1, 0], ["-3/5", 0, "4/5"]]}
LINE = {"name": "line", "d": 1, "beta": 1, "mask": "causal",  # 4.4-hemisphere in d = 1: no spectrum for the certificate
        "heads": [{"P": [[1]], "U": [[2]]}], "tokens": [[1], [1]]}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("drift")
    (d / "spread.json").write_text(json.dumps(SPREAD))
    (d / "line.json").write_text(json.dumps(LINE))
    return d


# ---------------------------------------------------------------- payloads that had drifted (fixed: schema or code)

@pytest.mark.parametrize("argv", [
    ("3.2", "--instance", "example:late_entry"),                    # full mask, tokens in no open hemisphere (ODE)
    ("4.2", "--instance", "{d}/spread.json", "--model", "layers"),   # causal, tokens outside the cap of x_1 (layers)
], ids=["3.2-ode-late_entry", "4.2-layers-spread"])
def test_depth_late_entry_by_the_enclosure_alone_validates(argv, files, tmp_path):
    """docs/depth.md: a late entry certified by the enclosure alone is ``holds`` with no closed-form ``bound``
    (nor ``rate`` / ``claim``), the window's ``T_high`` being the certified time.  The schema's
    ``allOf/0`` (holds => bound, rate and claim) rejects it, on stdout and in the saved report."""
    argv = [a.replace("{d}", str(files)) for a in argv]
    code, payload = _run("depth", *argv, "--no-simulate", "--save", str(tmp_path / "s"))
    assert code == 0 and payload["verdict"] == "holds" and payload["bound"] is None
    assert "late entry" in payload["explanation"] and payload["window"]["T_high"]
    assert _errors(payload) == []
    saved = json.loads(next((tmp_path / "s").glob("*__report.json")).read_text())
    assert _errors(saved) == []


def test_theorem_certified_rate_can_be_not_applicable():
    """``--certified-rate`` copies the verdict of ``verify depth``, which is ``not_applicable`` when a hypothesis
    fails (no_entry: an antipodal pair is in no open hemisphere); the schema allows holds / fails / unknown only."""
    code, payload = _run("theorem", "3.2", "--no-simulate", "--instance", "example:no_entry", "--certified-rate")
    assert code == 6 and payload["certified_rate"]["verdict"] == "not_applicable"
    assert _errors(payload) == []


def test_theorem_schema_certified_rate_verdicts_are_the_depth_verdicts():
    assert sorted(_enum("theorem", "/properties/certified_rate/properties/verdict"), key=str) == \
        sorted(_enum("depth", "/properties/verdict"), key=str)


def test_theorem_certificate_step_without_a_verdict_validates(files):
    """``4.4-hemisphere`` on a ``d = 1`` instance: no spectrum for the first-token certificate, so the plan emits
    the step ``first_token_alignment`` (kind certificate) with no verdict and the theorem is ``unknown``;
    the schema's ``$defs/step/allOf/1`` requires a verdict on every certificate / symbolic step."""
    code, payload = _run("theorem", "4.4-hemisphere", "--no-simulate", "--instance", str(files / "line.json"))
    assert code == 4 and payload["verdict"] == "unknown"
    assert _errors(payload) == []


# ---------------------------------------------------------------- payloads the contract tests do not reach (pass today)

def _synthetic_head_map():
    """A one-layer head map from five synthetic heads (``U = O^T V^T``), one per category the contraction route
    can name: consensus, complex, negative, not dominant, both sides."""
    from verify._fate.head_map import certify_heads

    D = 4
    e = np.eye(D)
    rot = np.zeros((D, 2))
    rot[0, 0] = rot[1, 1] = 1
    heads = [(2 * e[:, :1], e[:1, :]), (rot, np.array([[0, 1, 0, 0], [-1, 0, 0, 0]], float)), (-e[:, :1], e[:1, :]),
             (e[:, :2], e[:2, :]), (e[:, 1:2], 2 * e[1:2, :])]
    V = np.stack([np.pad(v, ((0, 0), (0, 2 - v.shape[1]))) for v, _ in heads])
    O = np.stack([np.pad(o, ((0, 2 - o.shape[0]), (0, 0))) for _, o in heads])
    tokens = np.array([[3, 1, 0, 0], [3, -1, 1, 0], [3, 0, -1, 1], [3, 1, 1, -1], [3, 0, 0, 1]], float)
    layer = types.SimpleNamespace(index=0, V=V, O=O, tokens=tokens)
    return certify_heads([layer], model="synthetic", mask="causal", tokens=[f"t{i}" for i in range(len(tokens))],
                         provenance={"prompt": "synthetic"})


def test_audit_fate_head_map_validates_through_the_cli(monkeypatch):
    """``verify audit MODEL --fate --format json`` (scope heads) with the model replaced by synthetic heads."""
    from verify._fate.head_map import CATEGORIES
    from verify.api import fate_heads

    record = _synthetic_head_map()
    monkeypatch.setattr(fate_heads, "audit_fate", lambda model, **kw: record)
    code, payload = _run("audit", "synthetic", "--fate")
    assert payload["kind"] == "fate" and payload["scope"] == "heads", payload
    assert _errors(payload) == []
    assert {h["category"] for h in payload["heads"]} == set(CATEGORIES) - {"no certificate"}
    assert list(payload["counts"]) == list(CATEGORIES) and payload["mask"] in _enum("fate", "/oneOf/1/properties/mask")
    assert (code, payload["verdict"]) == ((0, "holds") if payload["certified"] == payload["total"] else (4, "unknown"))


def test_a_head_map_with_no_certificate_heads_validates():
    from verify._fate.head_map import HeadFate, HeadFateMap

    heads = (HeadFate(0, 0, "consensus", "certified", 2, {}, 0.0), HeadFate(0, 1, "unknown", "some other reason", 3, {}, 0.0))
    record = HeadFateMap("m", "full", ("a", "b"), heads)
    body = {"verdict": "unknown", "scope": "heads", **record.to_json()}
    payload = Report("fate", body, record.render()).to_json()
    assert _errors(payload) == [] and payload["counts"]["no certificate"] == 1


UNCOVERED = {  # argv: commands and options no other contract test validates
    "examples": ["examples"],
    "examples_one": ["examples", "late_entry"],
    "docs": ["docs"],
    "docs_topic": ["docs", "fate"],
    "theorem_abs_evidence": ["theorem", "4.4-sym-later", "--t-end", "2"],
    "theorem_claim": ["theorem", "LN1", "--no-simulate"],
    "depth_unknown_layers": ["depth", "3.2", "--model", "layers", "--no-simulate", "--instance", "example:no_entry",
                             "--entry-budget", "5"],
    "simulate_abs_batch": ["simulate", "--preset", "piecewise-random-causal", "--t-end", "2", "--points", "4",
                           "--samples", "3", "--variant", "abs"],
    "simulate_step_too_small": ["simulate", "--t-end", "1e-300", "--points", "2"],
    "fate_unknown": ["fate", "--instance", "example:no_entry", "--t-max", "5"],
}


@pytest.mark.parametrize("name", sorted(UNCOVERED))
def test_uncovered_command_output_validates(name):
    code, payload = _run(*UNCOVERED[name])
    assert payload["kind"] == UNCOVERED[name][0], payload
    assert _errors(payload) == []


# ---------------------------------------------------------------- structural: each schema enum is the code's constant

def test_every_schema_names_its_kind_and_version_in_every_branch():
    for kind in KINDS:
        for pointer, values in _property_enums(kind, "schema_version"):
            assert values == [SCHEMA_VERSION], (kind, pointer)
        consts = _property_enums(kind, "kind")
        top = [v for p, v in consts if p in ("/properties/kind",) or re.fullmatch(r"/oneOf/\d+/properties/kind", p)]
        assert top and all(v == [kind] for v in top), (kind, consts)


@pytest.mark.parametrize("kind, expected", [
    ("list", ["ok"]), ("examples", ["ok"]), ("docs", ["ok"]), ("consensus", ["completed"]), ("reproduce", ["completed"]),
])
def test_status_consts(kind, expected):
    assert _enum(kind, "/properties/status") == expected


DECIDING = {  # kind: the verdicts its command can report
    "assumptions": {applicability(s) for s in Status} | {"fails"},  # fails: a refuted claim
    "theorem": {applicability(s) for s in Status} | {"fails"},
    "depth": {applicability(s) for s in Status} | {"fails"},
    "sos": set(STATUS), "lyapunov": set(STATUS),
    "recheck": {"holds", "certificate_invalid"},
    "audit": {applicability(s) for s in Status},  # weights are audited, never refuted
    "fate": {Status.HOLDS.value, Status.UNKNOWN.value},  # a certified fate, or unknown
}


@pytest.mark.parametrize("kind", sorted(DECIDING))
def test_top_level_verdicts_are_report_verdicts(kind):
    found = [(p, v) for p, v in _property_enums(kind, "verdict")
             if p == "/properties/verdict" or re.fullmatch(r"/oneOf/\d+/properties/verdict", p)]
    if not found:
        found = [("/properties/verdict", _enum(kind, "/properties/verdict"))]
    for pointer, values in found:
        assert set(values) <= set(VERDICTS), (kind, pointer)
        assert set(values) == DECIDING[kind], (kind, pointer)


@pytest.mark.parametrize("kind", ["assumptions", "depth", "lyapunov", "recheck", "sos", "theorem", "audit"])
def test_verdict_entries_are_the_three_statuses(kind):
    assert _enum(kind, "/$defs/verdict_entry/properties/verdict") == STATUS


def test_audit_statuses():
    assert _enum("audit", "/$defs/status") == STATUS
    assert _enum("audit", "/properties/hemisphere/items/properties/verdict") == STATUS
    assert set(_enum("audit", "/$defs/applicability")) == {applicability(s) for s in Status}


@pytest.mark.parametrize("kind", ["list", "assumptions", "theorem"])
def test_catalogue_kinds(kind):
    from theorems.catalogue.base import Kind

    assert _enum(kind, "/$defs/theorem/properties/kind") == list(typing.get_args(Kind))


@pytest.mark.parametrize("kind, pointer", [
    ("assumptions", "/$defs/instance/properties/mask"), ("depth", "/$defs/instance/properties/mask"),
    ("theorem", "/$defs/instance/properties/mask"), ("examples", "/$defs/example/properties/mask"),
    ("simulate", "/properties/mask"), ("fate", "/oneOf/1/properties/mask"),
])
def test_masks(kind, pointer):
    from numerics.presets import MASKS
    from theorems.system import Mask

    assert _enum(kind, pointer) == list(typing.get_args(Mask)) == list(MASKS)


def test_theorem_steps_and_obligations():
    from verify._theorem.report import StepKind

    assert _enum("theorem", "/$defs/step/properties/kind") == list(typing.get_args(StepKind))
    assert _enum("theorem", "/$defs/obligation/properties/verdict") == [*STATUS, None]
    assert _enum("theorem", "/properties/certified_rate/properties/verdict") != []


def test_evidence_variants():
    from theorems.catalogue.base import EvidenceVariant
    from verify.api.simulate import COMMAND

    variants = list(typing.get_args(EvidenceVariant))
    assert variants == list(VARIANTS) == list(_choices(COMMAND, "variant"))
    assert _enum("theorem", "/properties/numerical_evidence/properties/E_variant") == variants
    assert _enum("simulate", "/properties/E_variant") == variants
    assert _enum("simulate", "/properties/options/properties/variant") == variants


def test_simulate_statuses_backends_and_presets():
    from numerics.presets import PRESETS
    from numerics.trajectory import RunStatus
    from verify.api.simulate import COMMAND

    assert _enum("simulate", "/$defs/integrator/properties/status") == [s.value for s in RunStatus]
    assert _enum("simulate", "/properties/status") == ["completed"] + [s.value for s in RunStatus
                                                                       if s is not RunStatus.SUCCESS]
    assert _enum("simulate", "/properties/options/properties/backend") == list(_choices(COMMAND, "backend"))
    pattern = _at(_schema("simulate"), "/properties/source/oneOf/0/properties/name")["pattern"]
    assert [p for p in PRESETS if not re.fullmatch(pattern, p)] == []


def test_depth_theorems_and_models():
    from verify.api.depth import COMMAND

    assert _enum("depth", "/properties/theorem") == list(_choices(COMMAND, "theorem_id"))
    assert _enum("depth", "/properties/model") == list(_choices(COMMAND, "model"))
    assert len(_enum("depth", "/properties/bound_kind")) == len(_choices(COMMAND, "model"))


def test_consensus_weights_modes():
    from verify.api.consensus import COMMAND

    assert _enum("consensus", "/properties/options/properties/weights_mode") == list(_choices(COMMAND, "weights_mode"))


def test_reproduce_scales_claim_kinds_and_statuses():
    from verify._reproduce.records import ClaimKind, ClaimStatus
    from verify._reproduce.scale import SCALES

    statuses = [s.value for s in ClaimStatus]
    assert _enum("reproduce", "/properties/scale") == list(SCALES)
    assert _enum("reproduce", "/$defs/claim_kind") == [k.value for k in ClaimKind]
    assert _enum("reproduce", "/$defs/claim_status") == statuses
    counts = _at(_schema("reproduce"), "/$defs/counts")
    assert counts["required"] == statuses and list(counts["properties"]) == statuses


def test_fate_routes_fates_and_enclosures():
    from verify._fate.certificate_json import ENCLOSURE_NAMES, FATES, ROUTES
    from verify._fate.flow import ENCLOSURES
    from verify._fate.report import Fate

    routes = _property_enums("fate", "route")
    fates = _property_enums("fate", "fate")
    assert routes and all(v == [*ROUTES, None] for _, v in routes), routes
    assert fates and all(v == [f.value for f in Fate] for _, v in fates), fates
    assert set(FATES) == {f.value for f in Fate} - {Fate.UNKNOWN.value}
    assert tuple(ENCLOSURE_NAMES) == tuple(ENCLOSURES)
    assert [v for _, v in _property_enums("fate", "scope")] == [["heads"]]
