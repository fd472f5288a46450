"""`verify theorem 4.4-sym-later / 4.4-same-sign --save DIR`: exit 3 with the equilibrium certificate,
which `verify recheck` accepts (exit 0) and rejects once tampered (non-zero)."""
from __future__ import annotations

import json

import pytest

from eq_helpers import CASES, ROOT
from verify.cli.main import main


@pytest.mark.parametrize("theorem_id", sorted(CASES))
def test_theorem_save_refutes_and_rechecks(tmp_path, capsys, theorem_id):
    instance = str(ROOT / CASES[theorem_id][0])
    code = main(["theorem", theorem_id, "--instance", instance, "--save", str(tmp_path), "--t-end", "5"])
    text = capsys.readouterr().out
    assert code == 3
    assert "verdict: fails - the conclusion is refuted" in text
    what = "off span(v)" if theorem_id == "4.4-sym-later" else "with two tokens at different points"
    assert f"certified asymptotically stable equilibrium {what}" in text
    assert "box width <=" in text and "Re lambda <=" in text and "Lyapunov" in text and "Krawczyk" in text
    saved = tmp_path / f"{theorem_id.replace('.', '_')}__counterexample.json"
    data = json.loads(saved.read_text())
    assert data["kind"] == "equilibrium" and data["refutes"] == CASES[theorem_id][1]
    assert main(["recheck", str(saved)]) == 0
    assert "recheck: HOLDS" in capsys.readouterr().out
    data["box"]["mid"][0] = "1/7"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    assert main(["recheck", str(tampered)]) not in (0, 1)
    data["box"]["mid"][0] = 0.5
    tampered.write_text(json.dumps(data))
    assert main(["recheck", str(tampered)]) == 2


@pytest.mark.parametrize("theorem_id", sorted(CASES))
def test_theorem_json_report(capsys, theorem_id):
    code = main(["theorem", theorem_id, "--instance", str(ROOT / CASES[theorem_id][0]), "--no-simulate",
                 "--format", "json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 3 and payload["verdict"] == "fails"
    (step,) = payload["steps"]
    assert step["kind"] == "certificate" and step["verdict"]["verdict"] == "fails"
    assert step["certificate"]["kind"] == "equilibrium"


def test_no_counterexample_exits_4(tmp_path, capsys):
    """4.4-sym's built-in example: every token ends at +-e1, nothing to certify: unknown, never holds."""
    instance = {"name": "aligned", "d": 3, "beta": 1, "mask": "causal",
                "heads": [{"P": [[1, "1/2", 0], [0, "1/2", "-1/3"], ["1/4", 0, 1]], "U": [[1, 0, 0], [0, "-1/2", 0], [0, 0, -2]]}],
                "tokens": [["2/3", "2/3", "1/3"], [0, 1, 0], ["-3/5", 0, "4/5"], ["2/7", "-3/7", "6/7"], ["-2/3", "1/3", "-2/3"]]}
    path = tmp_path / "aligned.json"
    path.write_text(json.dumps(instance))
    code = main(["theorem", "4.4-sym-later", "--instance", str(path), "--no-simulate", "--save", str(tmp_path / "out")])
    text = capsys.readouterr().out
    assert code == 4 and "verdict: unknown" in text and "no counterexample found" in text
    assert not list((tmp_path / "out").glob("*counterexample*.json"))
