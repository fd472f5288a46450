"""The ``verify`` command: a thin renderer over library calls.

Every command is generated from its option table (:mod:`verify.api._table`): the sub-parser, and
the call :func:`run` makes of the parsed line (the API function with the same keywords, and what only
a terminal has: progress bars and messages on stderr; ``verify.cli.cmd_reproduce`` runs the
reproduction and writes its directory).  Errors name the options as the API does; :func:`verify.api._table.for_cli`
renames them to flags, here and nowhere else.  Exit codes (STYLE.md §8): 0 certified /
all hold, 1 crash, 2 usage or bad input (including an output target that is refused or an option
above its limit), 3 refuted / some hypothesis fails, 4 inconclusive, 5 certificate invalid
(``verify recheck``: a well-formed certificate that fails its exact re-check proves nothing; it is
not a refutation of its claim).
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import json
import logging
import os
import re
import sys
from pathlib import Path

from theorems.errors import ConsensusVerifyError
from theorems.verdict import ExitCode

from .common import EXIT_CRASH, EXIT_USAGE, UsageError, emit, say

API = {"list": "verify.api.listing", "assumptions": "verify.api.assumptions", "theorem": "verify.api.theorem",
       "sos": "verify.api.sos", "lyapunov": "verify.api.lyapunov", "recheck": "verify.api.recheck",
       "simulate": "verify.api.simulate", "audit": "verify.api.audit", "consensus": "verify.api.consensus",
       "depth": "verify.api.depth", "reproduce": "verify.api.reproduce", "fate": "verify.api.fate",
       "examples": "verify.api.examples", "docs": "verify.api.docs"}
"""The commands generated from an option table: the module holding ``COMMAND`` and its function."""
HOOKS = ("reproduce",)
"""Commands with a ``verify.cli.cmd_<name>`` module whose ``run(args)`` replaces :func:`run`."""
COMMANDS = ("list", "assumptions", "theorem", "sos", "lyapunov", "recheck", "simulate", "audit", "consensus",
            "reproduce", "depth", "fate", "examples", "docs")
SAVED = {"theorem": lambda r: f"the report and {len(r.files) - 1} certificate(s)",
         "depth": lambda r: "the report" + (" and the depth certificate" if r.record.certificate is not None else ""),
         "fate": lambda r: "the report" + (" and the fate certificate" if r.record.certificate is not None else "")}
"""What ``--save DIR`` wrote, said on stderr."""
PROGRESS = {"consensus": "consensus blocks"}
"""The progress bar's label where it is not the command's name."""


class _ArgumentError(Exception):
    """argparse rejected the command line (raised by :meth:`_Parser.error`, reported by :func:`main`)."""

    def __init__(self, prog: str, usage: str, message: str, option: str | None) -> None:
        super().__init__(message)
        self.prog, self.usage, self.option = prog, usage, option


_INVALID_CHOICE = re.compile(r"argument (?P<arg>[^:]+): invalid choice: '(?P<got>[^']*)' \(choose from (?P<known>.*)\)")


def _did_you_mean(message: str) -> str:
    """argparse's "invalid choice" message with the close matches first (``verify theorm``)."""
    m = _INVALID_CHOICE.search(message)
    if not m:
        return message
    known = re.findall(r"'([^']*)'", m.group("known"))
    close = difflib.get_close_matches(m.group("got"), known, n=3, cutoff=0.6)
    if not close:
        return message
    return f"{message}; did you mean {' or '.join(repr(c) for c in close)}?"


def _expected_got(message: str) -> tuple[str | None, str | None]:
    """What argparse expected and what arrived, read off its message (for the JSON error)."""
    m = _INVALID_CHOICE.search(message)
    if m:
        return "one of: " + ", ".join(re.findall(r"'([^']*)'", m.group("known"))), m.group("got")
    m = re.search(r"invalid (\w+) value: '(.*)'", message)
    if m:
        return f"a {m.group(1)} value", m.group(2)
    if "expected one argument" in message:
        return "one value", None
    m = re.search(r"unrecognized arguments: (.*)", message)
    if m:
        return "no further arguments", m.group(1)
    return None, None


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would exit 2 with usage; main() reports it (text or JSON)
        m = re.match(r"argument ([^:]+):", message)
        option = m.group(1).split("/")[-1] if m else None
        raise _ArgumentError(self.prog, self.format_usage(), _did_you_mean(message), option)

    def format_help(self) -> str:
        if callable(self.description):  # computed on demand (``verify simulate``'s preset list: cold start)
            self.description = self.description()
        return super().format_help()


