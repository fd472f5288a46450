"""The examples and docs shipped as package data (issue 24, "a wheel that stands alone"), in process.

``verify examples [NAME] [--copy DIR]``, ``verify docs [TOPIC]`` and ``--instance example:NAME`` on
every command that takes an instance; the packaged files agree byte for byte with the clone's
``examples/*.json`` and ``docs/*.md``; help texts name ``verify docs TOPIC``, never a path of the
clone.  ``test_wheel_stands_alone.py`` runs the README's commands from an installed wheel.
"""
from __future__ import annotations

import argparse
import importlib
import json
import re
from pathlib import Path

import jsonschema
import pytest

import verify
from theorems.errors import InvalidInput, UnknownName
from verify.api.docs import doc_topics
from verify.instances import DIRECTORY as EXAMPLES_DATA
from verify.instances import example_names
from verify.cli.main import API, COMMANDS, build_parser, main
from verify.report import schema_path

ROOT = Path(__file__).resolve().parents[2]
DEV_ONLY_DOCS = {"adding-a-result": "for contributors: edits files of the clone",
                 "dop853-kernel": "notes on a compiled kernel's source"}
"""docs/*.md pages not shipped in the package, with the reason."""


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_packaged_examples_are_the_clone_s_examples_byte_for_byte() -> None:
    clone = {p.stem: p.read_bytes() for p in (ROOT / "examples").glob("*.json")}
    packaged = {p.stem: p.read_bytes() for p in EXAMPLES_DATA.glob("*.json")}
    assert len(packaged) >= 8 and set(packaged) == set(example_names())
    stale = sorted(n for n in clone.keys() | packaged.keys() if clone.get(n) != packaged.get(n))
    assert not stale, (f"examples/ and verify/data/examples/ differ for {stale}: the package ships "
                       "verify/data/examples/NAME.json; copy the edited file over the other")


def test_packaged_docs_are_the_clone_s_docs_byte_for_byte() -> None:
    data = ROOT / "verify" / "data" / "docs"
    expected = {p.stem for p in (ROOT / "docs").glob("*.md")} - set(DEV_ONLY_DOCS)
    assert set(doc_topics()) == expected, "every docs/*.md page ships (or is listed in DEV_ONLY_DOCS with why)"
    stale = [t for t in sorted(expected) if (data / f"{t}.md").read_bytes() != (ROOT / "docs" / f"{t}.md").read_bytes()]
    assert not stale, (f"docs/ and verify/data/docs/ differ for {stale}: `verify docs TOPIC` prints the packaged "
                       "copy; after editing docs/TOPIC.md run: cp docs/TOPIC.md verify/data/docs/")


@pytest.mark.parametrize("name", example_names())
def test_every_example_reads_as_an_instance_and_says_what_it_is(name) -> None:
    from verify.instances import resolve_instance

    system = resolve_instance(f"example:{name}")
    data = json.loads((EXAMPLES_DATA / f"{name}.json").read_text())
    assert system.name == data["name"] and system.N == len(data["tokens"]) and data.get("description")


def test_the_listing_has_one_line_per_example_and_follows_its_schema(capsys) -> None:
    code, out, err = _run(capsys, "examples")
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert [line.split()[0] for line in lines[:len(example_names())]] == list(example_names())
    assert lines[len(example_names())] == "" and "example:NAME" in lines[-1]
    for argv in (["examples"], ["examples", "late_entry"], ["docs"], ["docs", "format"]):
        code, out, _ = _run(capsys, *argv, "--format", "json")
        payload = json.loads(out)
        jsonschema.validate(payload, json.loads(schema_path(payload["kind"]).read_text()))
        assert code == 0 and payload["status"] == "ok"


def test_an_example_prints_as_its_json(capsys) -> None:
    code, out, _ = _run(capsys, "examples", "no_entry")
    assert code == 0 and json.loads(out) == json.loads((EXAMPLES_DATA / "no_entry.json").read_text())
    report = verify.examples("no_entry")
    assert report.to_json()["instance"]["name"] == "no-entry" and report.exit_code == 0


COVERED = {
    "assumptions": (["assumptions", "3.2", "--instance", "example:hemisphere_full"], 0),
    "theorem": (["theorem", "4.4-sym-later", "--instance", "example:counterexample_4_4_sym", "--no-simulate"], 3),
    "depth": (["depth", "3.2", "--model", "layers", "--instance", "example:late_entry", "--no-simulate"], 0),
    "fate": (["fate", "--instance", "example:counterexample_same_sign"], 0),
    "simulate": (["simulate", "--instance", "example:hemisphere_full", "--t-end", "1", "--points", "5"], 0),
}
"""One call per command that takes an instance, with the exit code its example gives."""


