"""Result records returned by the SOS searches (frozen; they never print)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, final

from theorems.provenance import Provenance
from theorems.verdict import Status, Verdict

from .certificate import Certificate
from .stats import SearchStats
from .lyapunov_certificate import LyapunovCertificate


def provenance(options: Mapping[str, Any]) -> dict[str, Any]:
    """Options of the search and versions of the packages that produced the (float) hint."""
    shown = {k: (str(v) if not isinstance(v, (int, float, bool, str, type(None), list)) else v) for k, v in options.items()}
    return Provenance.collect(("consensus-verify", "cvxpy", "clarabel", "scs", "python-flint", "sympy"), options=shown,
                              arithmetic="exact rationals (fractions.Fraction / python-flint fmpq)",
                              layout=("options", "packages", "arithmetic"), packages_key="packages").to_json()


def _result_json(verdict: Verdict, stats: dict, options: Mapping[str, Any], certificate, **extra: Any) -> dict[str, Any]:
    """The JSON of a search result: verdict first, then the evidence and the certificate."""
    head = {"verdict": verdict.status.value, "reason": verdict.reason, **extra}
    return head | {"result": verdict.to_json(), "stats": stats, "provenance": provenance(options),
                   "certificate": certificate.to_json() if certificate else None}


@final
@dataclass(frozen=True)
class SOSResult:
    """Outcome of :func:`verify._sos.prove_nonnegative`.

    ``verdict`` is ``holds`` only when ``certificate`` is present and passed its exact re-check;
    ``fails`` carries a rational witness point (``witness["point"]``) where the claim is false;
    ``unknown`` says which step of the search or rounding failed.  ``stats`` holds the wall times
    of the float solve, the margin solve and the exact rounding/check, and the problem sizes.
    """

    verdict: Verdict
    certificate: Certificate | None
    stats: SearchStats
    refute_s: float = 0.0
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> Status:
        return self.verdict.status

    def to_json(self) -> dict[str, Any]:
        return _result_json(self.verdict, self.stats.to_json() | {"refute_s": self.refute_s}, self.options,
                            self.certificate, claim=self.verdict.witness.get("claim", ""))


@final
@dataclass(frozen=True)
class LyapunovResult:
    """Outcome of :func:`verify._sos.find_lyapunov`; ``stats`` sums both SOS conditions' phases."""

    verdict: Verdict
    certificate: LyapunovCertificate | None
    stats: SearchStats
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> Status:
        return self.verdict.status

    def to_json(self) -> dict[str, Any]:
        return _result_json(self.verdict, self.stats.to_json(), self.options, self.certificate)
