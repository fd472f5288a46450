"""One option table per command: the parser and the API function are generated from it, so each
option is declared once; errors name the keyword in the API and the flag in the CLI."""
from __future__ import annotations

import argparse
import importlib
import inspect
import pickle

import pytest

import verify
from theorems.errors import InvalidInput
from verify.api._table import Command, OptionError, for_cli
from verify.cli.main import API, build_parser, main

FUNCTIONS = {"list": "list_results"}


def _sub(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]


@pytest.mark.parametrize("name", sorted(API))
def test_each_option_is_declared_once_and_both_fronts_come_from_it(name):
    command = importlib.import_module(API[name]).COMMAND
    assert isinstance(command, Command) and command.name == name
    if name != "reproduce":  # reproduce's library call is verify._reproduce.reproduce (a runner of cases): parser only
        function = getattr(verify, FUNCTIONS.get(name, name))
        assert function.command is command  # the public function was generated from this table
        api_names = [o.name for o in command.options if not o.cli_only]
        assert list(inspect.signature(function).parameters) == api_names
    parsed = {a.dest for a in _sub(name)._actions} - {"help", "format", "command_table", "run"}
    cli_names = {o.cli.get("dest", o.name) for o in command.options if not o.api_only}
    assert parsed == cli_names, (parsed ^ cli_names)
    spelled = {s for a in _sub(name)._actions for s in a.option_strings}
    assert {o.spelling for o in command.options if not o.api_only and o.spelling.startswith("-")} <= spelled


def test_a_duplicate_option_is_refused():
    from verify.api._table import Option

    with pytest.raises(ValueError, match="declared twice"):
        Command("x", "x", "", "", "", (Option("a"), Option("a")))


def test_the_signature_doc_and_pickling_of_a_generated_function():
    sig = inspect.signature(verify.depth)
    assert sig.parameters["eps"].default == "1/100" and sig.parameters["entry_budget"].default == 64
    assert sig.parameters["theorem_id"].default is inspect.Parameter.empty
    assert sig.parameters["model"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "entry_budget" in verify.depth.__doc__ and "--entry-budget" in verify.depth.__doc__
    assert pickle.loads(pickle.dumps(verify.depth)) is verify.depth
    with pytest.raises(TypeError):
        verify.depth("3.2", entry_budgett=3)


def test_api_errors_name_keywords_and_the_cli_renames_them_to_flags(capsys):
    with pytest.raises(InvalidInput) as info:
        verify.theorem("4.2", t_end=1e300)
    assert info.value.field == "t_end" and str(info.value).startswith("t_end: expected")
    assert main(["theorem", "4.2", "--t-end", "1e300"]) == 2
    assert "--t-end: expected a positive finite number" in capsys.readouterr().err
    with pytest.raises(InvalidInput) as info:
        verify.depth("3.2", tau="1/2")
    assert str(info.value) == "tau: expected only with model layers, got '1/2'"
    renamed = for_cli(info.value, verify.depth.command.flags)
    assert str(renamed) == "--tau: expected only with --model layers, got '1/2'" and renamed.field == "--tau"


def test_renaming_leaves_data_errors_and_other_fields_alone():
    flags = {"tokens": "--tokens", "theorem_id": "ID"}
    data = InvalidInput("tokens", "a non-empty list of vectors", 5)
    data.option_field = False
    assert for_cli(data, flags) is data
    other = InvalidInput("tokens[1]", "a vector", 2)
    assert for_cli(other, flags) is other
    assert str(for_cli(InvalidInput("theorem_id", "text", 5), flags)) == "ID: expected text, got 5"
    conflict = OptionError("tokens", "has no effect with {instance}", 4, conflict=True)
    assert str(conflict) == "tokens: has no effect with instance"
    assert str(for_cli(conflict, {**flags, "instance": "--instance"})) == "--tokens: has no effect with --instance"


def test_one_rational_parser_for_option_values():
    from theorems.rational import parse_rational

    assert parse_rational("0.01", "eps") == parse_rational("1/100", "eps") == parse_rational(0.01, "eps")
    for bad in ("1e9999", "x", True, float("nan"), "1/0", "1" * 61):
        with pytest.raises(InvalidInput):
            parse_rational(bad, "eps")
    with pytest.raises(InvalidInput, match=r"in \(0, 1\)"):
        parse_rational("1", "eps", 0, 1)
    assert parse_rational("0", "decay", 0, closed=True) == 0
    with pytest.raises(InvalidInput, match="exact rational"):
        parse_rational("0.01", "eps", decimals=False)
    assert parse_rational("1/100", "eps", decimals=False) == parse_rational("0.01", "eps")
