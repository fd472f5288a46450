"""The report record and the JSON contract's envelope (verify/report.py), and the callable packages."""
from __future__ import annotations

import copy
import json
import pickle

import jsonschema
import pytest

from theorems.errors import InvalidInput, UnknownName
from verify.report import KINDS, SCHEMA_VERSION, Report, envelope, error_payload, schema_path


def _report() -> Report:
    return Report("simulate", {"status": "completed", "final": {"E_pair": 1e-3}, "steps": [1, 2]}, "text", 0)


def test_payload_is_frozen_all_the_way_down() -> None:
    r = _report()
    for mutate in (lambda: r.payload.__setitem__("status", "x"), lambda: r.payload["final"].update(E_pair=0),
                   lambda: r.payload["steps"].append(3), lambda: r.payload["steps"].__setitem__(0, 9)):
        with pytest.raises(TypeError, match="read-only"):
            mutate()
    with pytest.raises(AttributeError):
        r.kind = "theorem"  # frozen dataclass
    assert r.payload["steps"] == [1, 2] and r.payload["final"] == {"E_pair": 1e-3}


def test_to_json_is_a_plain_copy_and_serialises() -> None:
    r = _report()
    j = r.to_json()
    j["final"]["E_pair"] = 5
    j["steps"].append(3)
    assert r.payload["final"]["E_pair"] == 1e-3 and r.payload["steps"] == [1, 2]
    assert type(j) is dict and type(j["steps"]) is list
    assert json.loads(json.dumps(r.payload)) == json.loads(r.dumps()) == r.to_json()
    assert pickle.loads(pickle.dumps(r.payload)) == r.to_json() and type(copy.deepcopy(r.payload)) is dict


def test_envelope_puts_the_header_first_and_needs_a_verdict_or_status() -> None:
    out = envelope("theorem", {"verdict": "holds", "schema_version": "0", "kind": "x"})
    assert list(out)[:3] == ["schema_version", "kind", "verdict"] and out["schema_version"] == SCHEMA_VERSION
    assert out["kind"] == "theorem"
    with pytest.raises(ValueError, match="verdict"):
        envelope("theorem", {"steps": []})
    with pytest.raises(ValueError, match="not one of"):
        envelope("theorem", {"verdict": "true"})
    with pytest.raises(ValueError, match="unknown report kind"):
        envelope("plot", {"status": "ok"})


def test_verdict_and_status() -> None:
    assert _report().verdict is None and _report().status == "completed"
    r = Report("theorem", {"verdict": "fails"}, "verdict: fails", 3)
    assert r.verdict == r.status == "fails" and "fails" in r._repr_html_() and "fails" in r._repr_markdown_()


def test_markup_is_escaped_in_the_html_display() -> None:
    r = Report("sos", {"verdict": "unknown"}, "<script>alert(1)</script>", 4)
    assert "<script>" not in r._repr_html_() and "&lt;script&gt;" in r._repr_html_()


def test_every_kind_has_a_published_schema() -> None:
    for kind in KINDS:
        schema = json.loads(schema_path(kind).read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["properties"]["kind"]["const"] == kind


def test_error_payload_names_field_expected_and_got() -> None:
    schema = json.loads(schema_path("error").read_text())
    e = error_payload(InvalidInput("--t-end", "a number <= 5000", 1e9, "use a smaller horizon"))
    jsonschema.validate(e, schema)
    assert e["error"]["field"] == "--t-end" and e["error"]["got"] == 1e9 and e["error"]["hint"]
    u = error_payload(UnknownName("preset", "constnt-identity-full", ["constant-identity-full"]))
    jsonschema.validate(u, schema)
    assert u["error"]["got"] == "constnt-identity-full" and "constant-identity-full" in u["error"]["expected"]


def test_api_calls_are_plain_functions_with_signatures() -> None:
    import inspect
    import pickle
    import types

    import verify
    import verify._sos.engine  # noqa: F401  (the implementation package is private; the public name stays the call)

    for call, first in ((verify.theorem, "theorem_id"), (verify.sos, "polynomial"), (verify.depth, "theorem_id")):
        assert isinstance(call, types.FunctionType)
        params = inspect.signature(call).parameters
        assert list(params)[0] == first and "force" in params and not any(
            p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params.values())
        assert pickle.loads(pickle.dumps(call)) is call
    assert verify._sos.prove_nonnegative.__name__ == "prove_nonnegative"
    assert verify.sos("x^2 + 1").verdict == "holds"
    with pytest.raises(ModuleNotFoundError):
        import verify._callable  # noqa: F401
    with pytest.raises(AttributeError):
        verify.no_such_call  # noqa: B018
