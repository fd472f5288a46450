"""Deterministic random instances for the validated-integrator tests (shared by the tests and by
``make_validated_golden.py``, which stores the oracle's values for them)."""
from __future__ import annotations

import hashlib
import json
import random
from fractions import Fraction

CASES = 200
"""Number of random instances in the containment test."""


def unit_rational(rng: random.Random, d: int, hemisphere: bool = False) -> list[Fraction]:
    """A rational point on S^{d-1} (inverse stereographic projection of a rational point); with
    ``hemisphere`` the last coordinate is positive."""
    while True:
        u = [Fraction(rng.randint(-12, 12), 8) for _ in range(d - 1)]
        s = sum(v * v for v in u)
        if not hemisphere or s < 1:
            return [2 * v / (1 + s) for v in u] + [(1 - s) / (1 + s)]


def random_matrix(rng: random.Random, d: int, scale: Fraction) -> list[list[Fraction]]:
    return [[scale * Fraction(rng.randint(-4, 4), 4) for _ in range(d)] for _ in range(d)]


def case(index: int) -> dict:
    """Instance ``index``: N <= 6, d <= 4, beta <= 2, H in {1, 2}, random rational P and U, both masks,
    a short horizon ``t_end`` and two sample times (inside the first step and at the end)."""
    rng = random.Random(1000 + index)
    N, d, H = rng.randint(2, 6), rng.randint(2, 4), rng.choice([1, 1, 2])
    beta = rng.choice([Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2)])
    P = [random_matrix(rng, d, rng.choice([Fraction(1, 2), Fraction(1)])) for _ in range(H)]
    U = [random_matrix(rng, d, Fraction(1)) for _ in range(H)]
    tokens = [unit_rational(rng, d) for _ in range(N)]
    t_end = rng.choice([Fraction(1, 32), Fraction(1, 16), Fraction(3, 32)])
    return {"index": index, "N": N, "d": d, "beta": beta, "P": P, "U": U, "mask": rng.choice(["full", "causal"]),
            "tokens": tokens, "t_end": t_end, "times": [t_end / 5, t_end]}


def fingerprint(c: dict) -> str:
    """A short hash of an instance (the golden file records it, so a changed generator is detected)."""
    data = json.dumps({k: (str(v) if not isinstance(v, (list, int)) else v) for k, v in c.items()},
                      default=str, sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()[:16]
