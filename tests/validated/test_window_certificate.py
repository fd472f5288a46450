"""The depth-window certificate (``verify depth --save``, kind ``depth-window``): ``verify recheck``
re-runs the validated enclosure and accepts only claims it proves again; tampered files are
rejected (exit 5 for a well-formed claim the re-run does not prove, exit 2 for a malformed file)."""
from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from verify.cli.main import main


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    out = tmp_path_factory.mktemp("window")
    assert main(["depth", "4.2", "--model", "layers", "--no-simulate", "--save", str(out)]) == 0
    path = out / "4_2__depth_layers__window.json"
    return json.loads(path.read_text())


def _recheck(tmp_path, data) -> int:
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(data))
    return main(["recheck", str(path)])


def test_the_saved_window_rechecks(saved, tmp_path):
    assert saved["kind"] == "depth-window" and int(saved["T_low"]) < int(saved["T_high"])
    assert _recheck(tmp_path, saved) == 0


def test_a_weaker_claim_stays_true(saved, tmp_path):
    weaker = dict(saved, T_high=str(int(saved["T_high"]) + 3), T_low=str(int(saved["T_low"]) - 1))
    assert _recheck(tmp_path, weaker) == 0


def _token_moved(d):
    d["tokens"][1][0] = str(Fraction(d["tokens"][1][0]) + Fraction(1, 3))


def _p_changed(d):
    d["P"][0][0][0] = str(Fraction(d["P"][0][0][0]) - 5)


TAMPER = {
    "T_high earlier": lambda d: d.update(T_high=str(int(d["T_high"]) - 1)),
    "T_low later": lambda d: d.update(T_low=str(int(d["T_high"]))),
    "eps smaller": lambda d: d.update(eps="1/100000"),
    "beta larger": lambda d: d.update(beta="40"),
    "a token moved": _token_moved,
    "P changed": _p_changed,
    "fewer layers": lambda d: d.update(layers=2),
    "tau changed": lambda d: d.update(tau="1/1000"),
}


@pytest.mark.parametrize("name", sorted(TAMPER))
def test_tampered_claims_are_invalid(saved, tmp_path, name):
    data = copy.deepcopy(saved)
    TAMPER[name](data)
    assert _recheck(tmp_path, data) == 5, name


MALFORMED = {
    "unknown key": lambda d: d.update(extra=1),
    "float eps": lambda d: d.update(eps=0.01),
    "eps >= 1": lambda d: d.update(eps="3/2"),
    "wrong mask": lambda d: d.update(mask="full"),
    "huge layers": lambda d: d.update(layers=10 ** 9),
    "bool layers": lambda d: d.update(layers=True),
    "wrong version": lambda d: d.update(version=2),
    "ragged P": lambda d: d["P"][0].pop(),
    "zero token": lambda d: d["tokens"].__setitem__(0, ["0"] * len(d["tokens"][0])),
    "not a rational": lambda d: d.update(T_high="soon"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_files_are_bad_input(saved, tmp_path, capsys, name):
    data = copy.deepcopy(saved)
    MALFORMED[name](data)
    assert _recheck(tmp_path, data) == 2, name
    assert "Traceback" not in capsys.readouterr().err
