"""The console blocks of the README and docs/*.md, read as tests (issue 15).

A ```` ```console ```` block is a sequence of commands, each a line starting with ``$ ``, followed
by the output the reader is shown. The normalisation between what a block shows and what the
command prints is small and fixed:

* ``...`` on a line of its own stands for any number of lines (also none); ``...`` inside a line
  stands for any text on that line (a path, the tail of a long line);
* a duration, a number followed by `` s`` (``0.0849 s``, ``wall time: 1.2 s``), matches any duration;
* trailing spaces are ignored, and so is a line's trailing ``(exit N)`` annotation after two or
  more spaces, which instead asserts the command's exit code (so does a ``# exit N`` comment on
  the command line); without one the command must exit 0;
* ``#`` starts a shell comment on a command line; ``a && b`` runs ``a`` and then ``b``.

A command shown without any output is run and only its exit code is checked. Everything else,
every digit included, must match exactly.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_DURATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:e[-+]?\d+)? s\b")
_EXIT_SUFFIX = re.compile(r"\s{2,}\(exit (\d)\)\s*$")
_EXIT_COMMENT = re.compile(r"#\s*exit (\d)\b")


@dataclass(frozen=True)
class Command:
    line: str  # the command line as shown (after "$ ")
    steps: tuple[tuple[str, ...], ...]  # argv of each "&&"-joined command
    expected: tuple[str, ...]  # the output lines shown under it
    exit_code: int  # what the last step must exit with (0 unless annotated)
    exit_annotated: bool


@dataclass(frozen=True)
class Block:
    source: str  # "README.md:51"
    commands: tuple[Command, ...]

    @property
    def id(self) -> str:
        first = self.commands[0].line.split("#")[0].strip()
        return f"{self.source} {first[:60]}"


def _command(line: str, output: list[str]) -> Command:
    code, annotated = 0, False
    m = _EXIT_COMMENT.search(line)
    if m:
        code, annotated = int(m.group(1)), True
    expected = []
    for out in output:
        m = _EXIT_SUFFIX.search(out)
        if m:
            code, annotated = int(m.group(1)), True
            out = out[: m.start()]
        expected.append(out.rstrip())
    while expected and not expected[-1]:
        expected.pop()
    words = shlex.split(line, comments=True)
    steps, current = [], []
    for w in words:
        if w == "&&":
            steps.append(tuple(current))
            current = []
        else:
            current.append(w)
    steps.append(tuple(current))
    return Command(line, tuple(steps), tuple(expected), code, annotated)


def console_blocks(path: Path, label: str) -> list[Block]:
    """Every ```console block of a Markdown file, in order."""
    blocks: list[Block] = []
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start, i = i + 1, i + 1
        body: list[str] = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        commands: list[Command] = []
        cmd, out = None, []
        for b in body:
            if b.startswith("$ "):
                if cmd is not None:
                    commands.append(_command(cmd, out))
                cmd, out = b[2:], []
            elif cmd is not None:
                out.append(b)
        if cmd is not None:
            commands.append(_command(cmd, out))
        if commands:
            blocks.append(Block(f"{label}:{start}", tuple(commands)))
        i += 1
    return blocks


def fenced_blocks(path: Path, language: str) -> list[tuple[int, str, str]]:
    """``(line, marker, code)`` of every fenced block of ``language``; ``marker`` is the HTML comment
    on the line before the fence (``<!-- doctest: skip (reason) -->``), or ''."""
    out = []
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.strip() == f"```{language}":
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            indent = len(line) - len(line.lstrip())
            code = "\n".join(x[indent:] for x in lines[i + 1: j])
            marker = lines[i - 1].strip() if i and lines[i - 1].strip().startswith("<!--") else ""
            out.append((i + 1, marker, code))
    return out


def normalise(line: str) -> str:
    return _DURATION.sub("<duration> s", line.rstrip())


@lru_cache(maxsize=4096)
def _pattern(expected: str) -> re.Pattern:
    parts = normalise(expected).split("...")
    return re.compile(".*".join(re.escape(p) for p in parts), re.DOTALL)


def mismatch(expected: tuple[str, ...], actual: str) -> str | None:
    """None when ``actual`` (a command's output) matches the ``expected`` lines, else a message
    naming the first expected line that could not be matched."""
    got = [normalise(x) for x in actual.rstrip("\n").splitlines()]
    while got and not got[-1]:
        got.pop()
    exp = list(expected)
    best = [0]  # the furthest expected line reached, for the message

    @lru_cache(maxsize=None)
    def ok(i: int, j: int) -> bool:
        best[0] = max(best[0], i)
        if i == len(exp):
            return j == len(got)
        if exp[i].strip() == "...":
            return any(ok(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and _pattern(exp[i]).fullmatch(got[j]) is not None and ok(i + 1, j + 1)

    if ok(0, 0):
        return None
    i = min(best[0], len(exp) - 1) if exp else 0
    shown = "\n".join(f"    {g}" for g in got)
    return (f"expected line {i + 1} {exp[i]!r} (or a line after it) does not match the output:\n{shown}"
            if exp else f"expected no output, got:\n{shown}")
