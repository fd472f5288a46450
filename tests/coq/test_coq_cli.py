"""The CLI of the Coq export: ``verify theorem ID --export-coq DIR`` and ``verify recheck --coq PATH``.

The exported file is accepted by the kernel (exit 0); a tampered file (a Gram pivot made negative)
is rejected (exit 5, ``certificate_invalid``); a result that does not hold exports nothing; bad paths
are input errors (exit 2) and nothing is written."""
from __future__ import annotations

import json
import re

import jsonschema

from verify.cli.main import main
from verify.report import schema_path


def _run(capsys, argv):
    code = main(argv)
    return code, capsys.readouterr()


def test_export_then_recheck_accepts_and_a_tampered_file_is_rejected(tmp_path, capsys, coqc):
    out = tmp_path / "coq"
    code, io = _run(capsys, ["theorem", "4.2", "--no-simulate", "--export-coq", str(out), "--format", "json"])
    assert code == 0
    payload = json.loads(io.out)
    jsonschema.validate(payload, json.loads(schema_path("theorem").read_text()))
    export = payload["coq_export"]
    assert export["file"].endswith("theorem_4_2.v") and export["axioms"]
    assert all(a.startswith("cited_") for a in export["axioms"])
    code, io = _run(capsys, ["recheck", "--coq", str(out), "--format", "json"])
    checked = json.loads(io.out)
    jsonschema.validate(checked, json.loads(schema_path("recheck").read_text()))
    assert code == 0 and checked["verdict"] == "holds" and checked["coq"]["accepted"]
    source = (out / "theorem_4_2.v").read_text()
    # a Gram pivot D_k of the token-i ISS certificate made negative: the identity then fails in the kernel
    tampered, n = re.subn(r"\(\(1 / 2\) \* Rsqr \(1 \* \(v_a_i\)", "((- 1 / 2) * Rsqr (1 * (v_a_i)", source, count=1)
    assert n == 1
    (out / "theorem_4_2.v").write_text(tampered)
    code, io = _run(capsys, ["recheck", "--coq", str(out)])
    assert code == 5 and "REJECTED" in io.out


def test_a_result_that_does_not_hold_exports_nothing(tmp_path, capsys):
    inst = tmp_path / "inst.json"
    inst.write_text(json.dumps({"d": 3, "beta": 1, "mask": "full", "heads": [{"P": "identity", "U": "identity"}],
                                "tokens": [["2/3", "2/3", "1/3"], ["-2/3", "-2/3", "-1/3"]]}))
    out = tmp_path / "coq"
    code, io = _run(capsys, ["theorem", "3.2", "--instance", str(inst), "--no-simulate", "--export-coq", str(out)])
    assert code == 6 and "coq: nothing exported" in io.out
    assert not any(out.glob("*.v"))


def test_bad_paths_are_input_errors(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, io = _run(capsys, ["theorem", "4.2", "--no-simulate", "--export-coq", str(blocker)])
    assert code == 2 and "--export-coq" in io.err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, io = _run(capsys, ["recheck", "--coq", str(empty)])
    assert code == 2
