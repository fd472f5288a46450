"""Instances for the fate tests and benchmark: random constant instances and instances with a known fate.

``random_problem(seed)``: ``N`` in 2..8, ``d`` in 2..4, one or two heads, ``beta`` in {1/2, 1, 2},
full or causal mask, ``P^h`` with entries ``k/8`` in ``[-1, 1]``, ``U^h`` random symmetric
(entries ``k/8`` in ``[-1, 1]``, symmetrised; ``nonsymmetric=True``: not symmetrised), random
rational tokens (normalised).  ``oracle`` is the independent 50-digit reference (mpmath-backed
Taylor series of :mod:`numerics.taylor`): evidence for tests, never on a path to a proof.
"""
from __future__ import annotations

import random
from fractions import Fraction

import numpy as np

from verify._fate import FateProblem


def _rnd(rng: random.Random, d: int) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(Fraction(rng.randint(-8, 8), 8) for _ in range(d)) for _ in range(d))


def _sym(M):
    d = len(M)
    return tuple(tuple((M[i][j] + M[j][i]) / 2 for j in range(d)) for i in range(d))


def eye(d: int):
    return tuple(tuple(Fraction(int(i == j)) for j in range(d)) for i in range(d))


def random_problem(seed: int, nonsymmetric: bool = False, max_N: int = 8, max_d: int = 4) -> FateProblem:
    rng = random.Random(seed)
    N, d = rng.randint(2, max_N), rng.randint(2, max_d)
    mask = rng.choice(["full", "causal"])
    heads = tuple((_rnd(rng, d), _rnd(rng, d) if nonsymmetric else _sym(_rnd(rng, d))) for _ in range(rng.choice([1, 2])))
    toks = tuple(tuple(Fraction(rng.randint(-8, 8), 8) for _ in range(d)) for _ in range(N))
    toks = tuple(t if any(t) else (Fraction(1),) + t[1:] for t in toks)
    return FateProblem(Fraction(rng.choice([1, 2, 4]), 2), mask, heads, toks, True, f"random-{seed}")


def instance_json(problem: FateProblem) -> dict:
    """``problem`` as the instance JSON ``verify.fate`` reads (exact rationals as strings; the tokens are
    the problem's rational directions, rescaled to the sphere by ``normalize_tokens``)."""
    def m(M):
        return [[str(v) for v in row] for row in M]

    return {"d": problem.d, "beta": str(problem.beta), "mask": problem.mask, "normalize_tokens": True,
            "heads": [{"P": m(P), "U": m(U)} for P, U in problem.heads], "tokens": m(problem.tokens)}


def oracle(problem: FateProblem, t_end: float, digits: int = 50) -> np.ndarray:
    """Tokens at ``t_end`` from the 50-digit Taylor integrator (float64 copy of the result)."""
    return oracle_path(problem, [float(t_end)], digits)[-1]


def oracle_path(problem: FateProblem, times, digits: int = 50) -> list[np.ndarray]:
    """Tokens at each of the increasing ``times`` (the last is the run's end) from one run of the
    50-digit Taylor integrator (float64 copies)."""
    import sympy

    from numerics.taylor import TaylorMP
    from theorems.system_build import simple_system

    def q(v):
        return sympy.Rational(v.numerator, v.denominator)

    toks = []
    for t in problem.tokens:
        norm = sympy.sqrt(sum(q(v) ** 2 for v in t))
        toks.append([q(v) / norm for v in t])
    system = simple_system([[[q(v) for v in r] for r in P] for P, _ in problem.heads],
                           [[[q(v) for v in r] for r in U] for _, U in problem.heads], toks,
                           beta=q(problem.beta), mask=problem.mask)
    times = [float(t) for t in times]
    grid = times if times[0] == 0.0 else [0.0] + times
    run = TaylorMP(digits=digits, check=False).integrate(system, times[-1], t_eval=grid)
    states = np.asarray(run.states, dtype=float)[len(grid) - len(times):, 0]
    return [states[k] for k in range(len(times))]


