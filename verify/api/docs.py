"""``verify docs [TOPIC]``: the user documentation shipped inside the package.

Without ``topic``: the topics and their titles (``payload["topics"]``); with ``topic``: that page's
Markdown (``text`` and ``payload["markdown"]``).  The pages live in ``verify/data/docs/`` (package data,
byte-identical copies of the repository's ``docs/TOPIC.md``, checked in ``tests/wheel``), so help texts
point here (``verify docs format``).  Unknown topics raise :class:`~theorems.errors.UnknownName` with the
close matches (exit 2).
"""
from __future__ import annotations

from pathlib import Path

from theorems.errors import InvalidInput, UnknownName
from verify.report import Report

from ._table import Command, Option, api

DIRECTORY = Path(__file__).resolve().parents[1] / "data" / "docs"

COMMAND = Command(
    "docs", "docs", "list or print the documentation shipped with the package",
    "verify docs: list the documentation topics shipped with the package; verify docs TOPIC prints one (Markdown).",
    None,
    (Option("topic", "text", None, flag="TOPIC", positional=True, expected="a topic name as text (see 'verify docs')",
            help="a topic (format, model, certificates, ...; see the list printed without it)",
            cli={"nargs": "?"}),))


def doc_topics() -> tuple[str, ...]:
    """The topics of the packaged documentation (file stems, sorted)."""
    return tuple(sorted(p.stem for p in DIRECTORY.glob("*.md")))


def doc_path(topic: str) -> Path:
    """The packaged Markdown page of ``topic`` (``UnknownName`` with close matches when there is none)."""
    if not isinstance(topic, str):
        raise InvalidInput("topic", "a topic name as text", topic)
    topics = doc_topics()
    if topic not in topics:
        raise UnknownName("doc topic", topic, topics)
    return DIRECTORY / f"{topic}.md"


def _title(text: str) -> str:
    """The page's first heading, without its ``#`` marks and backquotes."""
    first = next((line for line in text.splitlines() if line.startswith("#")), "")
    return first.lstrip("#").strip().replace("`", "")


def _docs(topic: str | None) -> Report:
    if topic is None:
        titles = {t: _title(doc_path(t).read_text(encoding="utf-8")) for t in doc_topics()}
        width = max(map(len, titles))
        lines = [f"{t:<{width}}  {title}" for t, title in titles.items()]
        return Report("docs", {"status": "ok", "topics": [{"topic": t, "title": title} for t, title in titles.items()]},
                      "\n".join(lines + ["", "verify docs TOPIC   prints one (Markdown)"]))
    text = doc_path(topic).read_text(encoding="utf-8")
    return Report("docs", {"status": "ok", "topic": topic, "title": _title(text), "markdown": text},
                  text.rstrip("\n"))


docs = api(COMMAND, _docs, __name__)

__all__ = ["COMMAND", "doc_path", "doc_topics", "docs"]
