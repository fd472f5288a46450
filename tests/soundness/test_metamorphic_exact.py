"""Metamorphic soundness suite for issue 20 ("Soundness III"): exact input is never rounded because a
JSON float stands next to it (docs/model.md §8, docs/format.md "Numbers").

For each of the generated instances (:mod:`metamorphic_families`, :mod:`metamorphic_families_more`;
exact strings such as ``"1 + 1/10^30"``, ``"5/13"`` or huge-denominator fractions next to floats
such as ``1.0``, ``0.5`` or ``0.1``), per predicate, theorem and depth verdict:

1. the all-exact twin (every float replaced by ``"p/q"`` of ``Fraction(float)``) gets the same verdict;
2. the verdict equals the ground truth of :mod:`metamorphic_truth` (which imports nothing from the
   project) on the instance as written: no false holds, no false fails; unknowns are counted;
3. every witness labelled exact re-checks exactly against the instance as written
   (:mod:`metamorphic_witness`).

``test_metamorphic_summary`` prints the counts (``pytest -s``); under pytest-xdist the workers share
their records through the run's temporary directory, so the summary covers the whole session.
The seven examples of the issue are explicit tests below.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

import metamorphic_truth as T
from metamorphic_cases import twin
from metamorphic_families import FAMILIES_1
from metamorphic_families_more import FAMILIES_2
from metamorphic_runner import evaluate, problems
from metamorphic_witness import recheck

CASES = [case for family in FAMILIES_1 + FAMILIES_2 for case in family()]
BY_ID = {case.id: case for case in CASES}
_RECORDS: dict[str, dict] = {}
HERE = Path(__file__).parent


@pytest.fixture(scope="session")
def shared_dir(tmp_path_factory):
    """One directory per run, shared by the xdist workers (their base temps have the same parent)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    path = tmp_path_factory.getbasetemp().parent / "metamorphic-records"
    path.mkdir(exist_ok=True)
    return path


def _load(case_id: str, shared: Path | None) -> dict | None:
    if case_id in _RECORDS:
        return _RECORDS[case_id]
    if shared is not None and (shared / f"{case_id}.json").exists():
        _RECORDS[case_id] = json.loads((shared / f"{case_id}.json").read_text())
        return _RECORDS[case_id]
    return None


def _record(case, shared: Path | None) -> dict:
    rec = _load(case.id, shared)
    if rec is None:
        rec = _RECORDS[case.id] = evaluate(case)
        if shared is not None:
            tmp = shared / f".{case.id}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(rec))
            tmp.replace(shared / f"{case.id}.json")
    return rec


@pytest.mark.parametrize("case_id", list(BY_ID))
def test_metamorphic_instance(case_id, shared_dir):
    rec = _record(BY_ID[case_id], shared_dir)
    assert rec["rows"], "nothing was compared"
    bad = problems(rec)
    assert not bad, f"{case_id} ({rec['relation']}):\n  " + "\n  ".join(bad)


# ----------------------------------------------------------------------------- the issue's examples

def _hyp(theorem_id: str, data: dict) -> dict[str, dict]:
    import verify

    return {h["name"]: h for h in verify.assumptions(theorem_id, instance=data).to_json()["hypotheses"]}


def _exact_ok(verdict: dict, data: dict) -> None:
    n, bad = recheck(verdict, data)
    assert not bad, bad


CAUSAL_U = [[1, 0.0, 0], [0, "1 + 1/10^30", 0], [0, 0, 1]]
V_U = [["313/169", "60/169", 0], ["60/169", "194/169", 0], [0, 0, "1/2"]]
"""Eigenvalues 2 (v = (12, 5, 0)/13), 1 ((5, -12, 0)/13) and 1/2."""


def _causal(U, tokens, P="identity", **extra) -> dict:
    return {"d": 3, "beta": 1, "mask": "causal", "heads": [{"P": P, "U": U}], "tokens": tokens, **extra}


