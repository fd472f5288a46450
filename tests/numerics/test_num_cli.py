"""``verify simulate``: files written, JSON contents, exit codes on bad input."""
from __future__ import annotations

import json

import pytest

from verify.cli.main import main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_preset_writes_png_and_json(tmp_path, capsys):
    png, js = tmp_path / "run.png", tmp_path / "run.json"
    code = main(["simulate", "--preset", "constant-identity-full", "--t-end", "8", "--plot", str(png),
                 "--json", str(js), "--format", "json"])
    assert code == 0
    data = png.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 20_000
    report = json.loads(js.read_text())
    assert json.loads(capsys.readouterr().out) == report
    assert report["integrator"]["status"] == "success"
    assert 0 <= report["final"]["E_pair"] < 1e-3 and report["final"]["hemisphere_margin"] > 0.9
    assert report["fitted_rate"]["rate"] > 0
    assert report["events"]["open_hemisphere"]["t"] is not None


def test_many_initial_conditions_report_median_and_band(tmp_path, capsys):
    png = tmp_path / "band.png"
    code = main(["simulate", "--preset", "periodic-identity-causal", "--t-end", "4", "--samples", "12",
                 "--seed", "3", "--points", "21", "--plot", str(png), "--format", "json"])
    assert code == 0 and png.read_bytes().startswith(PNG_MAGIC)
    batch = json.loads(capsys.readouterr().out)["batch"]
    assert batch["instances"] == 12 and len(batch["E_pair"]["median"]) == 21
    for lo, m, hi in zip(batch["E_pair"]["low"], batch["E_pair"]["median"], batch["E_pair"]["high"]):
        assert 0 <= lo <= m <= hi <= 1  # the one statistic, inside the metric's range
    assert batch["E_pair"]["low"][-1] < batch["E_pair"]["high"][-1]


def test_instance_file_and_digits(tmp_path, capsys):
    inst = tmp_path / "two.json"
    inst.write_text(json.dumps({"d": 3, "beta": 1, "mask": "causal", "heads": [{"P": "zero", "U": "identity"}],
                                "tokens": [[1, 0, 0], ["-3/5", "4/5", 0]]}))
    assert main(["simulate", "--instance", str(inst), "--t-end", "1", "--digits", "12", "--points", "3"]) == 0
    out = capsys.readouterr().out
    assert "taylor-mp" in out and "E_pair" in out


@pytest.mark.parametrize("argv, needle", [
    (["--preset", "constant-identity-ful", "--t-end", "1"], "did you mean 'constant-identity-full'"),
    (["--preset", "constant-identity-full", "--t-end", "0"], "--t-end"),
    (["--preset", "constant-identity-full", "--t-end", "1", "--plot", "x.jpg"], ".png"),
    (["--instance", "/nonexistent.json", "--t-end", "1"], "--instance"),
    (["--preset", "constant-identity-full", "--t-end", "1", "--digits", "20", "--samples", "3"], "cannot be combined"),
])
def test_bad_input_exits_2_with_a_message(argv, needle, capsys):
    assert main(["simulate", *argv]) == 2
    assert needle in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--seed", "--json", "--plot"])
def test_bad_seed_or_directory_output_exits_2_before_integrating(flag, tmp_path, capsys, monkeypatch):
    import numerics.dop853 as dop853

    def never(*args, **kwargs):
        raise AssertionError("integrated before checking the input")

    monkeypatch.setattr(dop853.DOP853, "integrate", never)
    value = "-1" if flag == "--seed" else str(tmp_path / ("d.png" if flag == "--plot" else "d"))
    if flag != "--seed":
        (tmp_path / ("d.png" if flag == "--plot" else "d")).mkdir()
    assert main(["simulate", "--preset", "constant-identity-full", "--t-end", "1", flag, value]) == 2
    err = capsys.readouterr().err
    assert flag in err and "Traceback" not in err