EXIT_CODES = "exit codes: " + ", ".join(f"{int(c)} {c.meaning}" for c in ExitCode) + "."
EPILOG = (EXIT_CODES + " "
          "Commands that write files refuse to replace an existing file without --force, and never write to a "
          "directory, device, FIFO or symbolic link given as a file.")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verify", description="Exact and numerical verification of consensus in attention dynamics.",
                     epilog=EPILOG)
    parser.add_argument("--debug", action="store_true", help="show tracebacks on crashes (accepted anywhere on the line)")
    parser.add_argument("--version", action="version", version=f"verify (consensus-verify) {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        hooks = importlib.import_module(f"verify.cli.cmd_{name}") if name in HOOKS else None
        importlib.import_module(API[name]).COMMAND.add_parser(sub).set_defaults(run=run if hooks is None else hooks.run)
    for command in sub.choices.values():  # every sub-command's help ends with the exit codes too
        if not command.epilog:
            command.epilog = EXIT_CODES
    return parser


def run(args, **extras) -> int:
    """The API call of a parsed command line, with what only a terminal has (:func:`_terminal`);
    ``extras``: callbacks a ``cmd_<name>`` module adds."""
    command = args.command_table
    extras = {**_terminal(args, command), **extras}
    report = getattr(importlib.import_module(API[command.name]), command.function)(**command.values(args), **extras)
    if command.name in SAVED and getattr(args, "save", None):
        sys.stderr.write(f"saved {SAVED[command.name](report)} to {Path(args.save)}\n")
    emit(report.text, report.to_json(), args.format)
    return report.exit_code


def _terminal(args, command) -> dict:
    """A progress bar (the one renderer: tqdm on a terminal, a few plain lines in a log) and the
    loader's messages on stderr, for the commands whose table has those callbacks; ``--no-progress``
    silences both (``simulate`` shows progress with ``--progress`` or on a terminal).  Dask's INFO
    chatter stays off the terminal when a command runs on a cluster."""
    names = {o.name for o in command.options}
    if getattr(args, "workers", None) is not None or getattr(args, "scheduler", None) is not None:
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")
    enabled = not args.no_progress if "no_progress" in names else bool(getattr(args, "show_progress", False)
                                                                        or sys.stderr.isatty())
    extras = {}
    if "progress" in names:
        from numerics.support.progress import TextProgress

        extras["progress"] = TextProgress(sys.stderr, PROGRESS.get(command.name, command.name), enabled)
    if "on_event" in names:
        extras["on_event"] = say(enabled)
    return extras


def _version() -> str:
    """The installed distribution's version (the package's own when run from a source tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("consensus-verify")
    except PackageNotFoundError:
        from verify import __version__

        return __version__


VALUE_OPTIONS = ("--field", "--on")
"""Options whose value is an expression that may start with a minus sign (``--field "-x"``)."""


def _attach_negative_values(argv: list[str]) -> list[str]:
    """argparse reads ``-x`` after ``--field`` as an option; join such values as ``--field=-x``."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in VALUE_OPTIONS and i + 1 < len(argv) and argv[i + 1].startswith("-"):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def _suggest_option(parser: argparse.ArgumentParser, argv: list[str], message: str) -> str:
    """For ``unrecognized arguments: --t-ed``, the sub-command's close option names."""
    m = re.search(r"unrecognized arguments: (.*)", message)
    command = next((a for a in argv if a in COMMANDS), None)
    if not m or command is None:
        return message
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices.get(command)
    if sub is None:
        return message
    known = sorted(o for o in sub._option_string_actions if o.startswith("--"))
    hints = [f"{bad} -> {' or '.join(close)}" for bad in m.group(1).split() if bad.startswith("-")
             for close in [difflib.get_close_matches(bad.split("=")[0], known, n=2, cutoff=0.6)] if close]
    return message + (f" (did you mean: {'; '.join(hints)}?)" if hints else "")


def _is_format(arg: str) -> bool:
    """``--format`` or an abbreviation argparse accepts for it (``--form``)."""
    return len(arg) >= 4 and "--format".startswith(arg)


def _wants_json(argv: list[str]) -> bool:
    """``--format json`` (or ``--form json``, ``--format=json``) anywhere on the line: errors are then
    JSON too, even when argparse fails."""
    chosen = None  # argparse keeps the last --format given
    for i, a in enumerate(argv):
        name, eq, value = a.partition("=")
        if _is_format(name):
            chosen = value if eq else (argv[i + 1] if i + 1 < len(argv) else None)
    return chosen == "json"


def _format_after_command(argv: list[str]) -> list[str]:
    """``verify --format json list`` means ``verify list --format json``: every sub-command takes it."""
    first = next((i for i, a in enumerate(argv) if a in COMMANDS), None)
    if first is None:
        return argv
    head, moved, i = [], [], 0
    while i < first:
        name, eq, _ = argv[i].partition("=")
        if _is_format(name):
            take = 1 if eq else 2
            moved += argv[i:i + take]
            i += take
        else:
            head.append(argv[i])
            i += 1
    if not moved:
        return argv
    rest = argv[max(i, first):]
    return head + rest[:1] + moved + rest[1:]


def _report_error(exc: BaseException, prefix: str, as_json: bool) -> int:
    """A usage or input error: one line on stderr, and under ``--format json`` the error payload on stdout."""
    sys.stderr.write(f"{prefix}: error: {exc}\n")
    if as_json:
        from verify.report import error_payload

        sys.stdout.write(json.dumps(error_payload(exc), indent=2, allow_nan=False) + "\n")
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # accepted before or after the sub-command
    argv = _format_after_command(_attach_negative_values([a for a in argv if a != "--debug"]))
    as_json = _wants_json(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except _ArgumentError as exc:
        if not as_json:
            sys.stderr.write(exc.usage)
        err = UsageError(_suggest_option(parser, argv, str(exc)))
        err.field, err.expected, err.got = exc.option, *_expected_got(str(exc))
        return _report_error(err, exc.prog, as_json)
    args.debug = debug
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.run(args))
    except (UsageError, ConsensusVerifyError) as exc:
        table = getattr(args, "command_table", None)
        if table is not None:
            from verify.api._table import for_cli

            exc = for_cli(exc, table.flags)
        return _report_error(exc, f"verify {args.command}", as_json)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_CRASH
    except Exception as exc:  # a crash: one line, traceback only with --debug
        if args.debug:
            raise
        sys.stderr.write(f"verify {args.command}: internal error ({type(exc).__name__}: {exc}); rerun with --debug for a traceback\n")
        return EXIT_CRASH


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
