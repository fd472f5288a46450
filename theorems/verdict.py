"""Three-valued verdicts with evidence.

Every predicate, certificate search and audit answers with a :class:`Verdict`: a
:class:`Status` (holds / fails / unknown), a human reason and a JSON-serialisable witness that
can be re-checked by something other than the code that produced it.  A verdict is never a bare
``bool`` and "unknown" is always explicit, never a function falling off its end.
"""
from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .errors import InvalidInput


class ExitCode(enum.IntEnum):
    """The exit codes of the ``verify`` command (README): the one table of them."""

    OK = 0
    CRASH = 1
    USAGE = 2
    REFUTED = 3
    INCONCLUSIVE = 4
    CERT_INVALID = 5
    """``verify recheck``: a well-formed certificate whose exact re-check fails (proves and refutes nothing)."""
    NOT_APPLICABLE = 6
    """A hypothesis fails on this input: the result does not apply (it claims nothing here; nothing is refuted)."""

    @property
    def meaning(self) -> str:
        return _MEANING[self]


_MEANING = {ExitCode.OK: "holds / certified", ExitCode.CRASH: "crash",
            ExitCode.USAGE: "bad input or usage (a message naming the field or option)",
            ExitCode.REFUTED: "refuted", ExitCode.INCONCLUSIVE: "inconclusive",
            ExitCode.CERT_INVALID: "certificate invalid (verify recheck: the certificate proves nothing)",
            ExitCode.NOT_APPLICABLE: "does not apply (a hypothesis fails: the result claims nothing here; not a refutation)"}
VERDICT_EXIT = {"holds": ExitCode.OK, "fails": ExitCode.REFUTED, "unknown": ExitCode.INCONCLUSIVE,
                "certificate_invalid": ExitCode.CERT_INVALID, "not_applicable": ExitCode.NOT_APPLICABLE}
"""The exit code each verdict of a report carries."""


def applicability(status: "Status", refuted: bool = False) -> str:
    """The verdict of a report about a result on an input: ``status`` (its hypotheses and proof
    composed) as a report states it.  A ``FAILS`` that is not a refutation (``refuted``: a
    re-checked counterexample to the conclusion) means a hypothesis fails: ``"not_applicable"``."""
    return "not_applicable" if status is Status.FAILS and not refuted else status.value


class Status(enum.Enum):
    HOLDS = "holds"
    FAILS = "fails"
    UNKNOWN = "unknown"

    @property
    def exit_code(self) -> int:
        """CLI exit code carried by the verdict: 0 holds, 3 fails (refuted), 4 unknown."""
        return VERDICT_EXIT[self.value]


@dataclass(frozen=True)
class Verdict:
    """The answer to one question, with the evidence behind it.

    ``name`` identifies the question (a predicate id such as ``"P_bounded"``), ``reason`` says in
    one sentence why, ``witness`` holds re-checkable data (exact rationals as strings) and
    ``exact`` says whether the answer was reached in exact arithmetic (a float measurement that
    fails is still a failure; a float measurement never makes a hypothesis hold unless it is a
    proven bound).  ``evidence`` is the typed payload (a frozen record, e.g.
    :class:`theorems.predicates.evidence.PBound`) that proofs read instead of witness keys; it is
    not serialised (the witness carries the same data as JSON).

    Fields are validated at construction: ``Verdict("x", "holds", "r")`` raises
    :class:`~theorems.errors.InvalidInput` (a string is not a :class:`Status`).
    """

    name: str
    status: Status
    reason: str
    witness: Mapping[str, Any] = field(default_factory=dict)
    exact: bool = True
    evidence: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidInput("Verdict.name", "a non-empty string", self.name)
        if not isinstance(self.status, Status):
            raise InvalidInput("Verdict.status", "a Status member (Status.HOLDS, FAILS or UNKNOWN)", self.status,
                               "use theorems.verdict.holds/fails/unknown")
        if not isinstance(self.reason, str):
            raise InvalidInput("Verdict.reason", "a string", self.reason)
        if not isinstance(self.witness, Mapping):
            raise InvalidInput("Verdict.witness", "a mapping", type(self.witness).__name__)
        if type(self.exact).__name__ not in ("bool", "bool_"):  # numpy's bool_ is accepted and stored as bool
            raise InvalidInput("Verdict.exact", "a bool", self.exact)
        object.__setattr__(self, "exact", bool(self.exact))
        ev = self.evidence
        if ev is not None and not (dataclasses.is_dataclass(ev) and not isinstance(ev, type)
                                   and type(ev).__dataclass_params__.frozen):
            raise InvalidInput("Verdict.evidence", "a frozen dataclass instance or None", type(ev).__name__)

    @property
    def holds(self) -> bool:
        return self.status is Status.HOLDS

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "verdict": self.status.value,
            "reason": self.reason,
            "exact": self.exact,
            "witness": _jsonable(self.witness),
        }


def holds(name: str, reason: str, witness: Mapping[str, Any] | None = None, exact: bool = True,
          evidence: Any = None) -> Verdict:
    return Verdict(name, Status.HOLDS, reason, dict(witness or {}), exact, evidence)


def fails(name: str, reason: str, witness: Mapping[str, Any] | None = None, exact: bool = True,
          evidence: Any = None) -> Verdict:
    return Verdict(name, Status.FAILS, reason, dict(witness or {}), exact, evidence)


def unknown(name: str, reason: str, witness: Mapping[str, Any] | None = None, exact: bool = True,
            evidence: Any = None) -> Verdict:
    return Verdict(name, Status.UNKNOWN, reason, dict(witness or {}), exact, evidence)


def combine(statuses: Iterable[Status]) -> Status:
    """Conjunction in three-valued logic: any fails -> fails; else any unknown -> unknown."""
    seen = list(statuses)
    if any(s is Status.FAILS for s in seen):
        return Status.FAILS
    if any(s is Status.UNKNOWN for s in seen):
        return Status.UNKNOWN
    return Status.HOLDS


def _jsonable(value: Any) -> Any:
    """Convert witnesses to JSON: sympy numbers become exact strings, numpy arrays lists."""
    import numpy as np
    import sympy

    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, sympy.Basic):
        if isinstance(value, sympy.Integer):
            return int(value)
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    return value
