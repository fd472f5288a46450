"""The explicit rules that turn measurements into a claim status.

A rule is a small frozen object with ``evaluate(measurements) -> (status, reason)``; it is stored
in the report as plain JSON (``to_json``; ``from_json`` reads it back) next to the numbers it
reads, so the status can be recomputed from the JSON alone.  Every rule reads measurements by
name; a missing or non-finite measurement makes the claim **not testable here** (with the
reason).  Otherwise a rule gives **agrees** when the measurement shows the claimed effect with
separated bands, **contradicted** only when it shows the opposite effect with separated bands,
and **not supported** when it shows neither (overlapping bands, a threshold inside the band): a
measurement that does not show an effect is not evidence against it.

``all_of`` combines its parts: not testable here if any part is; else contradicted if any part
is; else not supported if any part is; else agrees.

A band-based rule that reads a single run (``band == "single run (no band)"``) is
**not testable here**: a single run has no band, and a zero-width band would let one run decide
the row.  ``m.value`` is a measurement's median over the runs (or a share, or an extreme) and ``m.low``,
``m.high`` its band: the 10% and 90% quantiles of the runs (a share: the Clopper-Pearson 95% band).

The LLM rows are decided per prompt (``most_below``, ``most_greater``): how many prompts reach a
level, or are lower in one variant than in another (paired: the same prompts), with an exact
one-sided sign test, and the median reported.  A mean with a Student-t band suits neither a
quantity that spans ten orders of magnitude (one prompt at 0.05 among seven at 5e-14 puts the mean
at 0.006 and the band below 0) nor the question asked (does E reach 0 on typical prompts?).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Union

import numpy as np

from .records import ClaimStatus, Measurement

NO_BAND = "single run (no band)"
A, C, S, T = ClaimStatus.AGREES, ClaimStatus.CONTRADICTED, ClaimStatus.NOT_SUPPORTED, ClaimStatus.NOT_TESTABLE
_PRIORITY = (T, C, S, A)
"""How ``AllOf`` combines its parts: the first status here that any part has."""


def _band(m: Measurement) -> str:
    return f"[{m.low:.5g}, {m.high:.5g}]"


class Rule:
    """Base of the rules; each concrete rule is a final frozen dataclass."""

    kind: ClassVar[str]
    uses_band: ClassVar[bool] = True

    def quantities(self) -> tuple[str, ...]:
        raise NotImplementedError

    def describe(self) -> str:
        """The rule as one sentence a reader can check against the numbers."""
        raise NotImplementedError

    def _judge(self, m: Mapping[str, Measurement]) -> tuple[ClaimStatus, str]:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for name, value in self.__dict__.items():
            out[name] = [r.to_json() for r in value] if name == "rules" else (list(value) if isinstance(value, tuple) else value)
        return out

    def evaluate(self, measurements: Mapping[str, Measurement]) -> tuple[ClaimStatus, str]:
        qs = self.quantities()
        missing = [q for q in qs if q not in measurements]
        if missing:
            return T, "no measurement of " + ", ".join(missing)
        bad = [q for q in qs if not all(math.isfinite(v) for v in (measurements[q].value, measurements[q].low, measurements[q].high))]
        if bad:
            return T, "non-finite measurement of " + ", ".join(bad)
        single = [q for q in qs if measurements[q].band == NO_BAND]
        if self.uses_band and single:
            return T, "a single run has no band: " + ", ".join(single)
        return self._judge(measurements)


@dataclass(frozen=True)
class UpperBelow(Rule):
    q: str
    threshold: float
    kind: ClassVar[str] = "upper_below"

    def quantities(self):
        return (self.q,)

    def describe(self):
        return (f"agrees when the upper end of the band of {self.q} is below {self.threshold:g}; contradicted when its lower end "
                f"is at or above {self.threshold:g}; otherwise not supported")

    def _judge(self, m):
        x, th = m[self.q], self.threshold
        status = A if x.high < th else (C if x.low >= th else S)
        return status, f"{self.q}: band {_band(x)} vs {th:g}"


@dataclass(frozen=True)
class LowerAbove(Rule):
    q: str
    threshold: float
    kind: ClassVar[str] = "lower_above"

    def quantities(self):
        return (self.q,)

    def describe(self):
        return (f"agrees when the lower end of the band of {self.q} is above {self.threshold:g}; contradicted when its upper end "
                f"is at or below {self.threshold:g}; otherwise not supported")

    def _judge(self, m):
        x, th = m[self.q], self.threshold
        status = A if x.low > th else (C if x.high <= th else S)
        return status, f"{self.q}: band {_band(x)} vs {th:g}"


@dataclass(frozen=True)
class AtLeast(Rule):
    q: str
    threshold: float
    kind: ClassVar[str] = "at_least"
    uses_band: ClassVar[bool] = False

    def quantities(self):
        return (self.q,)

    def describe(self):
        return (f"agrees when {self.q} is at least {self.threshold:g}; contradicted when the upper end of its band is below "
                f"{self.threshold:g}; otherwise not supported")

    def _judge(self, m):
        x, th = m[self.q], self.threshold
        status = A if x.value >= th else (C if x.high < th else S)
        return status, f"{self.q}: {x.value:.3g} {_band(x)} vs {th:g}"


@dataclass(frozen=True)
class ShareTypical(Rule):
    """A share (Clopper-Pearson band): ``typical`` when its lower end exceeds ``typical``, rare
    when its upper end is below ``rare``."""

    q: str
    typical: float = 0.5
    rare: float = 0.25
    kind: ClassVar[str] = "share_typical"

    def quantities(self):
        return (self.q,)

    def describe(self):
        return (f"agrees when the lower end of the band of {self.q} is above {self.typical:g} (the effect is typical: a "
                f"significant majority of runs); contradicted when its upper end is below {self.rare:g} (the effect is rare); "
                "otherwise not supported")

    def _judge(self, m):
        x = m[self.q]
        status = A if x.low > self.typical else (C if x.high < self.rare else S)
        return status, f"{self.q}: {x.value:.3g} {_band(x)} (typical > {self.typical:g}, rare < {self.rare:g})"


@dataclass(frozen=True)
class Greater(Rule):
    a: str
    b: str
    kind: ClassVar[str] = "greater"

    def quantities(self):
        return (self.a, self.b)

    def describe(self):
        return (f"agrees when the band of {self.a} lies entirely above the band of {self.b}; contradicted when it lies entirely "
                "below; overlapping bands are not supported")

    def _judge(self, m):
        x, y = m[self.a], m[self.b]
        status = A if x.low > y.high else (C if y.low > x.high else S)
        how = {A: "separated", C: "reversed, separated", S: "overlapping"}[status]
        return status, f"{self.a} {_band(x)} vs {self.b} {_band(y)}: {how}"


@dataclass(frozen=True)
class Decrease(Rule):
    first: str
    last: str
    ratio: float = 0.5
    kind: ClassVar[str] = "decrease"

    def quantities(self):
        return (self.first, self.last)

    def describe(self):
        return (f"agrees when the band of {self.last} lies entirely below the band of {self.first} and the ratio of the medians is at most "
                f"{self.ratio:g}; contradicted when it lies entirely above (an increase); otherwise not supported")

    def _judge(self, m):
        x, y = m[self.first], m[self.last]
        ratio = y.value / x.value if x.value != 0 else math.inf
        status = A if (y.high < x.low and y.value <= self.ratio * x.value) else (C if y.low > x.high else S)
        return status, f"{self.first} {x.value:.3g} -> {self.last} {y.value:.3g} (ratio {ratio:.3g}; bands {_band(x)}, {_band(y)})"


@dataclass(frozen=True)
class DownTrend(Rule):
    """E approaching 0: a significantly negative slope over the last half of depth and a last value
    below a stated level."""

    slope: str
    last: str
    level: float
    kind: ClassVar[str] = "down_trend"

    def quantities(self):
        return (self.slope, self.last)

    def describe(self):
        return (f"agrees when the band of the fitted slope {self.slope} (last half of depth) lies below 0 and the upper end of the "
                f"band of {self.last} is below {self.level:g}; contradicted when the slope's band lies above 0 (E grows); "
                "otherwise not supported (for instance E decreases but stays above the level)")

    def _judge(self, m):
        s, y = m[self.slope], m[self.last]
        status = A if (s.high < 0 and y.high < self.level) else (C if s.low > 0 else S)
        return status, f"{self.slope} {_band(s)}; {self.last} {_band(y)} vs level {self.level:g}"


@dataclass(frozen=True)
class Ordered(Rule):
    qs: tuple[str, ...]
    kind: ClassVar[str] = "ordered"

    def __post_init__(self) -> None:
        if len(self.qs) < 2:
            raise ValueError("ordered needs at least two quantities")
        object.__setattr__(self, "qs", tuple(self.qs))

    def quantities(self):
        return self.qs

    def describe(self):
        return (" > ".join(self.qs) + ": agrees when every band lies entirely above the next one; contradicted when some "
                "consecutive pair is separated the other way round; otherwise not supported")

    def _judge(self, m):
        pairs = list(zip(self.qs, self.qs[1:]))
        reversed_ = [f"{x} {_band(m[x])} below {y} {_band(m[y])}" for x, y in pairs if m[y].low > m[x].high]
        overlap = [f"{x} {_band(m[x])} overlaps {y} {_band(m[y])}" for x, y in pairs if not m[x].low > m[y].high and not m[y].low > m[x].high]
        if reversed_:
            return C, "; ".join(reversed_ + overlap)
        if overlap:
            return S, "; ".join(overlap)
        return A, " > ".join(f"{q} {m[q].value:.3g}" for q in self.qs)


@dataclass(frozen=True)
class AllOf(Rule):
    rules: tuple[Rule, ...]
    kind: ClassVar[str] = "all_of"
    uses_band: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", tuple(self.rules))

    def quantities(self):
        return tuple(q for r in self.rules for q in r.quantities())

    def describe(self):
        return "all of: " + " AND ".join(f"({r.describe()})" for r in self.rules)

    def evaluate(self, measurements):
        parts = [r.evaluate(measurements) for r in self.rules]
        statuses = {s for s, _ in parts}
        status = next(s for s in _PRIORITY if s in statuses)
        if len(statuses) == 1:
            return status, "; ".join(reason for _, reason in parts)
        return status, "; ".join(f"[{s.value}] {reason}" for s, reason in parts)


SIGN_LEVEL = 0.05
"""One-sided level of the per-prompt sign tests."""


def _tail(k: int, n: int) -> float:
    """``P[X >= k]`` for ``X ~ Binomial(n, 1/2)``, exactly."""
    return sum(math.comb(n, j) for j in range(k, n + 1)) / 2 ** n


def _sign(k: int, n: int) -> ClaimStatus:
    """A significant majority (agrees), a significant minority (contradicted), or neither."""
    return A if _tail(k, n) < SIGN_LEVEL else (C if _tail(n - k, n) < SIGN_LEVEL else S)


def _per_prompt(m: Measurement, q: str) -> list[float] | None:
    """The per-prompt values of ``q`` (``None`` when the measurement did not store them)."""
    return None if m.values is None else list(m.values)


@dataclass(frozen=True)
class MostBelow(Rule):
    """Per prompt: how many prompts reach ``level`` (a median and a share, not a mean and a band)."""

    q: str
    level: float
    kind: ClassVar[str] = "most_below"
    uses_band: ClassVar[bool] = False

    def quantities(self):
        return (self.q,)

    def describe(self):
        return (f"per prompt: agrees when significantly more than half of the prompts have {self.q} below {self.level:g} "
                f"(exact one-sided sign test, level {SIGN_LEVEL:g}); contradicted when significantly fewer than half do; "
                "otherwise not supported; the median is reported")

    def _judge(self, m):
        values = _per_prompt(m[self.q], self.q)
        if not values:
            return T, f"{self.q}: per-prompt values not stored"
        k, n = sum(1 for v in values if v < self.level), len(values)
        return _sign(k, n), (f"{self.q}: {k}/{n} prompts below {self.level:g} (sign test p = {_tail(k, n):.3g}); "
                             f"median {float(np.median(values)):.3g}")


@dataclass(frozen=True)
class MostGreater(Rule):
    """Per prompt, paired (the same prompts in both measurements): how many prompts have ``a > b``."""

    a: str
    b: str
    kind: ClassVar[str] = "most_greater"
    uses_band: ClassVar[bool] = False

    def quantities(self):
        return (self.a, self.b)

    def describe(self):
        return (f"per prompt (paired): agrees when significantly more than half of the prompts have {self.a} above {self.b} "
                f"(exact one-sided sign test, level {SIGN_LEVEL:g}; ties count against); contradicted when significantly "
                "more than half have it below; otherwise not supported; the medians are reported")

    def _judge(self, m):
        x, y = _per_prompt(m[self.a], self.a), _per_prompt(m[self.b], self.b)
        if not x or not y or len(x) != len(y):
            return T, f"{self.a} / {self.b}: paired per-prompt values not stored"
        n = len(x)
        above, below = sum(1 for u, v in zip(x, y) if u > v), sum(1 for u, v in zip(x, y) if u < v)
        status = A if _tail(above, n) < SIGN_LEVEL else (C if _tail(below, n) < SIGN_LEVEL else S)
        return status, (f"{self.a} above {self.b} on {above}/{n} prompts, below on {below} (sign test p = "
                        f"{_tail(above, n):.3g}); medians {float(np.median(x)):.3g} vs {float(np.median(y)):.3g}")


RULES: dict[str, type[Rule]] = {cls.kind: cls for cls in (UpperBelow, LowerAbove, AtLeast, ShareTypical, Greater,
                                                          Decrease, DownTrend, Ordered, AllOf, MostBelow, MostGreater)}
KINDS = tuple(RULES)
RuleLike = Union[Rule, Mapping[str, Any]]


def from_json(data: RuleLike) -> Rule:
    """A rule from its JSON dict (a :class:`Rule` is returned as it is)."""
    if isinstance(data, Rule):
        return data
    kind = data.get("kind")
    if kind not in RULES:
        raise ValueError(f"unknown rule kind {kind!r}; expected one of {KINDS}")
    fields = {k: v for k, v in data.items() if k != "kind"}
    if kind == "all_of":
        return AllOf(tuple(from_json(r) for r in fields["rules"]))
    if kind == "ordered":
        return Ordered(tuple(fields["qs"]))
    return RULES[kind](**fields)


# Lower-case constructors, as the claims read them.
upper_below, lower_above, at_least, share_typical = UpperBelow, LowerAbove, AtLeast, ShareTypical
greater, decrease, down_trend = Greater, Decrease, DownTrend
most_below, most_greater = MostBelow, MostGreater


def ordered(*qs: str) -> Ordered:
    return Ordered(tuple(qs))


def all_of(*rules: Rule) -> AllOf:
    return AllOf(tuple(rules))


def quantities(rule: RuleLike) -> list[str]:
    """Every measurement name a rule reads, in order."""
    return list(from_json(rule).quantities())


def describe(rule: RuleLike) -> str:
    return from_json(rule).describe()


def decide(rule: RuleLike, measurements: Mapping[str, Measurement]) -> tuple[ClaimStatus, str]:
    """Apply ``rule`` (a :class:`Rule` or its JSON) to ``measurements``: ``(status, reason)``."""
    return from_json(rule).evaluate(measurements)
