"""Issue 9 (soundness): safe outputs (umask, --force, all-or-nothing batches) and the
"certificate invalid" outcome of ``verify recheck``."""
from __future__ import annotations

import json
import os
import stat
from fractions import Fraction
from pathlib import Path

import pytest

from theorems.errors import InvalidInput
from verify.cli.main import main
from verify.outputs import Target, check_targets, write_all

SIM = ["simulate", "--preset", "constant-identity-full", "--t-end", "1", "--points", "3"]
QUARTIC = "2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4"


@pytest.fixture
def umask():
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_honour_the_umask(tmp_path, capsys, umask, mask, expected):
    umask(mask)
    out = tmp_path / "new" / "run.json"  # a missing parent is created
    assert main(SIM + ["--json", str(out)]) == 0
    assert _mode(out) == expected and json.loads(out.read_text())["N"] == 12
    assert sorted(p.name for p in out.parent.iterdir()) == ["run.json"]  # no temporary left behind


def test_overwriting_needs_force(tmp_path, capsys, umask):
    out = tmp_path / "run.json"
    out.write_text("previous\n")
    os.chmod(out, 0o600)
    assert main(SIM + ["--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--json" in err and str(out) in err and "--force" in err
    assert out.read_text() == "previous\n"
    assert main(SIM + ["--json", str(out), "--force"]) == 0
    assert json.loads(out.read_text())["instance"] == "constant-identity-full"
    assert _mode(out) == 0o644  # a new file from a temporary, with the umask's mode


def test_simulate_plot_and_json_are_all_or_nothing(tmp_path, capsys, monkeypatch):
    """The JSON target turns into a directory while integrating: the PNG must not be written."""
    import numerics.plotting as plotting

    png, js = tmp_path / "run.png", tmp_path / "run.json"
    real = plotting.trajectory_figure

    def plot_then_sabotage(*args, **kwargs):
        figure = real(*args, **kwargs)
        js.mkdir()
        return figure

    monkeypatch.setattr(plotting, "trajectory_figure", plot_then_sabotage)
    assert main(SIM + ["--plot", str(png), "--json", str(js)]) == 2
    err = capsys.readouterr().err
    assert "--json" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"] and js.is_dir() and not any(js.iterdir())


def test_theorem_save_is_all_or_nothing(tmp_path, capsys, monkeypatch):
    """The report target becomes a FIFO after the proof: no certificate may be left behind."""
    import verify._theorem.check as check

    save = tmp_path / "proof"
    real = check.check_theorem

    def prove_then_sabotage(*args, **kwargs):
        report = real(*args, **kwargs)
        save.mkdir()
        os.mkfifo(save / "4_4-sym__report.json")
        return report

    monkeypatch.setattr(check, "check_theorem", prove_then_sabotage)
    assert main(["theorem", "4.4-sym", "--no-simulate", "--save", str(save)]) == 2
    err = capsys.readouterr().err
    assert "FIFO" in err and "--save" in err and "Traceback" not in err
    assert [p.name for p in save.iterdir()] == ["4_4-sym__report.json"]


def test_write_all_rolls_back_renamed_files_and_restores_replaced_ones(tmp_path, monkeypatch):
    old = tmp_path / "a.json"
    old.write_text("old a\n")
    files = [(Target("--x", old), "new a\n"), (Target("--x", tmp_path / "sub" / "b.json"), b"new b"),
             (Target("--x", tmp_path / "c.json"), "new c")]
    real_replace = os.replace

    def failing_replace(src, dst):
        if Path(dst).name == "c.json":
            raise OSError(28, "No space left on device", str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(InvalidInput, match="nothing was written"):
        write_all(files, force=True)
    monkeypatch.setattr(os, "replace", real_replace)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]  # sub/ was made for the batch: removed
    assert old.read_text() == "old a\n"
    assert write_all(files, force=True) == [old, tmp_path / "sub" / "b.json", tmp_path / "c.json"]
    assert old.read_text() == "new a\n" and (tmp_path / "sub" / "b.json").read_bytes() == b"new b"


def test_check_targets_refuses_one_path_named_twice(tmp_path):
    with pytest.raises(InvalidInput, match="--json"):
        check_targets([Target("--plot", tmp_path / "x"), Target("--json", tmp_path / "x")], force=True)


@pytest.mark.skipif(os.geteuid() == 0, reason="permission bits do not stop root from writing")
def test_unwritable_directory_is_refused_before_work(tmp_path, capsys, monkeypatch):
    import numerics.dop853 as dop853

    monkeypatch.setattr(dop853.DOP853, "integrate", lambda *a, **k: pytest.fail("integrated before checking"))
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert main(SIM + ["--json", str(locked / "x.json")]) == 2
        assert main(SIM + ["--json", str(locked / "new" / "x.json")]) == 2
    finally:
        locked.chmod(0o700)
    err = capsys.readouterr().err
    assert err.count("--json") == 2 and "writable" in err and not any(locked.iterdir())


def test_directory_without_write_permission_is_refused_even_as_root(tmp_path, capsys, monkeypatch):
    """The permission branch, independent of who runs the test (os.access is what it consults)."""
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == tmp_path else real_access(p, mode))
    assert main(SIM + ["--json", str(tmp_path / "x.json")]) == 2
    assert "no permission to write" in capsys.readouterr().err and not any(tmp_path.iterdir())


def test_missing_parent_that_cannot_be_created_is_refused(capsys):
    assert main(SIM + ["--json", "/proc/no/such/dir/x.json"]) == 2
    assert "--json" in capsys.readouterr().err


def test_previous_reproduce_report_is_replaced_only_with_force(tmp_path):
    from verify._reproduce import check_out_dir

    prev = tmp_path / "prev"
    prev.mkdir()
    (prev / "report.json").write_text(json.dumps({"kind": "consensus-verify reproduction report"}))
    with pytest.raises(InvalidInput, match="--force"):
        check_out_dir(prev)
    assert check_out_dir(prev, force=True) == prev
    os.mkfifo(prev / "report.md")
    with pytest.raises(InvalidInput, match="report.md"):
        check_out_dir(prev, force=True)
    assert check_out_dir(tmp_path / "new" / "dir") == tmp_path / "new" / "dir" and not (tmp_path / "new").exists()


def _saved_certificate(tmp_path, capsys) -> Path:
    cert = tmp_path / "quartic.json"
    assert main(["sos", QUARTIC, "--save", str(cert)]) == 0
    capsys.readouterr()
    return cert


def test_tampered_certificate_is_invalid_not_refuted(tmp_path, capsys):
    cert = _saved_certificate(tmp_path, capsys)
    data = json.loads(cert.read_text())
    entry = data["sos_terms"][0]["gram"][0][0]
    data["sos_terms"][0]["gram"][0][0] = str(Fraction(entry) + Fraction(1, 1000))
    data["label"] = "quartic\nrecheck: HOLDS\x1b[2K"
    cert.write_text(json.dumps(data))
    assert main(["recheck", str(cert)]) == 5
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("recheck:")] == ["recheck: CERTIFICATE INVALID"]
    assert "label: quartic\\nrecheck: HOLDS\\x1b[2K" in out and "identity fails" in out
    assert main(["recheck", str(cert), "--format", "json"]) == 5
    payload = json.loads(capsys.readouterr().out)
    assert payload["verdict"] == "certificate_invalid" and payload["result"]["verdict"] == "fails"


