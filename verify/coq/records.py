"""Frozen records of the Coq export and of a ``coqc`` run."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, final

StepRoute = Literal["kernel", "axiom", "premise", "not_exported", "evidence"]


@final
@dataclass(frozen=True)
class StepExport:
    """How one step of the report went into Coq.

    ``route``: ``kernel`` (a lemma the kernel checks), ``axiom`` (a cited theorem: a named axiom from its
    obligations to its conclusion), ``not_exported`` (declared as an axiom of its statement, with ``reason``),
    ``evidence`` (numerical; not part of the proof)."""

    step_id: str
    kind: str
    route: StepRoute
    coq_names: tuple[str, ...]
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.step_id, "kind": self.kind, "route": self.route, "coq": list(self.coq_names)}
        if self.reason:
            out["reason"] = self.reason
        return out


@final
@dataclass(frozen=True)
class CoqSource:
    """One generated ``.v`` file: its module name, text, the per-step routes and the declared axioms."""

    module: str
    text: str
    steps: tuple[StepExport, ...]
    axioms: tuple[str, ...]
    final_theorem: str

    @property
    def not_exported(self) -> tuple[StepExport, ...]:
        return tuple(s for s in self.steps if s.route == "not_exported")


@final
@dataclass(frozen=True)
class ExportRecord:
    """What :func:`verify.coq.export_theorem` wrote: the file, the theorem's verdict in Python and the routes."""

    theorem_id: str
    path: Path
    source: CoqSource
    python_verdict: str
    rechecked: bool

    def to_json(self) -> dict[str, Any]:
        return {"theorem": self.theorem_id, "file": str(self.path), "python_verdict": self.python_verdict,
                "python_recheck_before_export": self.rechecked, "final_theorem": self.source.final_theorem,
                "axioms": list(self.source.axioms), "steps": [s.to_json() for s in self.source.steps]}


Verdict = Literal["accepted", "rejected", "timeout"]


@final
@dataclass(frozen=True)
class FileCheck:
    """``coqc`` on one file: ``accepted`` only when it compiled *and* every assumption of its final theorem is a
    standard-library axiom of Coq's reals, a proposition name, or an axiom the file declares in its header.

    ``assumptions``: what ``Print Assumptions`` listed; ``undeclared``: assumptions outside those three groups
    (any makes the verdict ``rejected``).  ``seconds``: wall time; ``cpu_seconds``: the CPU time of ``coqc``
    itself (user + system), which does not grow when other jobs share the machine."""

    path: Path
    verdict: Verdict
    seconds: float
    stderr: str
    assumptions: tuple[str, ...] = ()
    declared_axioms: tuple[str, ...] = ()
    undeclared: tuple[str, ...] = ()
    cpu_seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"file": str(self.path), "verdict": self.verdict, "seconds": round(self.seconds, 3),
                "cpu_seconds": round(self.cpu_seconds, 3),
                "stderr": self.stderr, "assumptions": list(self.assumptions),
                "declared_axioms": list(self.declared_axioms), "undeclared": list(self.undeclared)}


@final
@dataclass(frozen=True)
class CoqCheck:
    """``coqc`` on a file or directory: one :class:`FileCheck` per ``.v`` file, the total time and the version."""

    files: tuple[FileCheck, ...]
    seconds: float
    coqc_version: str

    @property
    def accepted(self) -> bool:
        return bool(self.files) and all(f.verdict == "accepted" for f in self.files)

    def to_json(self) -> dict[str, Any]:
        return {"accepted": self.accepted, "seconds": round(self.seconds, 3), "coqc": self.coqc_version,
                "files": [f.to_json() for f in self.files]}
