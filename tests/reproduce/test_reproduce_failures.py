"""A failing case yields 'not testable here'; an interrupted or refused run leaves no report."""
from __future__ import annotations

import contextlib
import io
import json

import pytest

from verify.cli.main import main
from verify._reproduce import SMOKE, Case, ClaimStatus, reproduce, write_report
from verify._reproduce import runner as runner_module
from verify._reproduce.claims import Claim
from verify._reproduce.rules import all_of, upper_below
from verify._reproduce.stats import UNBOUNDED, median_band


def _broken(scale, progress):
    progress(0.5)
    raise RuntimeError("solver exploded")


def _partial(scale, progress):
    return {"measurements": {"a": median_band([1e-9, 2e-9, 3e-9], "a small number", UNBOUNDED)}}


CLAIMS = (
    Claim("broken-claim", "a claim measured by a failing case", "test", ("broken",), upper_below("broken:q", 1.0)),
    Claim("partial-claim", "a claim whose case measured only part of it", "test", ("partial",),
          all_of(upper_below("partial:a", 1e-6), upper_below("partial:b", 1e-6))),
    Claim("measured-claim", "a claim fully measured", "test", ("partial",), upper_below("partial:a", 1e-6)),
)


def test_failing_and_partial_cases_are_not_testable_with_the_reason():
    report = reproduce(SMOKE, extra_cases=[Case("broken", "raises", _broken), Case("partial", "half", _partial)],
                       only=["broken", "partial"], claims=CLAIMS)
    rows = {r.id: r for r in report.rows}
    assert [r.id for r in report.rows] == ["broken-claim", "partial-claim", "measured-claim"]
    assert rows["broken-claim"].status is ClaimStatus.NOT_TESTABLE
    assert "RuntimeError: solver exploded" in rows["broken-claim"].reason and not rows["broken-claim"].measurements
    assert rows["partial-claim"].status is ClaimStatus.NOT_TESTABLE
    assert "partial:b" in rows["partial-claim"].reason
    assert rows["measured-claim"].status is ClaimStatus.AGREES
    broken = next(c for c in report.cases if c.id == "broken")
    assert broken.error.startswith("RuntimeError") and not broken.measurements


def test_a_failing_case_still_writes_a_report_that_claims_nothing_for_it(tmp_path):
    report = reproduce(SMOKE, extra_cases=[Case("broken", "raises", _broken)], only=["broken"], claims=CLAIMS[:1])
    out = write_report(report, tmp_path / "r")
    data = json.loads((out / "report.json").read_text())
    assert [r["status"] for r in data["claims"]] == ["not testable here"]
    assert data["claims"][0]["measurements"] == {}


def _interrupt(scale, progress):
    progress(0.3)
    raise KeyboardInterrupt


@pytest.mark.parametrize("previous", [False, True])
def test_interrupted_run_leaves_no_new_report(tmp_path, monkeypatch, previous):
    out = tmp_path / "out"
    if previous:  # a previous report must survive untouched
        out.mkdir()
        (out / "report.json").write_text(json.dumps({"kind": "consensus-verify reproduction report", "marker": 1}))
    cases = runner_module.SIM_CASES[:2] + (Case("sim-4.2", "interrupted mid-run", _interrupt),) + runner_module.SIM_CASES[3:]
    monkeypatch.setattr(runner_module, "SIM_CASES", cases)
    with contextlib.redirect_stdout(io.StringIO()):
        rc = main(["reproduce", "--smoke", "--no-llm", "--no-progress", "--out", str(out), "--force"])
    assert rc == 1
    # no new report; only the cache of the tasks that finished (sim-3.2's two, sim-3.2-late's one) is left, for --resume
    assert sorted(p.name for p in out.iterdir()) == ([".reproduce-cache", "report.json"] if previous else [".reproduce-cache"])
    assert len(list((out / ".reproduce-cache").glob("*.json"))) == 3
    if previous:
        assert json.loads((out / "report.json").read_text())["marker"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_foreign_out_directory_is_refused_before_any_work(tmp_path, monkeypatch):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    calls = []
    monkeypatch.setattr(runner_module, "SIM_CASES", (Case("sim-3.2", "must not run", lambda s, p: calls.append(1) or {}),))
    with contextlib.redirect_stdout(io.StringIO()):
        rc = main(["reproduce", "--smoke", "--no-llm", "--no-progress", "--out", str(out)])
    assert rc == 2 and not calls
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_smoke_with_full_is_a_usage_error(tmp_path):
    assert main(["reproduce", "--full", "--smoke", "--out", str(tmp_path / "x")]) == 2
    assert not (tmp_path / "x").exists()


def test_unknown_only_case_is_a_usage_error(tmp_path):
    assert main(["reproduce", "--smoke", "--no-llm", "--only", "sim-9.9", "--out", str(tmp_path / "x")]) == 2
