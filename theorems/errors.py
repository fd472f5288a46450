"""One error tree for the whole toolkit.

Failed hypotheses and inconclusive searches are *results* (see :mod:`theorems.verdict`), never
exceptions.  Exceptions are reserved for input that cannot be interpreted at all.
"""
from __future__ import annotations

import difflib
from typing import Iterable


class ConsensusVerifyError(Exception):
    """Root of every error the toolkit raises on purpose."""


class InvalidInput(ConsensusVerifyError, ValueError):
    """User input that does not have the expected form.

    ``field`` names where the problem is (a JSON path such as ``heads[0].P[1][2]``), ``expected``
    says what was wanted, ``got`` shows what arrived and ``hint`` what to try.
    """

    def __init__(self, field: str, expected: str, got: object, hint: str = "") -> None:
        self.field = field
        self.expected = expected
        self.got = got
        self.hint = hint
        shown = repr(got)
        if len(shown) > 120:
            shown = shown[:117] + "..."
        message = f"{field}: expected {expected}, got {shown}"
        if hint:
            message += f". {hint}"
        super().__init__(message)


class InvalidType(InvalidInput, TypeError):
    """Input of the wrong type (a bool where a number is expected, an unsupported schedule); also a
    ``TypeError``, so code that tells types apart by catching ``TypeError`` keeps working."""


class UnknownName(ConsensusVerifyError, KeyError):
    """A name (theorem id, preset, model) that is not in a registry; suggests close matches."""

    def __init__(self, kind: str, name: str, known: Iterable[str]) -> None:
        self.kind = kind
        self.name = name
        self.known = sorted(known)
        close = difflib.get_close_matches(name, self.known, n=3, cutoff=0.4)
        message = f"unknown {kind} {name!r}"
        if close:
            message += f"; did you mean {', '.join(repr(c) for c in close)}?"
        message += f"{'' if close else '.'} Known: {', '.join(self.known)}"
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message


class MissingDependency(ConsensusVerifyError, ImportError):
    """An optional dependency is not installed; the message carries the install command."""

    def __init__(self, package: str, install: str) -> None:
        self.package = package
        self.install = install
        super().__init__(f"{package} is not installed; install it with: {install}")