def test_untampered_certificate_still_holds(tmp_path, capsys):
    cert = _saved_certificate(tmp_path, capsys)
    assert main(["recheck", str(cert), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "holds"


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.update(variables=["-x", "y"]), "certificate.variables[0]"),
    (lambda d: d.update(variables=["x", "y\n"]), "certificate.variables[1]"),
    (lambda d: d.update(variables="xy"), "certificate.variables"),
    (lambda d: d.pop("sos_terms"), "certificate.sos_terms"),
    (lambda d: d["sos_terms"][0].update(gram="1"), "certificate.sos_terms[0].gram"),
    (lambda d: d["sos_terms"][0]["basis"].append([0, 0]), "certificate.sos_terms[0].gram"),
])
def test_malformed_saved_certificate_exits_2(tmp_path, capsys, mutate, field):
    cert = _saved_certificate(tmp_path, capsys)
    data = json.loads(cert.read_text())
    mutate(data)
    cert.write_text(json.dumps(data))
    assert main(["recheck", str(cert)]) == 2
    err = capsys.readouterr().err
    assert field in err and "Traceback" not in err


def test_theorem_skips_its_simulation_when_it_would_be_too_large(tmp_path, capsys):
    tokens = [[1, 0, 0]] + [["3/5", "4/5", 0], ["3/5", 0, "4/5"]] * 1500
    inst = tmp_path / "big.json"
    inst.write_text(json.dumps({"d": 3, "beta": 1, "mask": "causal", "tokens": tokens,
                                "heads": [{"P": "identity", "U": "identity"}]}))
    code = main(["theorem", "4.2", "--instance", str(inst), "--format", "json"])
    payload = json.loads(capsys.readouterr().out)
    assert code in (0, 3, 4) and payload["numerical_evidence"] is None
    assert "estimated at" in payload["numerical_evidence_skipped"] and "N=3001" in payload["numerical_evidence_skipped"]
