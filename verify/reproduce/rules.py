"""The explicit rules that turn measurements into a claim status.

A rule is plain data (a JSON dict), stored in the report next to the numbers it reads, so the
status can be recomputed from the JSON alone.  Every rule reads measurements by name; a missing or
non-finite measurement makes the claim **not testable here** (with the reason), never agree or
disagree.  Otherwise the rule gives **agrees** when its inequality holds and **disagrees** when it
does not: a measurement that does not support the claim counts against it, including an
inconclusive one (overlapping bands), and the reason says which case it was.

Kinds (``m.low``, ``m.mean``, ``m.high`` are a measurement's 95% band and mean):

* ``upper_below(q, threshold)``: agrees iff ``q.high < threshold``;
* ``lower_above(q, threshold)``: agrees iff ``q.low > threshold``;
* ``mean_at_least(q, threshold)``: agrees iff ``q.mean >= threshold``;
* ``greater(a, b)``: agrees iff ``a.low > b.high`` (bands separated, ``a`` larger);
* ``decrease(first, last, ratio)``: agrees iff ``last.high < first.low`` and
  ``last.mean <= ratio * first.mean`` (a significant drop by at least ``1/ratio``);
* ``ordered(q1, q2, ...)``: agrees iff ``q_k.low > q_{k+1}.high`` for every ``k`` (strictly
  decreasing, bands separated);
* ``all_of(rules)``: not testable if any part is; agrees iff every part agrees.

A band-based rule (every kind but ``mean_at_least``) that reads a mean over a single run
(``band == "single run (no band)"``) is **not testable here**: a single run has no band, and a
zero-width band would let one run decide the row.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from .records import ClaimStatus, Measurement

KINDS = ("upper_below", "lower_above", "mean_at_least", "greater", "decrease", "ordered", "all_of")
BAND_KINDS = ("upper_below", "lower_above", "greater", "decrease", "ordered")
NO_BAND = "single run (no band)"


def upper_below(q: str, threshold: float) -> dict[str, Any]:
    return {"kind": "upper_below", "q": q, "threshold": threshold}


def lower_above(q: str, threshold: float) -> dict[str, Any]:
    return {"kind": "lower_above", "q": q, "threshold": threshold}


def mean_at_least(q: str, threshold: float) -> dict[str, Any]:
    return {"kind": "mean_at_least", "q": q, "threshold": threshold}


def greater(a: str, b: str) -> dict[str, Any]:
    return {"kind": "greater", "a": a, "b": b}


def decrease(first: str, last: str, ratio: float = 0.5) -> dict[str, Any]:
    return {"kind": "decrease", "first": first, "last": last, "ratio": ratio}


def ordered(*qs: str) -> dict[str, Any]:
    if len(qs) < 2:
        raise ValueError("ordered needs at least two quantities")
    return {"kind": "ordered", "qs": list(qs)}


def all_of(*rules: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "all_of", "rules": list(rules)}


def quantities(rule: Mapping[str, Any]) -> list[str]:
    """Every measurement name a rule reads, in order."""
    kind = rule["kind"]
    if kind == "all_of":
        return [q for part in rule["rules"] for q in quantities(part)]
    if kind in ("upper_below", "lower_above", "mean_at_least"):
        return [rule["q"]]
    if kind == "greater":
        return [rule["a"], rule["b"]]
    if kind == "decrease":
        return [rule["first"], rule["last"]]
    if kind == "ordered":
        return list(rule["qs"])
    raise ValueError(f"unknown rule kind {kind!r}; expected one of {KINDS}")


def describe(rule: Mapping[str, Any]) -> str:
    """The rule as one readable line (used in the report)."""
    kind = rule["kind"]
    if kind == "all_of":
        return " AND ".join(f"({describe(r)})" for r in rule["rules"])
    if kind == "upper_below":
        return f"upper band of {rule['q']} < {rule['threshold']:g}"
    if kind == "lower_above":
        return f"lower band of {rule['q']} > {rule['threshold']:g}"
    if kind == "mean_at_least":
        return f"{rule['q']} >= {rule['threshold']:g}"
    if kind == "greater":
        return f"band of {rule['a']} entirely above band of {rule['b']}"
    if kind == "decrease":
        return (f"band of {rule['last']} entirely below band of {rule['first']} and mean ratio <= {rule['ratio']:g}")
    if kind == "ordered":
        return " > ".join(rule["qs"]) + " (bands separated)"
    raise ValueError(f"unknown rule kind {kind!r}; expected one of {KINDS}")


def _finite(m: Measurement) -> bool:
    return all(math.isfinite(v) for v in (m.mean, m.low, m.high))


def decide(rule: Mapping[str, Any], measurements: Mapping[str, Measurement]) -> tuple[ClaimStatus, str]:
    """Apply ``rule`` to ``measurements``: ``(status, reason)``."""
    missing = [q for q in quantities(rule) if q not in measurements]
    if missing:
        return ClaimStatus.NOT_TESTABLE, "no measurement of " + ", ".join(missing)
    bad = [q for q in quantities(rule) if not _finite(measurements[q])]
    if bad:
        return ClaimStatus.NOT_TESTABLE, "non-finite measurement of " + ", ".join(bad)
    kind = rule["kind"]
    single = [q for q in quantities(rule) if measurements[q].band == NO_BAND]
    if kind in BAND_KINDS and single:
        return ClaimStatus.NOT_TESTABLE, "a single run has no band: " + ", ".join(single)
    if kind == "all_of":
        parts = [decide(r, measurements) for r in rule["rules"]]
        statuses = {s for s, _ in parts}
        status = next(s for s in (ClaimStatus.NOT_TESTABLE, ClaimStatus.DISAGREES, ClaimStatus.AGREES) if s in statuses)
        if len(statuses) == 1:
            return status, "; ".join(reason for _, reason in parts)
        return status, "; ".join(f"[{s.value}] {reason}" for s, reason in parts)
    m = measurements
    if kind == "upper_below":
        q, th = m[rule["q"]], rule["threshold"]
        ok = q.high < th
        return _verdict(ok, f"{rule['q']}: upper {q.high:.3g} {'<' if ok else '>='} {th:g}")
    if kind == "lower_above":
        q, th = m[rule["q"]], rule["threshold"]
        ok = q.low > th
        return _verdict(ok, f"{rule['q']}: lower {q.low:.3g} {'>' if ok else '<='} {th:g}")
    if kind == "mean_at_least":
        q, th = m[rule["q"]], rule["threshold"]
        ok = q.mean >= th
        return _verdict(ok, f"{rule['q']}: {q.mean:.3g} {'>=' if ok else '<'} {th:g}")
    if kind == "greater":
        a, b = m[rule["a"]], m[rule["b"]]
        ok = a.low > b.high
        how = "separated" if ok else ("reversed" if b.low > a.high else "overlapping or reversed")
        return _verdict(ok, f"{rule['a']} [{a.low:.5g}, {a.high:.5g}] vs {rule['b']} [{b.low:.5g}, {b.high:.5g}]: {how}")
    if kind == "decrease":
        a, b = m[rule["first"]], m[rule["last"]]
        ratio = b.mean / a.mean if a.mean != 0 else math.inf
        ok = b.high < a.low and b.mean <= rule["ratio"] * a.mean
        return _verdict(ok, f"{rule['first']} {a.mean:.3g} -> {rule['last']} {b.mean:.3g} (ratio {ratio:.3g}; "
                            f"bands {'separated' if b.high < a.low else 'overlap'})")
    if kind == "ordered":
        qs = rule["qs"]
        pairs = [(qs[k], qs[k + 1]) for k in range(len(qs) - 1)]
        broken = [f"{x} [{m[x].low:.5g}, {m[x].high:.5g}] not above {y} [{m[y].low:.5g}, {m[y].high:.5g}]"
                  for x, y in pairs if not m[x].low > m[y].high]
        return _verdict(not broken, "; ".join(broken) if broken else " > ".join(f"{q} {m[q].mean:.3g}" for q in qs))
    raise ValueError(f"unknown rule kind {kind!r}; expected one of {KINDS}")


def _verdict(ok: bool, reason: str) -> tuple[ClaimStatus, str]:
    return (ClaimStatus.AGREES if ok else ClaimStatus.DISAGREES), reason
