"""``verify examples [NAME] [--copy DIR]``: the example instances shipped inside the package.

Without ``name``: the catalogue (``payload["examples"]``: name, instance name, mask, N, d, H,
description); with ``name``: that instance's JSON text (``text``) and parsed data (``payload["instance"]``).
``copy``: a directory receiving ``NAME.json`` (every example when ``name`` is None), checked before
anything is written; an existing file is replaced only with ``force``.  The instances and their resolution
(``example:NAME`` for every command that takes an instance) are :mod:`verify.instances`'s.  Unknown names
raise :class:`~theorems.errors.UnknownName` with the close matches (exit 2).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from verify.instances import PREFIX, example_names, example_path
from verify.outputs import dir_targets, write_all
from verify.report import Report

from ._table import FORCE, Command, Option, api

SUMMARY_WIDTH = 72
HINT = "verify examples NAME [--copy DIR]   prints one (or writes NAME.json into DIR); --instance example:NAME reads it"

COMMAND = Command(
    "examples", "examples", "list, print or copy the example instances shipped with the package",
    "verify examples: list the packaged example instances; verify examples NAME prints one (JSON); "
    "--copy DIR writes it (every example without NAME) to DIR. Any --instance takes example:NAME as well.",
    None,
    (Option("name", "text", None, flag="NAME", positional=True,
            expected="an example name as text (see 'verify examples')",
            help="an example's name (see the list printed without it); --instance example:NAME reads it",
            cli={"nargs": "?"}),
     Option("copy", "path", metavar="DIR", help="write NAME.json (every example without NAME) into DIR"),
     FORCE))


@dataclass(frozen=True)
class Example:
    """One packaged example instance as the catalogue lists it (its JSON: the fields, in order)."""

    name: str
    instance_name: str
    mask: Any
    N: int
    d: Any
    H: int
    description: str

    @classmethod
    def read(cls, name: str) -> "Example":
        data = json.loads(example_path(name).read_text(encoding="utf-8"))
        return cls(name, data.get("name", name), data.get("mask"), len(data.get("tokens", [])), data.get("d"),
                   len(data.get("heads", [])), data.get("description", ""))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def line(self, width: int) -> str:
        """The catalogue's line: the sizes and the description's first clause, cut at a word to fit."""
        first = self.description.split("; ")[0].split(". ")[0].rstrip(".")
        if len(first) > SUMMARY_WIDTH:
            first = first[:SUMMARY_WIDTH - 3].rsplit(" ", 1)[0] + " ..."
        return f"{self.name:<{width}}  {self.mask:<6} N={self.N:<2} d={self.d} H={self.H}  {first}"


def _examples(name: str | None, copy: str | None, force: bool) -> Report:
    names = (example_path(name).stem,) if name is not None else example_names()
    if copy is not None:  # every target is checked before anything is written (verify.outputs)
        targets = dir_targets("copy", copy, [f"{n}.json" for n in names], force)
        files = write_all([(t, example_path(n).read_bytes()) for t, n in zip(targets, names)], force)
        text = "\n".join(f"copied example {n} to {path}" for n, path in zip(names, files))
        return Report("examples", {"status": "ok", "examples": [Example.read(n).to_json() for n in names],
                                   "files": [str(f) for f in files]}, text, files=tuple(files))
    if name is None:
        entries = [Example.read(n) for n in names]
        width = max(len(e.name) for e in entries)
        return Report("examples", {"status": "ok", "examples": [e.to_json() for e in entries]},
                      "\n".join([*(e.line(width) for e in entries), "", HINT]))
    raw = example_path(name).read_text(encoding="utf-8")
    return Report("examples", {"status": "ok", "examples": [Example.read(name).to_json()], "instance": json.loads(raw)},
                  raw.rstrip("\n"))


examples = api(COMMAND, _examples, __name__)

__all__ = ["COMMAND", "PREFIX", "example_names", "example_path", "examples"]
