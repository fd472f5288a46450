"""The library calls behind the ``verify`` commands, one module per command.

Each call (``verify.api.theorem.theorem``, ``verify.api.sos.sos``, ...) validates its input, does
the work, and returns a frozen :class:`verify.report.Report`: the JSON payload, the console text,
the exit code its verdict carries, the files it wrote and the typed library record behind it.
The CLI commands (``verify.cli.cmd_<name>``) only parse arguments and print the report; the
top-level package :mod:`verify` exposes the same calls lazily (``verify.theorem("4.2")``).
Nothing here prints; bad input raises :class:`theorems.errors.InvalidInput` (or another error of
the project's tree) naming the field, what was expected and what arrived.
"""

__all__: list[str] = []  # one module per command; the calls are exported by :mod:`verify`
