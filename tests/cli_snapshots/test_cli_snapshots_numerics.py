"""Snapshot tests of the numeric-side text reports (``verify simulate``, ``verify reproduce``).

Each case runs the command in-process and compares stdout, stderr and the exit code with
``snapshots/numerics/<name>.txt``, after normalising what changes from run to run (wall times, the
temporary directory).  After an intended change of a report, regenerate with
``UPDATE_SNAPSHOTS=1 python -m pytest tests/cli_snapshots`` and review the diff.  ``verify audit`` and
``verify consensus`` build torch models even at random init; their text is tested in tests/api and
tests/llm_checks instead of here.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from verify.cli.main import main

HERE = Path(__file__).resolve().parent
SNAPSHOTS = HERE / "snapshots" / "numerics"
TWO = {"name": "two", "d": 3, "beta": 1, "mask": "full", "heads": [{"P": "zero", "U": [[5, 0, 0], [0, 5, 0], [0, 0, 5]]}],
       "tokens": [[1, 0, 0], ["3/5", "4/5", 0]]}

CASES = {
    "simulate_default_preset": ["simulate", "--t-end", "4", "--points", "9"],
    "simulate_digits": ["simulate", "--instance", "{d}/two.json", "--t-end", "5", "--points", "11", "--digits", "30"],
    "simulate_flag_without_effect": ["simulate", "--instance", "{d}/two.json", "--t-end", "1", "--dim", "4"],
    "reproduce_theorems": ["reproduce", "--smoke", "--no-llm", "--only", "theorems", "--no-progress", "--out", "{d}/r"],
}

_VOLATILE = [(re.compile(r"(steps, )[0-9.e+-]+ s,"), r"\1<seconds> s,"),
             (re.compile(r"^(reproduction \(\w+ scale\) in )\d+ s:", re.M), r"\1<seconds> s:")]


def _normalise(text: str, tmp: Path) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text.replace(str(tmp.resolve()), "<tmp>").replace(str(tmp), "<tmp>")


@pytest.mark.parametrize("name", sorted(CASES))
def test_text_report_matches_its_snapshot(name, tmp_path, capsys):
    (tmp_path / "two.json").write_text(json.dumps(TWO))
    argv = [a.replace("{d}", str(tmp_path)) for a in CASES[name]]
    code = main(argv)
    captured = capsys.readouterr()
    shown = " ".join(a.replace(str(tmp_path), "<tmp>") for a in argv)
    got = _normalise(f"$ verify {shown}\n{captured.out}--- stderr\n{captured.err}(exit {code})\n", tmp_path)
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.write_text(got)
    elif not path.exists():
        pytest.fail(f"no snapshot {path.name}; create it with UPDATE_SNAPSHOTS=1 and review it")
    assert got == path.read_text()


def test_every_numerics_snapshot_has_a_case():
    assert {p.stem for p in SNAPSHOTS.glob("*.txt")} == set(CASES)
