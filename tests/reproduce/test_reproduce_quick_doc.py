"""The committed quick-scale report (docs/reproduce-quick, regenerated with ``verify reproduce --quick
--out docs/reproduce-quick --force``) holds what the issue asked of it: a headline that counts the
paper's claims on its own models apart from the stand-in rows, a row for every claim of the
catalogue, and no absolute path (it is read on other machines)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verify._reproduce import CLAIMS

DOC = Path(__file__).resolve().parents[2] / "docs" / "reproduce-quick"
ABSOLUTE = re.compile(r"(?<![\w.:/-])/(?:home|root|tmp|work|usr|opt|var|Users|private|mnt|srv)/")


@pytest.fixture(scope="module")
def report():
    return json.loads((DOC / "report.json").read_text())


def test_no_absolute_path(report):
    for name in ("report.json", "report.md"):  # report.html is not kept (it repeats report.md with the figures)
        text = (DOC / name).read_text()
        found = ABSOLUTE.search(text)
        assert found is None, f"{name}: {text[found.start():found.start() + 120]!r}"


def test_a_row_for_every_claim(report):
    assert [r["id"] for r in report["claims"]] == sorted((c.id for c in CLAIMS), key=[r["id"] for r in report["claims"]].index)
    assert {r["id"] for r in report["claims"]} == {c.id for c in CLAIMS}
    rows = {r["id"]: r for r in report["claims"]}
    assert rows["llm-trained-consensus"]["status"] == "not testable here"  # the paper's main result has its row
    assert "not available offline" in rows["llm-trained-consensus"]["reason"]


def test_the_headline_counts_the_papers_models_apart(report):
    other = [r for r in report["claims"] if r["label"] == "on other models"]
    paper = [r for r in report["claims"] if r["kind"] == "paper" and r not in other]
    head = {h["claims"]: h["counts"] for h in report["headline"]}
    assert sum(head["paper"].values()) == len(paper) and sum(report["headline_other_models"].values()) == len(other) > 0
    md = (DOC / "report.md").read_text().split("## Claim table", 1)[0]
    assert "The paper's claims on other models" in md
