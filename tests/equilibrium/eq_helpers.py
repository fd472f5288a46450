"""Shared data of the equilibrium tests: the two shipped counterexamples and their certificates."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "equilibrium"
CASES = {
    "4.4-sym-later": ("examples/counterexample_4_4_sym.json", "later-token-alignment", "counterexample_4_4_sym.json"),
    "4.4-same-sign": ("examples/counterexample_same_sign.json", "same-sign-consensus", "counterexample_same_sign.json"),
}


@lru_cache(maxsize=None)
def searched(theorem_id: str):
    """The search result on the shipped instance (cached: the tests only read it)."""
    from theorems.system_json import load_system
    from verify.equilibrium.search import find_counterexample

    instance, refutes, _ = CASES[theorem_id]
    return find_counterexample(load_system(str(ROOT / instance)), refutes)


def golden(theorem_id: str) -> dict:
    return json.loads((GOLDEN / CASES[theorem_id][2]).read_text())
