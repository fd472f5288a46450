"""The frozen result of :func:`~verify._fate.driver.certify_fate`: the fate, its evidence, its certificate."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, final

from theorems.verdict import Verdict, holds, unknown

from .certificate import FateCertificate, Limit


class Fate(enum.Enum):
    CONSENSUS = "consensus"
    NON_CONSENSUS = "non-consensus"
    UNKNOWN = "unknown"

    @property
    def message(self) -> str:
        return {Fate.CONSENSUS: "certified: every token converges to one point x*",
                Fate.NON_CONSENSUS: "certified: the tokens converge to a stable equilibrium with distinct directions",
                Fate.UNKNOWN: "no fate certified: raise --t-max, or the instance may have no certifiable limit "
                              "(rotation, a saddle, an enclosure that grows too wide)"}[self]


@final
@dataclass(frozen=True)
class FateReport:
    name: str
    fate: Fate
    reason: str
    entry_time: Fraction | None = None
    route: str | None = None
    limit: Limit | None = None
    certificate: FateCertificate | None = None
    stats: Mapping[str, Any] = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        return self.fate is not Fate.UNKNOWN

    @property
    def message(self) -> str:
        if self.route == "repulsion" and self.fate is Fate.NON_CONSENSUS:
            return ("certified: the tokens never reach consensus, not even in the limit: their diameter stays above "
                    "the reported bound for all time (no equilibrium or limit is claimed)")
        if self.route == "moving-consensus" and self.fate is Fate.CONSENSUS:
            return ("certified: every pairwise distance |x_i - x_j| tends to 0 (consensus); the common point is "
                    "not claimed to be fixed (it may keep moving), so no limit x* is reported")
        return self.fate.message

    @property
    def verdict(self) -> Verdict:
        witness = {"fate": self.fate.value, "entry_time": None if self.entry_time is None else str(self.entry_time)}
        return holds("fate", self.reason, witness) if self.certified else unknown("fate", self.reason, witness)

    @property
    def exit_code(self) -> int:
        return self.verdict.status.exit_code

    def to_json(self) -> dict[str, Any]:
        limit = None if self.limit is None else {
            "tokens": [list(x) for x in self.limit.tokens], "groups": [[i + 1 for i in g] for g in self.limit.groups],
            "groups_exact": self.limit.exact_groups, "text": self.limit.text}
        return {"name": self.name, "verdict": self.verdict.status.value, "fate": self.fate.value,
                "message": self.message, "reason": self.reason,
                "entry_time": None if self.entry_time is None else str(self.entry_time),
                "entry_time_float": None if self.entry_time is None else float(self.entry_time),
                "route": self.route, "limit": limit, "stats": dict(self.stats),
                "certificate": None if self.certificate is None else self.certificate.to_json()}

    def render(self) -> str:
        lines = [f"fate of {self.name}: {self.fate.value}", f"  {self.message}"]
        if self.entry_time is not None:
            lines.append(f"  entry time: t = {float(self.entry_time):.6g} (exact {self.entry_time}), route: {self.route}")
        if self.limit is not None:
            lines.append(f"  limit: {self.limit.text}")
        elif self.route == "moving-consensus":
            lines.append("  limit: none claimed (the common point may keep moving; only |x_i - x_j| -> 0 is certified)")
        elif self.route == "repulsion":
            bound = Fraction(self.stats["distance_bound"])
            pair = "|x_2(t) - x_1(t)|" if self.certificate.problem.mask == "causal" else "max_j |x_j(t) - x_1(t)|"
            lines.append(f"  limit: none claimed; {pair} >= {float(bound):.6g} (exact {bound}) for every t >= 0")
        lines.append(f"  reason: {self.reason}")
        shown = ", ".join(f"{k} = {v}" for k, v in self.stats.items()
                          if k in ("steps", "wall_time_s", "t_max", "status") or (k, v) == ("enclosure", "tight"))
        if shown:
            lines.append(f"  stats: {shown}")
        return "\n".join(lines)


__all__ = ["Fate", "FateReport"]
