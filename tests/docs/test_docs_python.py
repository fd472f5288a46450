"""The Python examples of README.md and docs/*.md run (issue 15), and the README's two install commands stay true.

Every ```` ```python ```` block of docs/*.md is executed in a fresh namespace from the repository
root, in order within its file (a later block may use an earlier one's names), unless the line
before its fence says ``<!-- doctest: skip (reason) -->`` (a cluster launcher, for example).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.docs.console import fenced_blocks

ROOT = Path(__file__).resolve().parents[2]
SKIP = "<!-- doctest: skip"
FILES = [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
         if any(not marker.startswith(SKIP) for _, marker, _ in fenced_blocks(p, "python"))]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_python_examples_run(path: Path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": f"docs_{path.stem}"}
    ran = 0
    for line, marker, code in fenced_blocks(path, "python"):
        if marker.startswith(SKIP):
            continue
        exec(compile(code, f"{path.name}:{line}", "exec"), namespace)  # noqa: S102 (our own docs)
        ran += 1
    assert ran, f"{path.name}: no Python example ran"


def test_every_skipped_example_says_why() -> None:
    markers = [(p.name, line, m) for p in sorted((ROOT / "docs").glob("*.md"))
               for line, m, _ in fenced_blocks(p, "python") if m.startswith(SKIP)]
    assert markers, "no skipped example: drop this test's SKIP rule"
    for name, line, marker in markers:
        assert re.fullmatch(r"<!-- doctest: skip \(.+\) -->", marker), f"{name}:{line}: {marker!r} does not say why"


def _bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)\n```", text, re.DOTALL)


def test_readme_starts_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    first, second = _bash_blocks(readme)[:2]
    assert first.startswith("python3 -m venv .venv") and first.endswith("&& verify theorem 4.2")
    ci = (ROOT / ".ci" / "run").read_text()
    assert second in ci.splitlines(), "README command (b) is not the line .ci/run runs"
    assert second.endswith("python -m pytest -q -n 2")  # two pytest-xdist workers: the suite is process-safe
    assert "bash scripts/install_models.sh" in second and os.access(ROOT / "scripts" / "install_models.sh", os.R_OK)
