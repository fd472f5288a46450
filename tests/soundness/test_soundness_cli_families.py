"""The CLI on a representative subset of the false families: ``verify theorem`` never exits 0
(a false hypothesis is never certified) and never 1 (a crash), and always answers in time.

For each of the eight classes of issue 9: the first two cases with ``--no-simulate``, the first
one also with the default simulation (a pole or a complex entry must not crash the numerical
evidence) and ``verify assumptions`` on it.  For every further class: its first case with
``--no-simulate`` (``bound_check`` is left out: its hypotheses may hold).  Instances that only
InvalidInput may answer must exit 2.
"""
from __future__ import annotations

from collections import defaultdict

import pytest

from soundness_families import CASES as BASIC_CASES
from soundness_families_hard import HARD_CASES
from soundness_families_more import MORE_CASES
from soundness_helpers import submit_cli, write_instance

TIMEOUT = 60
ISSUE_CLASSES = {c.cls for c in BASIC_CASES}
CASES = [c for c in BASIC_CASES + HARD_CASES + MORE_CASES if c.false_predicates or c.must_reject]


def _subset():
    per_class = defaultdict(list)
    for case in CASES:
        if len(per_class[case.cls]) < (2 if case.cls in ISSUE_CLASSES else 1):
            per_class[case.cls].append(case)
    runs = []
    for cls, cases in sorted(per_class.items()):
        for k, case in enumerate(cases):
            runs.append((case, "theorem", ("--no-simulate",)))
            if k == 0 and cls in ISSUE_CLASSES:
                runs.append((case, "theorem", ()))
                runs.append((case, "assumptions", ()))
    return runs


RUNS = _subset()


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    directory = tmp_path_factory.mktemp("soundness_cli_families")
    futures = {}
    for case, command, options in RUNS:
        path = write_instance(directory, case.id, case.data)
        futures[(case.id, command, options)] = submit_cli([command, case.theorem, "--instance", path, *options],
                                                          TIMEOUT)
    return futures


@pytest.mark.parametrize("case,command,options", RUNS,
                         ids=[f"{c.id}-{cmd}{''.join(o)}" for c, cmd, o in RUNS])
def test_cli_never_certifies_a_false_instance(results, case, command, options):
    truth = case.witness()
    res = results[(case.id, command, options)].result()
    assert not res.timed_out, f"hang: {res.describe()} (truth: {truth})"
    assert res.rc != 1, f"crash: {res.describe()}"
    if case.must_reject:
        assert res.rc == 2, f"expected exit 2 (bad input): {res.describe()}"
    assert res.rc in (2, 3, 4, 6), f"a false instance was certified: {res.describe()}\n  truth: {truth}"
    if res.rc == 2:
        assert "Traceback" not in res.stderr, res.stderr[-2000:]


def test_subset_covers_every_class():
    assert {c.cls for c, _, _ in RUNS} == {c.cls for c in CASES}
    assert len(RUNS) >= 40
