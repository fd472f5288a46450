"""Float data are decided on the binary rationals they hold, but a witness about them is never
labelled exact (issue 20, docs/format.md "Numbers"); one exact entry makes the data exact."""
from __future__ import annotations

import pytest

from theorems.catalogue import CATALOGUE
from theorems.system_json import system_from_dict

PREDICATES = {h.id: h for th in CATALOGUE.theorems for h in th.hypotheses}
FLOATS = {"d": 2, "beta": 1, "mask": "causal",
          "heads": [{"P": [[0.5, 0.25], [0.25, 0.5]], "U": [[0.5, 0.25], [0.25, 0.5]]}],
          "tokens": [[1.0, 0.0], [0.0, 1.0]], "layer_norm": {"scale": [0.5, 0.5], "shift": [0.0, 0.0]}}


@pytest.mark.parametrize("pid", sorted(p for p, h in PREDICATES.items() if h.reads))
def test_predicates_on_float_data_are_not_labelled_exact(pid):
    verdict = PREDICATES[pid].evaluate(system_from_dict(FLOATS))
    assert not verdict.exact, (pid, verdict.status, verdict.reason)


def test_the_same_data_with_one_exact_entry_are_exact():
    data = {**FLOATS, "heads": [{"P": [[0.5, 0.25], [0.25, "1/2"]], "U": [[0.5, 0.25], [0.25, "1/2"]]}],
            "tokens": [[1, 0.0], [0.0, 1.0]], "layer_norm": {"scale": [0.5, "1/2"], "shift": [0, 0]}}
    system = system_from_dict(data)
    labelled = {pid: PREDICATES[pid].evaluate(system).exact for pid in ("U_symmetric", "P_bounded", "open_hemisphere",
                                                                          "equal_ln_scales", "U_simple_top_eigenvalue")}
    assert all(labelled.values()), labelled
