"""Adversarial soundness suite (issue 9): generated false instances never come back "holds".

For every case of :mod:`soundness_families` the test first establishes, independently of the
tool (mpmath at 60-160 digits, exact ``Fraction`` arithmetic), that the named hypotheses are
false on the instance, then loads the instance and evaluates those hypotheses through the
catalogue's predicate objects.  Acceptable answers: ``InvalidInput`` at load time (exit 2 in the
CLI), or ``fails`` / ``unknown`` for each false hypothesis.  A ``holds``, any other exception
(a crash, exit 1 in the CLI) or no answer within the time limit (a hang) breaks the contract.

``test_summary`` prints (``pytest -s``) and asserts the counts per class: at least 200 tried and
0 false "holds".
"""
from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from soundness_families import CASES as BASIC_CASES
from soundness_families_hard import HARD_CASES
from soundness_families_more import MORE_CASES
from soundness_helpers import evaluate_case, record_problems

CASES = BASIC_CASES + HARD_CASES + MORE_CASES
_RECORDS: dict[str, dict] = {}
PER_CALL_SECONDS = 20


def _record(case) -> dict:
    if case.id not in _RECORDS:
        _RECORDS[case.id] = evaluate_case(case, PER_CALL_SECONDS)
    return _RECORDS[case.id]


def _where(case) -> str:
    head = case.data["heads"][0]
    parts = [f"theorem {case.theorem}", f"P = {head['P']}", f"U = {head['U']}"]
    for key in ("beta", "layer_norm"):
        if key in case.data and case.data[key] != 1:
            parts.append(f"{key} = {case.data[key]}")
    return "; ".join(parts)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_false_instance_never_holds(case):
    truth = case.witness()  # asserts the ground truth first
    record = _record(case)
    problems = record_problems(case, record)
    assert not problems, (f"[{case.cls}] {case.id}: {problems}\n  truth: {truth}\n  instance: {_where(case)}\n"
                          f"  tool: load={record['load']} verdicts={record['verdicts']} {record['message']}")


def test_families_are_large_and_cover_every_class():
    by_class = Counter(c.cls for c in CASES)
    assert len(CASES) >= 200
    issue_classes = {"discontinuous", "huge_trig", "poles", "removable", "decimals", "complex", "unbounded",
                     "time_varying"}
    assert issue_classes <= set(by_class)
    assert min(by_class[c] for c in issue_classes) >= 25, by_class
    assert all(c.false_predicates or c.must_reject or c.bounded_predicates for c in CASES)
    assert len({c.id for c in CASES}) == len(CASES)


def test_summary():
    """Counts per class; tried >= 200 and false holds == 0 (also no crash, no hang)."""
    table: dict[str, Counter] = defaultdict(Counter)
    offenders = []
    for case in CASES:
        case.witness()
        record = _record(case)
        row = table[case.cls]
        row["tried"] += 1
        if record["load"] == "rejected":
            row["rejected"] += 1
        elif record["load"] != "ok":
            row["load-" + record["load"].split(":")[0]] += 1
        for status in record["verdicts"].values():
            row[status.split(":")[0]] += 1
        problems = record_problems(case, record)
        if any(p.startswith("FALSE HOLDS") for p in problems):
            row["FALSE_HOLDS"] += 1
        if problems:
            offenders.append(f"{case.id}: {problems}")
    total = Counter()
    for row in table.values():
        total.update(row)
    keys = ["tried", "rejected", "fails", "unknown", "holds", "FALSE_HOLDS", "crash", "timeout"]
    extra = sorted(set(total) - set(keys))
    print("\nsoundness families (per class; verdict counts are per false hypothesis):")
    print(f"  {'class':<14}" + "".join(f"{k:>12}" for k in keys + extra))
    for cls in sorted(table):
        print(f"  {cls:<14}" + "".join(f"{table[cls][k]:>12}" for k in keys + extra))
    print(f"  {'TOTAL':<14}" + "".join(f"{total[k]:>12}" for k in keys + extra))
    print(f"  tried {total['tried']} false instances; {total['FALSE_HOLDS']} came back holds")
    assert total["tried"] >= 200 and total["tried"] - table["bound_check"]["tried"] >= 200
    assert total["FALSE_HOLDS"] == 0 and not offenders, (
        f"{total['FALSE_HOLDS']} of {total['tried']} false instances came back holds; "
        f"{len(offenders)} broke the contract:\n  " + "\n  ".join(offenders))
