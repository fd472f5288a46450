"""The Python API of the proof-side commands (``verify.theorem``, ``verify.sos``, ...): each call returns
the frozen :class:`verify.report.Report` the CLI renders, raises the project's errors on bad input
and never prints."""
from __future__ import annotations

import copy
import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import pytest

import verify
from theorems.errors import InvalidInput, UnknownName
from verify.report import Report

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
QUARTIC = "2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4"
MOTZKIN = "x^4*y^2 + x^2*y^4 - 3*x^2*y^2 + 1"


def causal(P="identity", beta=1):
    """A small exact causal instance (JSON-like dict) with head P."""
    return {"name": "api-test", "d": 2, "beta": beta, "mask": "causal", "heads": [{"P": P, "U": "identity"}],
            "tokens": [[1, 0], ["3/5", "4/5"]]}


@pytest.fixture(scope="module")
def th42():
    return verify.theorem("4.2", simulate=False)


@pytest.fixture(scope="module")
def quartic():
    return verify.sos(QUARTIC)


@pytest.fixture(scope="module")
def depth42():
    return verify.depth("4.2", simulate=False)


def test_theorem_holds_on_its_example(th42):
    from verify._theorem.report import TheoremReport

    assert isinstance(th42, Report) and th42.kind == "theorem"
    assert th42.verdict == "holds" and th42.exit_code == 0 and th42.files == ()
    assert isinstance(th42.record, TheoremReport) and th42.record.status.value == "holds"
    assert th42.payload["schema_version"] == "1" and th42.payload["kind"] == "theorem"
    assert th42.payload["numerical_evidence"] is None  # simulate=False
    assert th42.text.startswith("Theorem 4.2: Consensus under causal attention\n")
    assert "\nverdict: holds - every hypothesis holds" in th42.text


def test_instance_as_path_dict_or_system_gives_the_same_report():
    from theorems.system_json import load_system

    path = EXAMPLES / "hemisphere_full.json"
    reports = [verify.theorem("4.2", instance=form, simulate=False)
               for form in (str(path), path, json.loads(path.read_text()), load_system(path))]
    assert {r.verdict for r in reports} == {"not_applicable"} and {r.exit_code for r in reports} == {6}
    assert len({json.dumps(r.payload["hypotheses"]) for r in reports}) == 1
    failing = [h["name"] for h in reports[0].payload["hypotheses"] if h["verdict"] == "fails"]
    assert failing == ["mask_causal"] and reports[0].payload["steps"] == []


def test_theorem_unknown_when_the_weight_bound_is_useless():
    r = verify.theorem("4.2", instance=causal(beta=10000), simulate=False)
    assert r.verdict == "unknown" and r.exit_code == 4
    assert "weights" in r.payload["explanation"]


def test_bad_input_raises_and_prints_nothing(capsys):
    with pytest.raises(UnknownName, match="unknown theorem id '9.9'"):
        verify.theorem("9.9")
    with pytest.raises(InvalidInput) as exc:
        verify.theorem("4.2", instance=42)
    assert exc.value.field == "instance" and exc.value.got == "int"
    with pytest.raises(InvalidInput, match="^t_end: ") as exc:  # the API names the keyword, the CLI the flag
        verify.theorem("4.2", t_end=-1.0)
    assert exc.value.field == "t_end"
    with pytest.raises(InvalidInput, match="^t_end: ") as exc:
        verify.theorem("4.2", t_end="20")
    assert exc.value.field == "t_end"
    with pytest.raises(InvalidInput) as exc:
        verify.assumptions("4.2", instance=EXAMPLES / "does_not_exist.json")
    assert exc.value.field == "--instance"
    assert capsys.readouterr() == ("", "")


