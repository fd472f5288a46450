"""The console side of ``verify reproduce``: the claim table never cuts a number, ``--only`` lists its
case ids in ``--help`` (without importing the cases) and refuses an unknown id with close matches."""
from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys

import pytest

from verify.api import reproduce as cmd_reproduce  # the case ids live with the option table
from verify.cli.main import main
from verify._reproduce import SIM_CASES, LLM_CASE_IDS
from verify._reproduce.records import ClaimKind, ClaimRow, ClaimStatus, Report
from verify._reproduce.report_text import MAX_REASON_LINES, MORE, WIDTH, reason_lines, render_console

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")


def _row(cid: str, reason: str, kind: ClaimKind = ClaimKind.PAPER, label: str = "") -> ClaimRow:
    return ClaimRow(cid, "a claim", "a source", ("sim-3.2",), (), {}, {"kind": "upper_below"}, ClaimStatus.NOT_SUPPORTED,
                    reason, (), kind, label)


def _report(*rows: ClaimRow) -> Report:
    return Report("smoke", rows, (), {"wall_time_s": 12.0})


def _reason_of(text: str, cid: str) -> str:
    """The reason of row ``cid`` as printed, its continuation lines joined."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"  {cid} "))
    indent = lines[start].index("not supported") + len("not supported".ljust(17)) + 2
    parts = [lines[start][indent:]]
    for line in lines[start + 1:]:
        if not line.startswith(" " * indent) or line.startswith("report written"):
            break
        parts.append(line[indent:])
    return " ".join(parts)


def test_the_claim_table_wraps_reasons_and_never_cuts_a_number():
    # the old table cut at 100 characters of reason (155 with the columns): "upper 0.00" for 0.000295
    reason = ("sim-4.4:final_alignment_random: band [-0.00012956, 0.00029454] vs 1e-06; sim-4.4:final_alignment_diag: "
              "band [0, 0] vs 1e-06; upper 0.000295 exceeds the threshold 1e-06 by a factor 295")
    long_id = "trained-faster-smollm2"
    text = render_console(_report(_row(long_id, reason, label="stand-in models"), _row("x", "short: 1.5 [1, 2]")), "out")
    for line in text.splitlines():
        assert len(line) <= WIDTH, line
    printed = _reason_of(text, long_id)
    assert printed == reason  # nothing dropped, nothing split
    assert NUMBER.findall(printed) == NUMBER.findall(reason)
    assert "0.000295 " in printed and "0.00029454]" in printed
    assert _reason_of(text, "x") == "short: 1.5 [1, 2]"


def test_a_very_long_reason_is_abbreviated_after_a_whole_word():
    words = [f"q{k}: band [{k}.25e-16, {k}.75e-16] vs 1e-08;" for k in range(60)]
    reason = " ".join(words)
    lines = reason_lines(reason, 80)
    assert len(lines) == MAX_REASON_LINES and lines[-1].endswith(MORE)
    shown = " ".join(lines)[: -len(MORE)].split(" ")
    assert shown == reason.split(" ")[: len(shown)]  # a prefix of whole words: no number is cut
    assert all(len(line) <= 80 for line in lines)
    token = "x" * 120  # one unbreakable token longer than the column stays whole
    assert reason_lines(f"a {token} b", 80) == ["a", token, "b"]


def test_only_lists_its_case_ids_in_the_help(capsys):
    with pytest.raises(SystemExit) as done:
        main(["reproduce", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for cid in cmd_reproduce.CASE_IDS:
        assert re.search(rf"(?<![\w-]){re.escape(cid)}(?![\w-])", text), cid  # whole, never split at a hyphen


def test_the_static_case_table_is_the_runners():
    from verify._reproduce.llm_tasks import llm_cases

    assert cmd_reproduce.SIM_CASE_IDS == tuple(c.id for c in SIM_CASES)
    assert cmd_reproduce.LLM_CASE_IDS == tuple(c.id for c in llm_cases()) == LLM_CASE_IDS
    assert cmd_reproduce.CASE_IDS == cmd_reproduce.SIM_CASE_IDS + cmd_reproduce.LLM_CASE_IDS


def test_reproduce_help_imports_no_case_module():
    code = ("import contextlib, io, sys\nfrom verify.cli.main import main\ntry:\n"
            "    with contextlib.redirect_stdout(io.StringIO()): main(['reproduce', '--help'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in ('numpy', 'sympy', 'verify._reproduce', 'torch') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("only, close", [("sim-3.3", "'sim-3.2'"), ("llm-gtp2", "'llm-gpt2'"), ("theorem", "'theorems'")])
def test_an_unknown_case_id_exits_2_with_close_matches_and_the_valid_ids(only, close, tmp_path, capsys):
    with contextlib.redirect_stdout(io.StringIO()):
        rc = main(["reproduce", "--smoke", "--only", only, "--out", str(tmp_path / "r"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("verify reproduce: error: --only:") and repr(only) in err and f"did you mean {close}" in err
    assert all(cid in err for cid in cmd_reproduce.CASE_IDS) and "Traceback" not in err
    assert not (tmp_path / "r").exists()