def test_issue_example_1_mixed_U_is_not_identity(tmp_path):
    data = _causal(CAUSAL_U, [[1, 0, 0], ["3/5", "4/5", 0], [0, 1.0, 0.0]])
    assert T.truth(data)["U_identity"] == "fails"
    for d in (data, twin(data)):
        v = _hyp("4.2", d)["U_identity"]
        assert v["verdict"] == "fails", v
        _exact_ok(v, d)
    path = tmp_path / "F.json"
    path.write_text(json.dumps(data))
    r = subprocess.run([sys.executable, "-m", "verify.cli.main", "theorem", "4.2", "--instance", str(path),
                        "--no-simulate"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 6, (r.returncode, r.stdout[-800:], r.stderr[-800:])  # 6: a hypothesis fails, 4.2 does not apply


@pytest.mark.parametrize("second", [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]], ids=["x2=e1", "x2=-e1"])
def test_issue_example_2_mixed_tokens_first_token_on_v_perp(second):
    """``<v, x_1> = 0`` exactly: the first token's side is undefined and the v-hemisphere fails,
    whichever side rounding would put x_1 on; 4.4-sym must flag the exceptional start."""
    import verify

    data = _causal(V_U, [["5/13", "-12/13", 0], second])
    assert T.v_orthogonal_first(data) is True and T.truth(data)["v_hemisphere"] == "fails"
    for d in (data, twin(data)):
        v = _hyp("4.4-hemisphere", d)["v_hemisphere"]
        assert v["verdict"] in ("fails", "unknown"), v
        _exact_ok(v, d)
        payload = verify.theorem("4.4-sym", d, simulate=False).to_json()
        entries = payload["hypotheses"] + [s["verdict"] for s in payload["steps"] if isinstance(s.get("verdict"), dict)]
        sign = [e for e in entries if "sign" in e["name"] and ("first" in e["name"] or "x_1" in e["name"])]
        assert all(e["verdict"] != "holds" for e in sign), sign
        if payload["verdict"] == "holds":
            assert "<v, x_1(0)> = 0" in payload["explanation"], payload["explanation"]


@pytest.mark.parametrize("float_entry", [True, False], ids=["mixed", "exact"])
def test_issue_example_3_stack_layers_differ_by_1e_25(float_entry):
    zero = 0.0 if float_entry else 0
    first = [[1, zero, 0], [0, 1, 0], [0, 0, "1/2"]]
    second = [["1 + 1/10^25", zero, 0], [0, 1, 0], [0, 0, "1/2"]]
    data = _causal({"kind": "stack", "layers": [first, second], "dt": 1.0}, [[1, 0, 0], [0, 1.0, 0.0]])
    assert T.truth(data)["U_time_invariant"] == "fails"
    v = _hyp("4.4-sym", data)["U_time_invariant"]
    assert v["verdict"] == "fails", v
    sub = v["witness"]["per_head"][0]
    assert sorted(sub["layers"]) == [0, 1], sub
    diffs = [val for key, val in sub.items() if "difference" in key]
    assert diffs and all(T.value(d) != 0 if isinstance(d, str) else d != 0 for d in diffs), sub
    _exact_ok(v, data)


def test_issue_example_4_float_point_one_is_not_one_tenth():
    data = _causal([[1, "1/10", 0], [0.1, 1, 0], [0, 0, 0.5]], [[1, 0, 0]])
    assert T.truth(data)["U_symmetric"] == "fails"
    assert _hyp("4.4-sym", data)["U_symmetric"]["verdict"] == "fails"


def test_issue_example_5_simple_top_eigenvalue_next_to_floats():
    data = _causal([[1.0, 0.0, 0.0], [0.0, "1 + 1/10^30", 0.0], [0.0, 0.0, 0.5]], [[1, 0, 0]])
    assert T.truth(data)["U_simple_top_eigenvalue"] == "holds"
    v = _hyp("4.4-sym", data)["U_simple_top_eigenvalue"]
    assert v["verdict"] == "holds", v
    _exact_ok(v, data)


def test_issue_example_6_float_antipode_is_not_antipodal():
    data = {"d": 3, "beta": 1, "mask": "full", "heads": [{"P": "identity", "U": "identity"}],
            "tokens": [["3/5", "4/5", 0], [-0.6, -0.8, 0.0]]}
    assert T.truth(data)["open_hemisphere"] == "holds" and not T.antipodal_tokens(data)
    v = _hyp("3.2", data)["open_hemisphere"]
    assert v["verdict"] in ("holds", "unknown"), v
    _exact_ok(v, data)


def test_issue_example_7_layer_norm_scales():
    data = _causal("identity", [[1, 0, 0]], layer_norm={"scale": ["1 + 1/10^30", 1.0, 1.0], "shift": [0, 0.0, 0]})
    assert T.truth(data)["equal_ln_scales"] == "fails"
    v = _hyp("4.2", data)["equal_ln_scales"]
    assert v["verdict"] == "fails", v
    _exact_ok(v, data)


# ----------------------------------------------------------------------------- guards and summary

def test_truth_modules_import_nothing_from_the_project():
    for name in ("metamorphic_truth", "metamorphic_algebra", "metamorphic_witness", "metamorphic_cases",
                 "metamorphic_families", "metamorphic_families_more"):
        tree = ast.parse((HERE / f"{name}.py").read_text())
        roots = {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        roots |= {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not roots & {"theorems", "verify", "numerics", "llm_checks", "numpy", "scipy"}, (name, roots)


def test_truth_lists_the_catalogue_hypotheses_and_covers_every_predicate():
    from theorems.catalogue import all_theorems

    catalogue = {th.id: [h.id for h in th.hypotheses] for th in all_theorems()}
    assert {k: sorted(v) for k, v in catalogue.items()} == {k: sorted(v) for k, v in T.HYPOTHESES.items()}
    predicates = {h for hyps in catalogue.values() for h in hyps}
    compared = {h for case in CASES for h in T.HYPOTHESES[case.theorem]}
    assert predicates <= compared, predicates - compared
    assert {c.theorem_level for c in CASES if c.theorem_level} == set(catalogue)
    assert {c.depth for c in CASES if c.depth} == {"3.2", "4.2"}


def test_generated_instances_are_many_and_deterministic():
    by_relation = Counter(case.relation for case in CASES)
    assert len(CASES) >= 300 and len(by_relation) >= 11 and min(by_relation.values()) >= 25, by_relation
    assert sum(1 for c in CASES if c.theorem_level or c.depth) >= 40
    again = [case for family in FAMILIES_1 + FAMILIES_2 for case in family()]
    assert [c.data for c in again] == [c.data for c in CASES]


def _gather(shared: Path | None) -> dict[str, dict]:
    """Every record: this worker's, the other workers' (waiting while they make progress), the rest
    evaluated here (a deselected run, or a worker that stopped)."""
    deadline, last, seen = time.monotonic() + 240, time.monotonic(), -1
    while shared is not None and time.monotonic() < deadline:
        have = sum(1 for cid in BY_ID if _load(cid, shared) is not None)
        if have == len(BY_ID):
            break
        if have != seen:
            seen, last = have, time.monotonic()
        elif time.monotonic() - last > 60:
            break
        time.sleep(0.5)
    return {cid: _record(case, shared) for cid, case in BY_ID.items()}


def test_metamorphic_summary(shared_dir):
    records = _gather(shared_dir)
    table: dict[str, Counter] = defaultdict(Counter)
    failing = []
    for rec in records.values():
        row = table[rec["relation"]]
        row["instances"] += 1
        for r in rec["rows"]:
            row["checks"] += 1
            row.update(r["flags"])
        row["witnesses"] += rec["witnesses"]
        row["witness_bad"] += len(rec["witness_problems"])
        row["errors"] += len(rec["errors"])
        failing += problems(rec)
    keys = ["instances", "checks", "agree", "unknown", "false_hold", "false_fail", "twin_false_hold",
            "twin_false_fail", "twin_mismatch", "witnesses", "witness_bad", "errors"]
    total = Counter()
    for row in table.values():
        total.update(row)
    short = ["inst", "checks", "agree", "unknown", "falseH", "falseF", "twinFH", "twinFF", "twin!=", "witness",
             "wit_bad", "errors"]
    lines = ["metamorphic exact-input suite (issue 20); falseH/falseF: false holds/fails (twinFH/twinFF: of the "
             "all-exact twin), twin!=: twin verdict differs, witness: exact witness numbers re-checked",
             f"  {'relation':<22}" + "".join(f"{k:>8}" for k in short)]
    lines += [f"  {rel:<22}" + "".join(f"{table[rel][k]:>8}" for k in keys) for rel in sorted(table)]
    lines.append(f"  {'TOTAL':<22}" + "".join(f"{total[k]:>8}" for k in keys))
    lines.append(f"  exact witnesses re-checked: {total['witnesses']} numbers, {total['witness_bad']} failed")
    print("\n" + "\n".join(lines))  # pytest -s (without xdist); under xdist the table is in the failure message
    assert total["instances"] >= 300 and total["checks"] >= total["instances"]
    assert total["false_hold"] + total["twin_false_hold"] == 0 and total["false_fail"] + total["twin_false_fail"] == 0 \
        and total["twin_mismatch"] == 0 and total["witness_bad"] == 0 and total["errors"] == 0, \
        "\n".join(lines) + f"\n{len(failing)} failing checks:\n  " + "\n  ".join(failing)
