"""Progress written into a log file (stderr redirected) is a few plain lines: never a carriage return."""
from __future__ import annotations

import subprocess
import sys

import pytest

COMMANDS = {
    "audit": ["audit", "gpt2-tiny", "--random-init", "--no-tables"],
    "consensus": ["consensus", "gpt2-tiny", "--random-init", "--prompts", "3", "--tokens", "8", "--passes", "3"],
    "reproduce": ["reproduce", "--smoke", "--only", "sim-3.2", "--no-llm"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_stderr_into_a_file_has_no_carriage_return(command, tmp_path):
    argv = COMMANDS[command] + (["--out", str(tmp_path / "report")] if command == "reproduce" else [])
    log = tmp_path / "stderr.log"
    with log.open("wb") as err:
        done = subprocess.run([sys.executable, "-m", "verify.cli.main", *argv], stdout=subprocess.DEVNULL, stderr=err,
                              cwd=tmp_path, timeout=600)
    text = log.read_bytes()
    assert done.returncode in (0, 3, 6), text.decode(errors="replace")
    assert b"\r" not in text
    lines = text.decode().splitlines()
    assert 0 < len(lines) <= 20, lines  # a few plain lines, not one redraw per step
