"""``verify examples [NAME] [--copy DIR]``: the example instances shipped inside the package.

The instances and their resolution (``example:NAME`` for every command that takes an instance)
are :mod:`verify.instances`'s.  Unknown names raise
:class:`~theorems.errors.UnknownName` with the close matches (exit 2).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verify.instances import PREFIX, example_names, example_path
from verify.outputs import Target, check_dir, check_targets, write_all
from verify.report import Report

from ._table import FORCE, Command, Option, api

SUMMARY_WIDTH = 72

COMMAND = Command(
    "examples", "examples", "list, print or copy the example instances shipped with the package",
    "verify examples: list the packaged example instances; verify examples NAME prints one (JSON); "
    "--copy DIR writes it (every example without NAME) to DIR. Any --instance takes example:NAME as well.",
    """The example instances shipped in the package.

    Without ``name``: the catalogue (``payload["examples"]``: name, instance name, mask, N, d, H,
    description).  With ``name``: that instance's JSON text (``text``) and parsed data
    (``payload["instance"]``).  ``copy``: a directory receiving ``NAME.json`` (every example when
    ``name`` is None), checked before anything is written; an existing file is replaced only with
    ``force``.  Unknown names raise :class:`~theorems.errors.UnknownName` with close matches.""",
    (Option("name", "text", None, flag="NAME", positional=True,
            expected="an example name as text (see 'verify examples')",
            help="an example's name (see the list printed without it); --instance example:NAME reads it",
            cli={"nargs": "?"}),
     Option("copy", "path", metavar="DIR", help="write NAME.json (every example without NAME) into DIR"),
     FORCE))


def _entry(name: str) -> dict[str, Any]:
    data = json.loads(example_path(name).read_text(encoding="utf-8"))
    return {"name": name, "instance_name": data.get("name", name), "mask": data.get("mask"),
            "N": len(data.get("tokens", [])), "d": data.get("d"), "H": len(data.get("heads", [])),
            "description": data.get("description", "")}


def _summary(description: str) -> str:
    """The first clause of a description, cut at a word to fit one line."""
    first = description.split("; ")[0].split(". ")[0].rstrip(".")
    if len(first) <= SUMMARY_WIDTH:
        return first
    return first[:SUMMARY_WIDTH - 3].rsplit(" ", 1)[0] + " ..."


def _listing(entries: list[dict[str, Any]]) -> str:
    width = max(len(e["name"]) for e in entries)
    lines = [f"{e['name']:<{width}}  {e['mask']:<6} N={e['N']:<2} d={e['d']} H={e['H']}  {_summary(e['description'])}"
             for e in entries]
    hint = "verify examples NAME [--copy DIR]   prints one (or writes NAME.json into DIR); --instance example:NAME reads it"
    return "\n".join([*lines, "", hint])


def _examples(name: str | None, copy: str | None, force: bool) -> Report:
    names = (example_path(name).stem,) if name is not None else example_names()
    if copy is not None:  # every target is checked before anything is written (verify.outputs)
        check_dir("copy", Path(copy))
        targets = [Target("copy", Path(copy) / f"{n}.json") for n in names]
        check_targets(targets, force)
        files = write_all([(t, example_path(n).read_bytes()) for t, n in zip(targets, names)], force)
        text = "\n".join(f"copied example {n} to {path}" for n, path in zip(names, files))
        return Report("examples", {"status": "ok", "examples": [_entry(n) for n in names],
                                   "files": [str(f) for f in files]}, text, exit_code=0, files=tuple(files))
    if name is None:
        entries = [_entry(n) for n in names]
        return Report("examples", {"status": "ok", "examples": entries}, _listing(entries), exit_code=0)
    raw = example_path(name).read_text(encoding="utf-8")
    return Report("examples", {"status": "ok", "examples": [_entry(name)], "instance": json.loads(raw)},
                  raw.rstrip("\n"), exit_code=0)


examples = api(COMMAND, _examples, __name__)

__all__ = ["COMMAND", "PREFIX", "example_names", "example_path", "examples"]
