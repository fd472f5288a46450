"""Snapshot tests of the text reports (Hypothesis' habit: user-facing reports are snapshot-tested).

Each case runs the command in-process and compares its stdout and exit code with
``snapshots/<name>.txt``.  Volatile parts (wall time) are normalised first.  After an intended
change of a report, regenerate with ``UPDATE_SNAPSHOTS=1 python -m pytest tests/cli_snapshots``
and review the diff: a snapshot change is a change of what users read.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from verify.cli.main import main

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SNAPSHOTS = HERE / "snapshots"
EXAMPLES = ROOT / "examples"

CASES = {
    "theorem_3_2": ["theorem", "3.2", "--no-simulate"],
    "theorem_4_2_violated": ["theorem", "4.2", "--instance", str(EXAMPLES / "hemisphere_full.json"), "--no-simulate"],
    "theorem_4_4_sym": ["theorem", "4.4-sym", "--no-simulate"],
    "theorem_LN1": ["theorem", "LN1", "--no-simulate"],
    "assumptions_3_2_hemisphere_full": ["assumptions", "3.2", "--instance", str(EXAMPLES / "hemisphere_full.json")],
    "assumptions_4_4_sym": ["assumptions", "4.4-sym"],
    "assumptions_4_2_on_full_instance": ["assumptions", "4.2", "--instance", str(EXAMPLES / "hemisphere_full.json")],
    "assumptions_D1": ["assumptions", "D1"],
}

_VOLATILE = [(re.compile(r"^wall time: [0-9.]+ s$", re.M), "wall time: <seconds> s")]


def _normalise(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text.replace(str(ROOT), "<root>")


@pytest.mark.parametrize("name", sorted(CASES))
def test_text_report_matches_its_snapshot(name, capsys):
    code = main(CASES[name])
    out = _normalise(capsys.readouterr().out)
    got = f"$ verify {' '.join(a.replace(str(ROOT), '<root>') for a in CASES[name])}\n{out}(exit {code})\n"
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1" or not path.exists():
        if not os.environ.get("UPDATE_SNAPSHOTS") == "1":
            pytest.fail(f"no snapshot {path.name}; create it with UPDATE_SNAPSHOTS=1 and review it")
        path.write_text(got)
    assert got == path.read_text()


def test_every_snapshot_has_a_case():
    assert {p.stem for p in SNAPSHOTS.glob("*.txt")} == set(CASES)
