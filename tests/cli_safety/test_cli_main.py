"""The top-level command line (issue 15): --version, --debug anywhere, close-match suggestions, exit
codes in every help, and errors as JSON under --format json (exit 2, nothing else on stdout)."""
from __future__ import annotations

import json
from importlib.metadata import version

import jsonschema
import pytest

from verify.cli.main import COMMANDS, build_parser, main
from verify.report import schema_path


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's --help / --version
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_version_is_the_installed_distribution(capsys) -> None:
    code, out, _ = _run(capsys, "--version")
    assert code == 0 and out.strip() == f"verify (consensus-verify) {version('consensus-verify')}"


@pytest.mark.parametrize("argv", [["--debug", "list"], ["list", "--debug"], ["list", "--format", "json", "--debug"]])
def test_debug_is_accepted_before_or_after_the_command(capsys, argv) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 0 and "weights" in out and err == ""


def test_a_misspelt_command_gets_a_suggestion(capsys) -> None:
    code, out, err = _run(capsys, "theorm", "4.2")
    assert code == 2 and out == ""
    assert "did you mean 'theorem'?" in err and "Traceback" not in err


def test_a_misspelt_option_gets_a_suggestion(capsys) -> None:
    code, _, err = _run(capsys, "theorem", "4.2", "--no-simulat", "--t-ed", "3")
    assert code == 2
    assert "--t-ed -> --t-end" in err


def test_every_help_lists_the_exit_codes() -> None:
    parser = build_parser()
    helps = [parser.format_help()]
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    helps += [sub.choices[name].format_help() for name in COMMANDS if name in sub.choices]
    assert len(helps) == len(COMMANDS) + 1
    top = " ".join(helps[0].split())
    assert "exit codes: 0 holds / certified, 1 crash, 2 bad input" in top and "5 certificate invalid" in top
    for text in helps:
        flat = " ".join(text.split())
        assert "exit codes: 0 " in flat and "2 " in flat.split("exit codes:")[1], flat[-300:]
        assert "``" not in text and ":func:" not in text and ":class:" not in text, "reST markup in a help text"


@pytest.mark.parametrize("argv, field, got", [
    (["theorem", "9.9"], "theorem id", "9.9"),
    (["theorm"], "COMMAND", "theorm"),
    (["theorem", "4.2", "--t-end", "abc"], "--t-end", "abc"),
    (["sos", "x^2 +* 1"], None, None),
])
def test_errors_are_json_under_format_json(capsys, argv, field, got) -> None:
    code, out, err = _run(capsys, *argv, "--format", "json")
    assert code == 2 and err.strip(), "the human message still goes to stderr"
    payload = json.loads(out)  # stdout is exactly one JSON document
    jsonschema.validate(payload, json.loads(schema_path("error").read_text()))
    assert payload["kind"] == "error" and payload["error"]["message"]
    if field is not None:
        assert payload["error"]["field"] == field and payload["error"]["got"] == got


def test_text_errors_leave_stdout_empty(capsys) -> None:
    code, out, err = _run(capsys, "theorem", "9.9")
    assert code == 2 and out == "" and "unknown theorem id '9.9'" in err
