"""The instance format: round trips, schema agreement and a table of malformed files."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import sympy

from theorems import InvalidInput, load_system, system_from_dict, system_to_dict
from theorems.matrices import ConstantMatrix, LayerStack, SymbolicMatrix
from verify.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "theorems" / "attention_system.schema.json").read_text())
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def good() -> dict:
    return {
        "d": 2, "beta": 1, "mask": "full",
        "heads": [{"P": [[1, 0], [0, 1]], "U": "identity"}],
        "tokens": [[1, 0], ["3/5", "4/5"]],
    }


def test_examples_exist_validate_and_round_trip():
    assert len(EXAMPLES) >= 3
    for path in EXAMPLES:
        data = json.loads(path.read_text())
        jsonschema.validate(data, SCHEMA)
        system = load_system(path)
        again = system_from_dict(system_to_dict(system))
        assert again.N == system.N and again.d == system.d and again.mask == system.mask
        assert (again.tokens == system.tokens).all()
        for h1, h2 in zip(system.heads, again.heads):
            for t in (0.0, 0.7, 3.1):
                assert (h1.P.at(t) == h2.P.at(t)).all() and (h1.U.at(t) == h2.U.at(t)).all()


def test_kinds_and_exactness():
    s = load_system(ROOT / "examples" / "causal_two_heads.json")
    assert isinstance(s.heads[0].P, ConstantMatrix) and s.heads[0].P.exact is not None
    assert s.heads[0].P.exact[2, 0] == sympy.Rational(1, 4)
    stack = s.heads[1].P
    assert isinstance(stack, LayerStack) and stack.interpolation == "linear"
    assert stack.at(0.5)[1, 1] == pytest.approx(0.0, abs=1e-15)  # halfway between 1 and -1
    assert stack.at(2.0)[1, 1] == 1.0  # periodic: layer 2 is layer 0
    assert s.tokens_exact is not None and s.beta == sympy.Rational(1, 2)
    f = load_system(ROOT / "examples" / "float_tokens.json")
    assert f.tokens_exact is None and f.heads[0].U.exact is None
    assert abs((f.tokens ** 2).sum(axis=1) - 1).max() < 1e-15
    e = load_system(ROOT / "examples" / "hemisphere_full.json")
    assert isinstance(e.heads[0].P, SymbolicMatrix) and not e.heads[0].P.time_invariant


def test_non_unit_tokens_rejected_unless_normalized():
    data = good()
    data["tokens"] = [[1, 1], [0, 1]]
    with pytest.raises(InvalidInput, match=r"tokens\[0\].*unit vector.*normalize"):
        system_from_dict(data)
    data["normalize_tokens"] = True
    s = system_from_dict(data)
    assert s.tokens_exact is not None
    assert sympy.simplify(s.tokens_exact[0, 0] - 1 / sympy.sqrt(2)) == 0


# (description, mutation of the good instance, field the message must name)
MALFORMED = [
    ("not an object", lambda d: [1, 2], "top level"),
    ("missing d", lambda d: d.pop("d"), "d"),
    ("d not int", lambda d: d.update(d="two"), "d"),
    ("negative beta", lambda d: d.update(beta=-1), "beta"),
    ("beta depends on t", lambda d: d.update(beta="t"), "beta"),
    ("bad mask", lambda d: d.update(mask="sliding"), "mask"),
    ("unknown top key", lambda d: d.update(temprature=1), "temprature"),
    ("empty heads", lambda d: d.update(heads=[]), "heads"),
    ("head missing U", lambda d: d["heads"][0].pop("U"), "heads[0].U"),
    ("unknown head key", lambda d: d["heads"][0].update(V="identity"), "heads[0].V"),
    ("P wrong rows", lambda d: d["heads"][0].update(P=[[1, 0]]), "heads[0].P"),
    ("P wrong row length", lambda d: d["heads"][0].update(P=[[1, 0], [0]]), "heads[0].P[1]"),
    ("P non-finite", lambda d: d["heads"][0].update(P=[[1, 0], [0, "1/0"]]), "heads[0].P[1][1]"),
    ("P unparsable", lambda d: d["heads"][0].update(P=[[1, "sin(t"], [0, 1]]), "heads[0].P[0][1]"),
    ("P unknown symbol", lambda d: d["heads"][0].update(P=[[1, "x"], [0, 1]]), "heads[0].P[0][1]"),
    ("P forbidden function", lambda d: d["heads"][0].update(P=[[1, "gamma(t)"], [0, 1]]), "heads[0].P[0][1]"),
    ("P boolean entry", lambda d: d["heads"][0].update(P=[[True, 0], [0, 1]]), "heads[0].P[0][0]"),
    ("U unknown name", lambda d: d["heads"][0].update(U="eye"), "heads[0].U"),
    ("stack bad dt", lambda d: d["heads"][0].update(P={"kind": "stack", "layers": [[[1, 0], [0, 1]]], "dt": 0}), "heads[0].P.dt"),
    ("stack empty", lambda d: d["heads"][0].update(P={"kind": "stack", "layers": []}), "heads[0].P.layers"),
    ("stack layer with t", lambda d: d["heads"][0].update(P={"kind": "stack", "layers": [[["t", 0], [0, 1]]]}), "heads[0].P.layers[0]"),
    ("bad kind", lambda d: d["heads"][0].update(P={"kind": "sparse", "entries": []}), "heads[0].P.kind"),
    ("tokens wrong length", lambda d: d.update(tokens=[[1, 0, 0]]), "tokens[0]"),
    ("token not unit", lambda d: d.update(tokens=[[1, 0], ["1/2", "1/2"]]), "tokens[1]"),
    ("zero token", lambda d: d.update(tokens=[[0, 0]], normalize_tokens=True), "tokens[0]"),
    ("token depends on t", lambda d: d.update(tokens=[["sin(t)", 0]]), "tokens[0][0]"),
    ("N mismatch", lambda d: d.update(N=5), "N"),
    ("normalize not bool", lambda d: d.update(normalize_tokens="yes"), "normalize_tokens"),
    ("layer_norm wrong length", lambda d: d.update(layer_norm={"scale": [1, 1, 1]}), "layer_norm.scale"),
]


@pytest.mark.parametrize("label,mutate,field", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_instance_files_exit_2_naming_the_field(tmp_path, capsys, label, mutate, field):
    data = good()
    out = mutate(data)
    if isinstance(out, list):
        data = out
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    code = main(["assumptions", "4.2", "--instance", str(path)])
    captured = capsys.readouterr()
    assert code == 2, (label, captured)
    assert field in captured.err, (label, captured.err)
    assert "Traceback" not in captured.err and captured.out == ""


@pytest.mark.parametrize("content,needle", [
    ("{not json", "valid JSON"),
    (b"\xff\xfe\x00binary", "UTF-8"),
])
def test_unreadable_files_exit_2(tmp_path, capsys, content, needle):
    path = tmp_path / "bad.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["assumptions", "3.2", "--instance", str(path)]) == 2
    assert needle in capsys.readouterr().err


def test_missing_file_exit_2(tmp_path, capsys):
    assert main(["assumptions", "3.2", "--instance", str(tmp_path / "nope.json")]) == 2
    assert "readable JSON file" in capsys.readouterr().err


def test_schema_rejects_what_the_reader_rejects_structurally():
    for label, mutate, _ in MALFORMED:
        data = good()
        out = mutate(data)
        if isinstance(out, list):
            data = out
        if label in {"not an object", "missing d", "d not int", "bad mask", "unknown top key", "empty heads",
                     "head missing U", "unknown head key", "U unknown name", "stack empty", "bad kind",
                     "normalize not bool", "stack bad dt", "P boolean entry"}:
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate(data, SCHEMA)


def test_exact_unit_norm_is_proved_not_guessed():
    data = good()
    data["tokens"] = [[1, "2^(1/4)/10^10"]]  # |x|^2 = 1 + sqrt(2)/10^20: close to 1, not 1
    with pytest.raises(InvalidInput, match=r"tokens\[0\]"):
        system_from_dict(data)
    data["tokens"] = [[1, "1/10^10"]]
    data["normalize_tokens"] = True  # normalisation keeps the exact radicals, no closed-form guessing
    s = system_from_dict(data)
    assert sympy.simplify(sum(v ** 2 for v in s.tokens_exact.row(0)) - 1) == 0
    assert s.tokens_exact[0, 0] != 1


def test_layer_norm_scales_must_be_constants():
    data = good()
    data["layer_norm"] = {"scale": ["t", 1]}
    with pytest.raises(InvalidInput, match=r"layer_norm.scale\[0\]"):
        system_from_dict(data)
