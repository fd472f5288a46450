"""Adversarial review (session 36) of the fate-map observation, the random-init fate map, the Coq export of an
enclosure step, the relaxed depth schema and the 4.4-hemisphere unknown steps.

Each test pins behaviour checked by hand.  Five of them reproduced defects of the first version (a
one-dimensional reduction crashing the contraction route, NaN in a failed observation's JSON, tiny tokens
losing the whole map, a depth holds with a null certified time accepted by the schema, and a Coq file
passing off its own ``Module Uint63`` axiom as a primitive-integer axiom); they pass since the fixes."""
from __future__ import annotations

import json
import shutil
import types
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from verify._fate.head_map import certify_heads
from verify.report import schema_path

ROOT = Path(__file__).resolve().parents[2]


def _layer(beta, scale_uv=1.0, tokens=None, seed=0):
    rng = np.random.default_rng(seed)
    D, dh, N, H = 4, 2, 5, 2
    X = rng.standard_normal((N, D)) if tokens is None else tokens
    return types.SimpleNamespace(index=0, V=scale_uv * rng.standard_normal((H, D, dh)),
                                 O=scale_uv * rng.standard_normal((H, dh, D)), A=rng.standard_normal((H, D, dh)),
                                 B=rng.standard_normal((H, D, dh)), tokens=X, beta=beta)


def _maps(layer, mask="full"):
    names = [f"t{i}" for i in range(len(layer.tokens))]
    return (certify_heads([layer], mask=mask, tokens=names),
            certify_heads([layer], mask=mask, tokens=names, observe=True))


@pytest.mark.parametrize("beta, scale, mask", [(float("inf"), 1.0, "full"), (float("nan"), 1.0, "causal"),
                                               (1.0, 1e150, "full"), (1e-300, 1.0, "causal"), (-5.0, 1.0, "full")])
def test_an_extreme_float_run_never_changes_a_fate_and_is_never_a_proof(beta, scale, mask):
    plain, seen = _maps(_layer(beta, scale), mask)
    assert [(h.fate, h.reason, h.m) for h in plain.heads] == [(h.fate, h.reason, h.m) for h in seen.heads]
    assert (plain.certified, plain.counts()) == (seen.certified, seen.counts())
    assert all(h.observed is not None and h.observed.to_json()["proof"] is False for h in seen.heads)
    assert all(h.observed.outcome in ("one cluster", "clusters", "moving", "failed") for h in seen.heads)


def test_one_token_is_observed_as_one_cluster_and_keeps_its_fate():
    one = _layer(1.0, tokens=np.random.default_rng(1).standard_normal((1, 4)))
    for mask in ("full", "causal"):
        plain, seen = _maps(one, mask)
        assert [h.fate for h in plain.heads] == [h.fate for h in seen.heads]
        assert {h.observed.outcome for h in seen.heads} == {"one cluster"}


def test_a_one_dimensional_reduction_gives_a_fate():
    from verify._fate.head_map import certify_head

    V, O = np.zeros((3, 2)), np.zeros((2, 3))
    V[0, 0] = O[0, 0] = 1.0
    fate, _ = certify_head(V, O, np.array([[1.0, 0, 0], [2.0, 0, 0], [0.5, 0, 0]]))
    assert fate.fate in ("consensus", "unknown")


def test_a_failed_observation_serialises_as_strict_json():
    _, seen = _maps(_layer(float("inf")))
    assert {h.observed.outcome for h in seen.heads} == {"failed"}
    json.dumps(seen.to_json(), allow_nan=False)


def test_tiny_tokens_still_give_a_map():
    layer = _layer(1.0, tokens=np.random.default_rng(0).standard_normal((5, 4)) * 1e-300)
    plain, seen = _maps(layer)
    assert [h.fate for h in plain.heads] == [h.fate for h in seen.heads]


def _depth_schema():
    return json.loads(schema_path("depth").read_text())


def _late_depth_payload():
    import verify

    return verify.depth("3.2", instance=str(ROOT / "examples" / "late_entry.json")).to_json()


def test_relaxed_depth_schema_still_refuses_a_holds_without_bound_or_window():
    schema, late = _depth_schema(), _late_depth_payload()
    assert late["verdict"] == "holds" and late["bound"] is None and "T_high" in late["window"]
    jsonschema.validate(late, schema)
    for broken in ({k: v for k, v in late.items() if k != "window"}, {**late, "window": {"T_low": "1"}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


def test_relaxed_depth_schema_refuses_a_holds_whose_certified_time_is_null():
    late = _late_depth_payload()
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**late, "window": {**late["window"], "T_high": None}}, _depth_schema())


def test_4_4_hemisphere_without_a_spectrum_is_unknown_never_holds(tmp_path):
    import verify

    instance = tmp_path / "d1.json"
    instance.write_text(json.dumps({"d": 1, "beta": 1, "mask": "causal", "heads": [{"P": "identity", "U": [[2]]}],
                                    "tokens": [[1], [1]]}))
    report = verify.theorem("4.4-hemisphere", instance=str(instance))
    step = next(s for s in report.to_json()["steps"] if s["id"] == "first_token_alignment")
    assert step["kind"] == "certificate" and step["verdict"]["verdict"] == "unknown"
    assert report.verdict == "unknown" and report.exit_code == 4
    jsonschema.validate(report.to_json(), json.loads(schema_path("theorem").read_text()))


@pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc is not installed")
def test_recheck_coq_refuses_an_undeclared_axiom_in_a_module_named_like_the_primitive_integers(tmp_path):
    from verify.coq import check_coq

    (tmp_path / "theorem_3_2.v").write_text(
        "(* DECLARED-AXIOMS: *)\n(* FINAL-THEOREM: theorem_3_2_proof *)\n"
        "Module Uint63. Axiom cheat : False. End Uint63.\n"
        "Theorem theorem_3_2_proof : 0 = 1.\nProof. destruct Uint63.cheat. Qed.\n")
    assert not check_coq(tmp_path).accepted


@pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc is not installed")
@pytest.mark.parametrize("module, name", [("Classical_Prop", "classic"), ("PrimInt63", "cheat"),
                                          ("FunctionalExtensionality", "functional_extensionality_dep")])
def test_recheck_coq_refuses_a_file_module_named_like_any_allowed_library_module(tmp_path, module, name):
    """The same trick with every kind of allowed name: a standard-library axiom's exact printed name
    (``Classical_Prop.classic`` in a file that does not load the real one) or a primitive-integer prefix."""
    from verify.coq import check_coq

    (tmp_path / "theorem_3_2.v").write_text(
        "(* DECLARED-AXIOMS: *)\n(* FINAL-THEOREM: theorem_3_2_proof *)\n"
        f"Module {module}. Axiom {name} : False. End {module}.\n"
        f"Theorem theorem_3_2_proof : False.\nProof. exact {module}.{name}. Qed.\n")
    result = check_coq(tmp_path).files[0]
    assert result.verdict == "rejected" and f"{module}.{name}" in result.undeclared
