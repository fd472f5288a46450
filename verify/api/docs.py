"""``verify docs [TOPIC]``: the user documentation shipped inside the package.

The Markdown pages live in ``verify/data/docs/`` (package data, so a wheel carries them; they are
byte-identical copies of the repository's ``docs/TOPIC.md``, checked in ``tests/wheel``).  Help
texts point here (``verify docs format``) rather than to a path that exists only in a clone.
Unknown topics raise :class:`~theorems.errors.UnknownName` with the close matches (exit 2).
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
    """The documentation shipped in the package.

    Without ``topic``: the topics and their titles (``payload["topics"]``).  With ``topic``: that
    page's Markdown (``text`` and ``payload["markdown"]``).  Unknown topics raise
    :class:`~theorems.errors.UnknownName` with close matches.""",
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
        entries = [{"topic": t, "title": _title(doc_path(t).read_text(encoding="utf-8"))} for t in doc_topics()]
        width = max(len(e["topic"]) for e in entries)
        lines = [f"{e['topic']:<{width}}  {e['title']}" for e in entries]
        return Report("docs", {"status": "ok", "topics": entries},
                      "\n".join(lines + ["", "verify docs TOPIC   prints one (Markdown)"]), exit_code=0)
    text = doc_path(topic).read_text(encoding="utf-8")
    return Report("docs", {"status": "ok", "topic": topic, "title": _title(text), "markdown": text},
                  text.rstrip("\n"), exit_code=0)


docs = api(COMMAND, _docs, __name__)

__all__ = ["COMMAND", "doc_path", "doc_topics", "docs"]
