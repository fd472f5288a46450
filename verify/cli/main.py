"""The ``verify`` command: a thin renderer over library calls.

Every command is generated from its option table (:mod:`verify.api._table`): the sub-parser, and the
call :func:`run` makes of the parsed line (the API function with the same keywords, plus progress bars
and messages on stderr).  Errors name the options as the API does; :func:`verify.api._table.for_cli`
renames them to flags, here only.  Exit codes (``theorems.verdict.ExitCode``) end ``--help``.
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

from theorems.errors import ConsensusVerifyError, InvalidInput
from theorems.verdict import ExitCode
from verify.report import KINDS, error_payload

COMMANDS = tuple(kind for kind in KINDS if kind != "error")
"""The commands, in ``verify --help`` order: every report kind but ``error``."""
API = {name: "verify.api." + ("listing" if name == "list" else name) for name in COMMANDS}
"""The module holding each command's ``COMMAND`` and function."""
SAVED = {"theorem": lambda r: f"the report and {len(r.files) - 1} certificate(s)",
         "depth": lambda r: "the report" + (" and the depth certificate" if r.record.certificate is not None else ""),
         "fate": lambda r: "the report" + (" and the fate certificate" if r.record.certificate is not None else "")}
"""What ``--save DIR`` wrote, said on stderr."""
PROGRESS = {"consensus": "consensus blocks"}
"""The progress bar's label where it is not the command's name."""


class UsageError(ConsensusVerifyError):
    """argparse rejected the command line (raised by :meth:`_Parser.error`, reported by :func:`main`):
    ``field`` the option, ``expected`` and ``got`` read off argparse's message (for the JSON error)."""

    def __init__(self, prog: str, usage: str, message: str) -> None:
        m = re.match(r"argument ([^:]+):", message)
        self.prog, self.usage, self.field = prog, usage, m.group(1).split("/")[-1] if m else None
        self.expected, self.got = None, None
        if m := _INVALID_CHOICE.search(message):  # the close matches added (``verify theorm``)
            known = re.findall(r"'([^']*)'", m.group("known"))
            self.expected, self.got = "one of: " + ", ".join(known), m.group("got")
            close = difflib.get_close_matches(self.got, known, n=3, cutoff=0.6)
            message += f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        elif m := re.search(r"invalid (\w+) value: '(.*)'", message):
            self.expected, self.got = f"a {m.group(1)} value", m.group(2)
        elif "expected one argument" in message:
            self.expected = "one value"
        elif m := re.search(r"unrecognized arguments: (.*)", message):
            self.expected, self.got = "no further arguments", m.group(1)
        super().__init__(message)


_INVALID_CHOICE = re.compile(r"argument (?P<arg>[^:]+): invalid choice: '(?P<got>[^']*)' \(choose from (?P<known>.*)\)")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would exit 2 with usage; main() reports it (text or JSON)
        raise UsageError(self.prog, self.format_usage(), message)

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
        importlib.import_module(API[name]).COMMAND.add_parser(sub)
    for command in sub.choices.values():  # every sub-command's help ends with the exit codes too
        if not command.epilog:
            command.epilog = EXIT_CODES
    return parser


def run(args, **callbacks) -> int:
    """The API call of a parsed command line, with what only a terminal has (:func:`_terminal`);
    ``callbacks`` (``progress``, ``on_event``) replace the terminal's."""
    command = args.command_table
    if command.name == "reproduce" and args.device.startswith("cuda") and not args.no_llm:
        _check_gpu(args.device)
    extras = {**_terminal(args, command), **callbacks}
    report = getattr(importlib.import_module(API[command.name]), command.function)(**command.values(args), **extras)
    if command.name in SAVED and getattr(args, "save", None):
        sys.stderr.write(f"saved {SAVED[command.name](report)} to {Path(args.save)}\n")
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_json(), indent=2, sort_keys=False) + "\n")
    else:
        sys.stdout.write((report.text or "").rstrip("\n") + "\n")
    return report.exit_code


def _check_gpu(device: str) -> None:
    """``reproduce --device cuda[:N]`` must name a GPU this torch build sees (the LLM cases would fail one by
    one otherwise), checked before any work."""
    from llm_checks._deps import require_torch  # MissingDependency with the install command when torch is absent

    torch = require_torch()
    index = int(device.split(":", 1)[1]) if ":" in device and device.split(":", 1)[1].isdigit() else 0
    seen = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if index >= seen:
        raise InvalidInput("device", "cpu or an available CUDA device", device, hint=f"this torch build sees {seen} GPU(s)")


def _terminal(args, command) -> dict:
    """A progress bar (tqdm on a terminal, a few plain lines in a log) and the loader's messages on stderr,
    for the commands with those callbacks; ``--no-progress`` silences both (``simulate`` shows progress with
    ``--progress`` or on a terminal).  Dask's INFO chatter stays off the terminal."""
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
        def on_event(message: str) -> None:  # one line each on stderr
            if enabled:
                sys.stderr.write(message.rstrip("\n") + "\n")
                sys.stderr.flush()

        extras["on_event"] = on_event
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
    for arg in argv:
        if out and out[-1] in VALUE_OPTIONS and arg.startswith("-"):
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _suggest_option(parser: argparse.ArgumentParser, argv: list[str], message: str) -> str:
    """For ``unrecognized arguments: --t-ed``, the sub-command's close option names."""
    m = re.search(r"unrecognized arguments: (.*)", message)
    command = next((a for a in argv if a in COMMANDS), None)
    if not m or command is None:
        return message
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
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
        sys.stdout.write(json.dumps(error_payload(exc), indent=2, allow_nan=False) + "\n")
    return ExitCode.USAGE


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # accepted before or after the sub-command
    argv = _format_after_command(_attach_negative_values([a for a in argv if a != "--debug"]))
    as_json = _wants_json(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        if not as_json:
            sys.stderr.write(exc.usage)
        exc.args = (_suggest_option(parser, argv, str(exc)),)
        return _report_error(exc, exc.prog, as_json)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    try:
        return int(run(args))
    except ConsensusVerifyError as exc:
        from verify.api._table import for_cli

        return _report_error(for_cli(exc, args.command_table.flags), f"verify {args.command}", as_json)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return ExitCode.CRASH
    except Exception as exc:  # a crash: one line, traceback only with --debug
        if debug:
            raise
        sys.stderr.write(f"verify {args.command}: internal error ({type(exc).__name__}: {exc}); "
                         "rerun with --debug for a traceback\n")
        return ExitCode.CRASH


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