def moving_bound_ratio(report, factor: float = 10.0, digits: int = 50, floor: float = 0.0,
                       points: int = 6) -> float:
    """For a ``moving-consensus`` fate: ``max_t D_oracle(t) / bound(t)`` over ``points`` times from the
    entry time ``T`` to ``max(factor T, floor)`` (geometric in ``t - T + 1``), where ``bound(t) = c Dmax
    e^{-kappa (t - T)/2}`` is the lemma's certified diameter bound (``c = 1`` full mask; causal: the lemma
    bounds each ``|x_k - x_1|``, so ``c = 2``).  A ratio ``<= 1`` means the 50-digit trajectory obeys the
    certified rate at every checked time, not only its limit."""
    from verify._fate.moving import kappa

    cert = report.certificate
    T = float(cert.entry)
    t_end = max(factor * max(T, 1.0), floor)
    times = [T - 1.0 + (t_end - T + 1.0) ** (k / (points - 1)) for k in range(points)]
    rate = float(kappa(cert.problem, cert.moving))
    c = 2.0 if cert.problem.mask == "causal" else 1.0
    ratios = [diameter(X) / (c * float(cert.moving.Dmax) * np.exp(-rate * (t - T) / 2))
              for t, X in zip(times, oracle_path(cert.problem, times, digits))]
    return float(max(ratios))


def repulsion_ratio(report, t_end: float = 60.0, digits: int = 50, points: int = 240) -> float:
    """For a ``repulsion`` fate: ``min_t dist(t) / bound`` over ``points`` equally spaced times in ``(0, t_end]``
    of the 50-digit oracle, ``bound`` the certified lower bound (a ratio ``>= 1`` agrees); ``dist`` is what the
    route bounds: ``|x_2 - x_1|`` (causal mask) or ``max_j |x_j - x_1|`` (full mask)."""
    cert = report.certificate
    bound = float(Fraction(report.stats["distance_bound"]))
    times = [t_end * (k + 1) / points for k in range(points)]
    last = 2 if cert.problem.mask == "causal" else len(cert.problem.tokens)
    return float(min(np.max(np.linalg.norm(X[1:last] - X[0], axis=1))
                     for X in oracle_path(cert.problem, times, digits)) / bound)


def limit_points(report) -> np.ndarray:
    """Float midpoints of the report's limit, one row per token (consensus: the one point repeated)."""
    from flint import arb

    N = len(report.certificate.problem.tokens)
    rows = [[float(arb(s).mid()) for s in x] for x in report.limit.tokens]
    return np.array(rows * N if len(rows) == 1 else rows)


def diameter(X: np.ndarray) -> float:
    return float(np.max(np.linalg.norm(X[:, None, :] - X[None, :, :], axis=2)))


def disagreement(report, factor: float = 10.0, digits: int = 50, floor: float = 0.0) -> float:
    """``max_i |x_i(t_end) - limit_i|`` with ``x`` from the 50-digit oracle, ``t_end = max(factor T, floor)``
    (T = entry time, at least 1; a floor lets an early entry, e.g. at t = 0, be compared near the limit).
    A fate without a fixed limit (route ``moving-consensus``) claims only ``|x_i - x_j| -> 0``: there the
    disagreement is the oracle's diameter ``max_ij |x_i(t_end) - x_j(t_end)|``."""
    t_end = max(factor * max(float(report.certificate.entry), 1.0), floor)
    X = oracle(report.certificate.problem, t_end, digits)
    if report.limit is None and report.route == "moving-consensus":
        return diameter(X)
    return float(np.max(np.linalg.norm(X - limit_points(report), axis=1)))


__all__ = ["diameter", "disagreement", "eye", "limit_points", "moving_bound_ratio", "oracle", "oracle_path",
           "random_problem", "repulsion_ratio"]


def refused(data) -> bool:
    """The certificate JSON is refused as malformed, or its re-check does not hold."""
    from theorems.errors import InvalidInput
    from verify.certificate_kinds import certificate_from_json

    try:
        cert = certificate_from_json(data)
    except InvalidInput:
        return True
    return not cert.recheck().holds


def assert_named_enclosure_only(report, name: str, other: str) -> None:
    """``report``'s certificate names the enclosure ``name`` and re-checks; renamed to ``other`` it is
    rejected because that enclosure does not enter (a re-check never falls back on its own)."""
    import json

    from verify.certificate_kinds import certificate_from_json

    assert report.stats["enclosure"] == name
    data = json.loads(json.dumps(report.certificate.to_json()))
    assert data["enclosure"] == name
    verdict = certificate_from_json(data).recheck()
    assert verdict.holds, verdict.reason
    data["enclosure"] = other
    verdict = certificate_from_json(data).recheck()
    assert not verdict.holds and "does not enter" in verdict.reason
