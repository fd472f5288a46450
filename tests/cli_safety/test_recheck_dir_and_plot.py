"""``verify recheck DIR`` re-checks every certificate a ``--save`` wrote; the saved report is accepted too."""
from __future__ import annotations

import json
import shutil

import pytest

from verify.cli.main import main


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    out = tmp_path_factory.mktemp("save") / "run"
    assert main(["theorem", "4.2", "--no-simulate", "--save", str(out)]) == 0
    return out


def _json(capsys, *argv):
    code = main(["recheck", *argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_directory_rechecks_every_certificate_and_lists_the_report(saved, capsys):
    code, doc = _json(capsys, str(saved))
    certs = sorted(p.name for p in saved.glob("*.json") if not p.name.endswith("__report.json"))
    assert code == 0 and doc["verdict"] == "holds" and len(certs) == 4
    assert sorted(c["file"].rsplit("/", 1)[-1] for c in doc["certificates"]) == certs
    assert all(c["result"]["verdict"] == "holds" for c in doc["certificates"])
    assert [r.rsplit("/", 1)[-1] for r in doc["reports"]] == ["4_2__report.json"]


def test_the_saved_report_rechecks_its_embedded_certificates(saved, capsys):
    code, doc = _json(capsys, str(saved / "4_2__report.json"))
    assert code == 0 and doc["verdict"] == "holds" and len(doc["certificates"]) >= 1


def test_one_tampered_certificate_makes_the_directory_invalid(saved, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(saved, copy)
    target = copy / "4_2__token2_decrease.json"
    data = json.loads(target.read_text())
    data["sos_terms"][0]["gram"] = [["2"]]  # the identity no longer holds: the certificate proves nothing
    target.write_text(json.dumps(data))
    code, doc = _json(capsys, str(copy))
    assert code == 5 and doc["verdict"] == "certificate_invalid"
    assert [c["result"]["verdict"] for c in doc["certificates"]].count("holds") == 3


@pytest.mark.parametrize("content", [None, "report-only", "garbage"])
def test_a_directory_without_certificates_or_with_garbage_is_bad_input(saved, tmp_path, capsys, content):
    d = tmp_path / "d"
    d.mkdir()
    if content == "report-only":
        shutil.copy(saved / "4_2__report.json", d)
    elif content == "garbage":
        shutil.copy(saved / "4_2__token_i_iss.json", d)
        (d / "zz.json").write_text('{"kind": "nonnegativity", "poly": 1}')
    code = main(["recheck", str(d)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert ("zz.json" in err) if content == "garbage" else ("no certificate" in err)


@pytest.mark.parametrize("command", [["depth", "4.2"], ["theorem", "4.2"]])
def test_plot_on_depth_and_theorem_writes_the_record_figure(command, tmp_path, capsys):
    png = tmp_path / "f.png"
    assert main([*command, "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"wrote {png}" in capsys.readouterr().out
    assert main([*command, "--plot", str(png)]) == 2  # an existing file needs --force
    assert main([*command, "--no-simulate", "--plot", str(tmp_path / "g.png")]) == 2  # nothing to draw: refused first
    assert not (tmp_path / "g.png").exists()
