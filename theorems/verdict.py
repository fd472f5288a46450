"""Three-valued verdicts with evidence.

Every predicate, certificate search and audit answers with a :class:`Verdict`: a
:class:`Status` (holds / fails / unknown), a human reason and a JSON-serialisable witness that
can be re-checked by something other than the code that produced it.  A verdict is never a bare
``bool`` and "unknown" is always explicit, never a function falling off its end.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping


class Status(enum.Enum):
    HOLDS = "holds"
    FAILS = "fails"
    UNKNOWN = "unknown"

    @property
    def exit_code(self) -> int:
        """CLI exit code carried by the verdict: 0 holds, 3 fails (refuted), 4 unknown."""
        return {Status.HOLDS: 0, Status.FAILS: 3, Status.UNKNOWN: 4}[self]


@dataclass(frozen=True)
class Verdict:
    """The answer to one question, with the evidence behind it.

    ``name`` identifies the question (a predicate id such as ``"P_bounded"``), ``reason`` says in
    one sentence why, ``witness`` holds re-checkable data (exact rationals as strings) and
    ``exact`` says whether the answer was reached in exact arithmetic (a float measurement that
    fails is still a failure; a float measurement never makes a hypothesis hold unless it is a
    proven bound).
    """

    name: str
    status: Status
    reason: str
    witness: Mapping[str, Any] = field(default_factory=dict)
    exact: bool = True

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


def holds(name: str, reason: str, witness: Mapping[str, Any] | None = None, exact: bool = True) -> Verdict:
    return Verdict(name, Status.HOLDS, reason, dict(witness or {}), exact)


def fails(name: str, reason: str, witness: Mapping[str, Any] | None = None, exact: bool = True) -> Verdict:
    return Verdict(name, Status.FAILS, reason, dict(witness or {}), exact)


def unknown(name: str, reason: str, witness: Mapping[str, Any] | None = None, exact: bool = True) -> Verdict:
    return Verdict(name, Status.UNKNOWN, reason, dict(witness or {}), exact)


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
