"""The ``verify`` command: a thin renderer over library calls.

Each sub-command lives in its own module ``verify.cli.cmd_<name>`` exposing
``add_parser(subparsers)`` and ``run(args) -> int``.  Exit codes (STYLE.md §8): 0 certified /
all hold, 1 crash, 2 usage or bad input (including an output target that is refused or an option
above its limit), 3 refuted / some hypothesis fails, 4 inconclusive, 5 certificate invalid
(``verify recheck``: a well-formed certificate that fails its exact re-check proves nothing; it is
not a refutation of its claim).
"""
from __future__ import annotations

import argparse
import importlib
import logging
import sys

from theorems.errors import ConsensusVerifyError

from .common import EXIT_CRASH, EXIT_USAGE, UsageError

COMMANDS = (
    "list",
    "assumptions",
    "theorem",
    "sos",
    "lyapunov",
    "recheck",
    "simulate",
    "audit",
    "consensus",
    "reproduce",
    "depth",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would exit 2 with usage; keep that, add a hint
        self.print_usage(sys.stderr)
        sys.stderr.write(f"verify: error: {message}\n")
        raise SystemExit(EXIT_USAGE)

    def format_help(self) -> str:
        if callable(self.description):  # computed on demand (``verify simulate``'s preset list: cold start)
            self.description = self.description()
        return super().format_help()


EPILOG = ("exit codes: 0 holds / certified, 1 crash, 2 bad input or usage (a message naming the field or option), "
          "3 refuted, 4 inconclusive, 5 certificate invalid (verify recheck: the certificate proves nothing). "
          "Commands that write files refuse to replace an existing file without --force, and never write to a "
          "directory, device, FIFO or symbolic link given as a file.")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verify", description="Exact and numerical verification of consensus in attention dynamics.",
                     epilog=EPILOG)
    parser.add_argument("--debug", action="store_true", help="show tracebacks on crashes")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"verify.cli.cmd_{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"verify.cli.cmd_{name}":
                continue  # command not built in this installation
            raise
        module.add_parser(sub)
    return parser


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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(_attach_negative_values(list(sys.argv[1:] if argv is None else argv)))
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.run(args))
    except (UsageError, ConsensusVerifyError) as exc:
        sys.stderr.write(f"verify {args.command}: error: {exc}\n")
        return EXIT_USAGE
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