def test_theorem_save_writes_report_with_header_and_unchanged_certificates(tmp_path):
    r = verify.theorem("4.2", simulate=False, save=tmp_path)
    names = sorted(Path(f).name for f in r.files)
    assert names == sorted(p.name for p in tmp_path.iterdir()) and "4_2__report.json" in names
    saved = json.loads((tmp_path / "4_2__report.json").read_text())
    assert saved == r.to_json() and list(saved)[:2] == ["schema_version", "kind"]
    certs = [tmp_path / n for n in names if n != "4_2__report.json"]
    assert len(certs) == len(r.record.certificates) >= 1
    for path in certs:
        data = json.loads(path.read_text())
        assert "schema_version" not in data and data["format"].startswith("consensus-verify/")
        assert verify.recheck(path).verdict == "holds"
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(InvalidInput, match="--force"):
        verify.theorem("4.2", simulate=False, save=tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # refused before any work
    assert verify.theorem("4.2", simulate=False, save=tmp_path, force=True).verdict == "holds"


def test_assumptions_hold_on_the_full_attention_example():
    from theorems.catalogue.base import HypothesisReport

    r = verify.assumptions("3.2", instance=EXAMPLES / "hemisphere_full.json")
    assert r.kind == "assumptions" and r.verdict == "holds" and r.exit_code == 0
    assert isinstance(r.record, HypothesisReport)
    assert r.payload["hypotheses"] and all(h["verdict"] == "holds" for h in r.payload["hypotheses"])
    assert r.text.splitlines()[-1].startswith("verdict: holds (")


def test_assumptions_fail_with_their_witness():
    r = verify.assumptions("4.2", instance=str(EXAMPLES / "hemisphere_full.json"))
    assert r.verdict == "not_applicable" and r.exit_code == 6  # a hypothesis fails: 4.2 does not apply
    entry = next(h for h in r.payload["hypotheses"] if h["verdict"] == "fails")
    assert entry["name"] == "mask_causal" and entry["witness"]["mask"] == "full"
    assert [v.name for v in r.record.failing] == ["mask_causal"]
    assert "[FAILS  ] mask_causal:" in r.text


def test_assumptions_unknown_when_a_bound_is_not_proved():
    r = verify.assumptions("4.2", instance=causal(P=[["t*sin(t)", 0], [0, 1]]))
    assert r.verdict == "unknown" and r.exit_code == 4
    assert {h["name"]: h["verdict"] for h in r.payload["hypotheses"]}["P_bounded"] == "unknown"


def test_float_token_off_the_sphere_shows_its_norm_and_the_real_option():
    inst = causal() | {"tokens": [[1.0000000002, 0.0], [0.6, 0.8]]}
    with pytest.raises(InvalidInput) as exc:
        verify.assumptions("4.2", instance=inst)
    message = str(exc.value)
    assert exc.value.field == "tokens[0]" and exc.value.got == "norm 1.0000000002"
    assert '"normalize_tokens": true' in message and "--normalize" not in message
    assert verify.assumptions("4.2", instance=inst | {"normalize_tokens": True}).verdict == "holds"


def test_sos_certifies_a_known_sos_polynomial(quartic):
    from verify._sos.result import SOSResult

    assert quartic.kind == "sos" and quartic.verdict == "holds" and quartic.exit_code == 0
    assert isinstance(quartic.record, SOSResult) and quartic.record.certificate.recheck().holds
    assert quartic.payload["claim"] == "2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4 >= 0 for all real x, y"
    assert quartic.payload["certificate"]["kind"] == "nonnegativity"
    assert quartic.text.splitlines()[0] == "sos: HOLDS"


def test_sos_motzkin_is_unknown_never_holds():
    r = verify.sos(MOTZKIN)
    assert r.verdict == "unknown" and r.exit_code == 4
    assert r.record.certificate is None and r.payload["certificate"] is None


def test_sos_refutation_is_a_rational_point_where_p_is_negative():
    box = ["x >= 0", "y >= 0", "x <= 1", "y <= 1"]
    r = verify.sos("x*y - 1", on=box)
    assert r.verdict == "fails" and r.exit_code == 3
    point = {k: Fraction(v) for k, v in r.payload["result"]["witness"]["point"].items()}
    assert all(0 <= v <= 1 for v in point.values()) and point["x"] * point["y"] - 1 < 0  # checked here, exactly
    assert verify.sos("x*y - 1", on=", ".join(box)).payload["result"] == r.payload["result"]


def test_sos_bad_options_raise():
    for kwargs, field in [({"products": 1}, "products"), ({"degree": 2.5}, "degree"), ({"solver": "mosek"}, "solver"),
                          ({"on": [1]}, "on")]:  # the API names the keyword, the CLI the flag
        with pytest.raises(InvalidInput, match=f"^{field}: ") as exc:
            verify.sos("x^2", **kwargs)
        assert exc.value.field == field


def test_lyapunov_certifies_and_reports_a_moving_origin(tmp_path):
    from verify._sos.result import LyapunovResult

    path = tmp_path / "lyap.json"
    r = verify.lyapunov("-x + y^2, -y", vars="x,y", degree=4, save=path)
    assert r.kind == "lyapunov" and r.verdict == "holds" and r.exit_code == 0
    assert isinstance(r.record, LyapunovResult) and r.files == (str(path),)
    assert f"certificate saved to {path}" in r.text
    assert verify.recheck(path).verdict == "holds"
    moving = verify.lyapunov(["1 - x", "-y"], vars=["x", "y"])
    assert moving.verdict == "fails" and moving.exit_code == 3
    assert moving.payload["result"]["witness"]["f(0)"] == {"x": "1"}
    with pytest.raises(InvalidInput, match="^field: ") as exc:
        verify.lyapunov("y", vars="x,y")
    assert exc.value.field == "field"


def test_recheck_of_a_saved_and_of_a_tampered_certificate(tmp_path, quartic):
    path = tmp_path / "q.json"
    saved = verify.sos(QUARTIC, save=str(path))
    assert saved.files == (str(path),) and saved.payload["saved"] == str(path)
    r = verify.recheck(path)
    assert r.kind == "recheck" and r.verdict == "holds" and r.exit_code == 0 and r.payload["file"] == str(path)
    assert r.record.verdict.holds and "note" not in r.payload
    assert verify.recheck(json.loads(path.read_text())).verdict == "holds"
    assert verify.recheck(quartic.record.certificate).verdict == "holds"  # re-read from its JSON
    data = json.loads(path.read_text())
    data["polynomial"][0][1] = str(Fraction(data["polynomial"][0][1]) + 1)  # one coefficient off
    bad = verify.recheck(data)
    assert bad.verdict == "certificate_invalid" and bad.exit_code == 5 and bad.payload["file"] is None
    assert bad.record.verdict.status.value == "fails" and "not a refutation" in bad.payload["note"]
    assert bad.text.startswith("recheck: CERTIFICATE INVALID")
    with pytest.raises(InvalidInput, match="certificate"):
        verify.recheck({"kind": "nonnegativity"})
    with pytest.raises(InvalidInput):
        verify.recheck(3.5)


def test_depth_certifies_time_and_layers(depth42):
    from verify._depth.certify import DepthReport

    assert depth42.kind == "depth" and depth42.verdict == "holds" and depth42.exit_code == 0
    assert isinstance(depth42.record, DepthReport)
    assert Fraction(depth42.payload["bound"]) > 0 and Fraction(depth42.payload["rate"]) > 0
    assert depth42.payload["observed"] is None  # simulate=False
    layers = verify.depth("4.2", model="layers", simulate=False)
    assert layers.verdict == "holds" and isinstance(layers.payload["bound"], int)
    assert layers.payload["tau"] == "1" and layers.payload["tau_default"] is True
    off = verify.depth("4.2", instance=EXAMPLES / "hemisphere_full.json", simulate=False)
    assert off.verdict == "not_applicable" and off.exit_code == 6 and off.payload["bound"] is None
    for kwargs, field in [({"theorem_id": "4.4-sym"}, "theorem_id"), ({"theorem_id": "4.2", "tau": "1/2"}, "tau"),
                          ({"theorem_id": "4.2", "eps": "2"}, "eps"), ({"theorem_id": "4.2", "entry_budget": -1},
                                                                      "entry_budget")]:
        with pytest.raises(InvalidInput) as exc:
            verify.depth(**kwargs)
        assert exc.value.field == field


def test_depth_save_and_recheck(tmp_path):
    r = verify.depth("4.2", simulate=False, save=tmp_path)
    assert sorted(Path(f).name for f in r.files) == ["4_2__depth_ode.json", "4_2__depth_ode__report.json",
                                                    "4_2__depth_ode__window.json"]
    assert json.loads((tmp_path / "4_2__depth_ode__report.json").read_text()) == r.to_json()
    assert verify.recheck(tmp_path / "4_2__depth_ode.json").verdict == "holds"
    window = verify.recheck(tmp_path / "4_2__depth_ode__window.json")
    assert window.verdict == "holds" and r.to_json()["window"]["T_high"] in window.payload["claim"]
    assert verify.depth("4.2", simulate=False, window=False).record.window_certificate is None


def test_list_results():
    r = verify.list_results()
    assert r.kind == "list" and r.status == "ok" and r.verdict is None and r.exit_code == 0
    ids = [t["id"] for t in r.payload["theorems"]]
    assert "4.2" in ids and ids == [th.id for th in r.record]
    assert r.text.splitlines()[-1].startswith("verify assumptions ID")


def test_reports_are_frozen_and_to_json_is_a_copy(th42):
    with pytest.raises(dataclasses.FrozenInstanceError):
        th42.text = "changed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        th42.exit_code = 3
    before = copy.deepcopy(th42.to_json())
    out = th42.to_json()
    out["verdict"] = "fails"
    out["hypotheses"][0]["verdict"] = "fails"
    out["theorem"]["id"] = "9.9"
    assert th42.to_json() == before and th42.verdict == "holds"


def test_notebook_display_shows_the_verdict(th42, quartic):
    for r, verdict in ((th42, "holds"), (quartic, "holds"), (verify.sos(MOTZKIN), "unknown")):
        assert f"`{verdict}`" in r._repr_markdown_()
        assert f">{verdict}</span>" in r._repr_html_()
        assert r.text in r._repr_markdown_()


def test_implementation_packages_are_private(quartic, depth42, th42):
    """``verify.sos`` / ``verify.depth`` / ``verify.theorem`` are the calls; their packages are ``verify._sos`` etc."""
    import importlib
    import types

    from verify._sos.prove import prove_nonnegative

    assert isinstance(verify.sos, types.FunctionType) and verify._sos.__name__ == "verify._sos"
    assert verify._sos.prove_nonnegative is prove_nonnegative
    assert verify._sos.prove_nonnegative("x^2 + 1", ["x"]).status.value == "holds"
    assert verify._depth.certify_depth.__name__ == "certify_depth"
    assert importlib.import_module("verify._theorem.check").check_theorem is verify._theorem.check.check_theorem
    assert verify.sos("x^2 + 1").verdict == "holds"