def test_every_command_with_an_instance_is_covered() -> None:
    takes = {name for name in API if any(o.name == "instance" for o in importlib.import_module(API[name]).COMMAND.options)}
    assert takes == set(COVERED), "a command takes --instance: add its example:NAME call to COVERED"


@pytest.mark.parametrize("command", sorted(COVERED))
def test_example_name_works_for_every_command_that_takes_an_instance(command, capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # outside the clone: no examples/ directory here
    argv, expected = COVERED[command]
    code, out, err = _run(capsys, *argv)
    assert code == expected, out[-2000:] + err
    bad = [a.replace("example:", "example:x") if a.startswith("example:") else a for a in argv]
    code, _, err = _run(capsys, *bad)
    assert code == 2 and "unknown example" in err and "did you mean" in err


def test_the_api_takes_example_names_and_refuses_unknown_ones() -> None:
    assert verify.assumptions("3.2", instance="example:hemisphere_full").verdict == "holds"
    with pytest.raises(UnknownName, match="did you mean 'hemisphere_full'"):
        verify.assumptions("3.2", instance="example:hemisphere-full")


def test_a_clone_path_outside_the_clone_names_the_packaged_example(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "assumptions", "3.2", "--instance", "examples/hemisphere_full.json")
    assert code == 2 and out == ""
    assert "--instance: expected a readable JSON file" in err and "example:hemisphere_full" in err
    code, out, _ = _run(capsys, "theorem", "4.2", "--instance", "examples/hemisphere_ful.json", "--format", "json")
    assert code == 2 and json.loads(out)["kind"] == "error"


def test_unknown_names_exit_2_with_close_matches(capsys) -> None:
    code, out, err = _run(capsys, "examples", "late-entry")
    assert code == 2 and out == "" and "unknown example 'late-entry'; did you mean 'late_entry'" in err
    code, out, err = _run(capsys, "docs", "formt", "--format", "json")
    payload = json.loads(out)
    assert code == 2 and payload["kind"] == "error" and payload["error"]["got"] == "formt"
    assert "did you mean 'format'" in err


def test_copy_writes_refuses_to_overwrite_and_is_all_or_nothing(capsys, tmp_path) -> None:
    code, out, _ = _run(capsys, "examples", "late_entry", "--copy", str(tmp_path))
    target = tmp_path / "late_entry.json"
    assert code == 0 and out.strip() == f"copied example late_entry to {target}"
    assert target.read_bytes() == (EXAMPLES_DATA / "late_entry.json").read_bytes()
    target.write_text("{}")
    code, _, err = _run(capsys, "examples", "--copy", str(tmp_path))  # every example: one exists already
    assert code == 2 and "pass --force" in err and "--copy" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["late_entry.json"] and target.read_text() == "{}"
    code, _, _ = _run(capsys, "examples", "--copy", str(tmp_path), "--force")
    assert code == 0 and sorted(p.stem for p in tmp_path.glob("*.json")) == list(example_names())
    assert target.read_bytes() == (EXAMPLES_DATA / "late_entry.json").read_bytes()
    code, _, err = _run(capsys, "examples", "late_entry", "--copy", "/dev/null")
    assert code == 2 and "character device" in err
    with pytest.raises(InvalidInput):
        verify.examples(5)


def test_docs_list_and_print_the_packaged_pages(capsys) -> None:
    code, out, _ = _run(capsys, "docs")
    assert code == 0 and re.search(r"^format +The attention-system format$", out, re.MULTILINE)
    code, out, _ = _run(capsys, "docs", "format")
    assert code == 0 and out.startswith("# The attention-system format") and "example:NAME" in out


def test_help_texts_point_to_verify_docs_never_to_a_path_of_the_clone() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {name: " ".join(sub.choices[name].format_help().split()) for name in COMMANDS}
    for name, text in helps.items():
        assert not re.search(r"docs/|examples/|\.md\b", text), (name, text)
    assert "verify docs format" in helps["simulate"] and "verify docs coq" in helps["theorem"]
    assert "[NAME]" in helps["examples"] and "[TOPIC]" in helps["docs"]


def test_every_package_is_marked_typed() -> None:
    for package in ("theorems", "verify", "numerics", "llm_checks"):
        assert (ROOT / package / "py.typed").is_file(), package


def test_the_generated_calls_carry_type_annotations() -> None:
    import inspect

    from verify.report import Report

    for name in sorted(verify._API):  # the calls generated from an option table
        sig = inspect.signature(getattr(verify, name))
        assert sig.return_annotation is Report, name
        assert all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values()), name
