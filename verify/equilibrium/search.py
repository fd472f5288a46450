"""Search for a certified stable equilibrium that refutes a claim (hints in float, proof in arb).

1. **Hint:** integrate the instance (DOP853, float64) to ``t_end``.  Under the causal mask the
   first ``m`` tokens evolve on their own, so each prefix of the final state is a candidate for the
   ``m``-token system; candidates where the float state already violates the claim (token ``m``
   off the eigenvectors of ``U``, or token ``m`` away from token 1) are tried, shortest first.
2. **Hint:** Newton's method in float on the chart field (:mod:`.chart_field`), then a float
   check that every Jacobian block looks stable.
3. **Proof data:** the box midpoint rounded to dyadic rationals, a radius ``2^-30``; ``A`` = the
   float Jacobian blocks rounded to ``2^-32``; ``S`` = the exact solution of ``A^T S + S A = -I``.
4. **Proof:** :meth:`EquilibriumCertificate.recheck` (arb balls and rationals).  Only its "holds"
   makes the result a refutation; anything else is "unknown".

Not guaranteed: that a counterexample is found when one exists (the search is local and
follows one simulated trajectory).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, final

import numpy as np

from theorems.system import AttentionSystem
from theorems.verdict import Verdict, fails, unknown

from .certificate import EquilibriumCertificate
from .certificate_json import LIMITS
from .chart_field import FieldData, chart_field
from .claims import CLAIMS
from .dual import Scalars
from .stability import solve_lyapunov, token_blocks

FLOATS = Scalars(exp=math.exp, sqrt=math.sqrt, const=float, zero=0.0)
RADIUS = Fraction(1, 2**30)
MID_DENOMINATOR = 2**40
A_DENOMINATOR = 2**32
PRECISION = 128
OFF = 1e-3
"""A float state counts as violating the claim when the residual / distance exceeds this."""


@final
@dataclass(frozen=True)
class SearchResult:
    verdict: Verdict
    certificate: EquilibriumCertificate | None
    stats: dict[str, Any] = field(default_factory=dict)


def _rational_matrix(schedule) -> tuple[tuple[Fraction, ...], ...] | None:
    """Exact rationals of a constant matrix; float data stand for the binary rationals they hold."""
    import sympy

    exact = getattr(schedule, "exact", None)
    if exact is None:
        array = getattr(schedule, "array", None)
        return None if array is None else tuple(tuple(Fraction(float(v)) for v in row) for row in array)
    if not all(isinstance(v, sympy.Rational) for v in exact):
        return None
    return tuple(tuple(Fraction(int(v.p), int(v.q)) for v in exact.row(i)) for i in range(exact.rows))


def exact_data(system: AttentionSystem) -> tuple[Fraction, tuple] | str:
    """``(beta, heads)`` as rationals, or a sentence saying why the data are not exact constants."""
    import sympy

    if not system.time_invariant:
        return "P and U must be constant"
    beta = system.beta
    if isinstance(beta, sympy.Float):
        beta = sympy.Rational(float(beta))
    if not isinstance(beta, sympy.Rational):
        return f"beta = {system.beta} is not a rational number"
    heads = []
    for h, head in enumerate(system.heads):
        P, U = _rational_matrix(head.P), _rational_matrix(head.U)
        if P is None or U is None:
            return f"head {h}: P and U must be constant rational (or float) matrices"
        heads.append((P, U))
    return Fraction(int(beta.p), int(beta.q)), tuple(heads)


def _violates(refutes: str, X: np.ndarray, i: int, U: np.ndarray | None) -> bool:
    x = X[i]
    if refutes == "later-token-alignment":
        Ux = U @ x
        return float(np.linalg.norm(Ux - (x @ Ux) * x)) > OFF
    return float(np.linalg.norm(x - X[0])) > OFF


def _chart(x: np.ndarray) -> tuple[int, int, list[float]]:
    k = int(np.argmax(np.abs(x)))
    sign = 1 if x[k] > 0 else -1
    return k, sign, [sign * float(x[a]) / float(x[k]) for a in range(len(x)) if a != k]


def _newton(data: FieldData, y: list[float], steps: int = 60) -> tuple[list[float], float, np.ndarray]:
    J = np.zeros((data.n, data.n))
    res = math.inf
    for _ in range(steps):
        values, rows = chart_field(data, y, FLOATS, jacobian=True)
        J, phi = np.array(rows), np.array(values)
        res = float(np.max(np.abs(phi)))
        if res < 1e-14:
            break
        try:
            y = list(np.asarray(y) - np.linalg.solve(J, phi))
        except np.linalg.LinAlgError:
            return y, math.inf, J
        if not all(math.isfinite(v) and abs(v) < 1e6 for v in y):
            return y, math.inf, J
    return y, res, J


def _dyadic(v: float, den: int) -> Fraction:
    return Fraction(round(v * den), den)


def find_counterexample(system: AttentionSystem, refutes: str, *, t_end: float = 200.0, max_candidates: int = 3,
                        label: str = "") -> SearchResult:
    """A certified counterexample to ``refutes`` (a key of :data:`CLAIMS`) near the instance's
    simulated limit: ``fails`` with the certificate, or ``unknown`` with the reason."""
    from numerics.dop853 import DOP853

    name = "counterexample"
    started = time.perf_counter()
    exact = exact_data(system)
    if isinstance(exact, str):
        return SearchResult(unknown(name, f"no counterexample search: {exact}"), None)
    beta, heads = exact
    if refutes not in CLAIMS:
        raise ValueError(f"refutes: expected one of {sorted(CLAIMS)}, got {refutes!r}")
    final = DOP853().integrate(system, t_end, samples=2).final[0]
    U = np.array([[float(v) for v in row] for row in heads[0][1]]) if len(heads) == 1 else None
    if refutes == "later-token-alignment" and U is None:
        return SearchResult(unknown(name, "the later-token claim is about one head"), None)
    N = system.N
    prefixes = range(1, N + 1) if system.mask == "causal" else [N]
    candidates = []
    for m in prefixes:
        hits = [i for i in (range(m) if system.mask != "causal" else [m - 1]) if _violates(refutes, final, i, U)]
        if hits:
            candidates.append((m, hits[0]))
    tried: list[str] = []
    for m, i in candidates[:max_candidates]:
        if m > LIMITS["N"][1] or system.d > LIMITS["d"][1] or (system.mask != "causal" and m * (system.d - 1) > LIMITS["n_full"]):
            tried.append(f"N = {m}: beyond the certificate format's size limits {LIMITS}")
            continue
        cert, why = _certify(system, refutes, beta, heads, final[:m], i, label)
        tried.append(f"N = {m} (token {i + 1}): {why}")
        if cert is not None:
            stats = {"wall_time_s": round(time.perf_counter() - started, 3), "t_end": t_end, "tokens": m,
                     "tried": tried}
            verdict = cert.recheck()  # independent re-check of the finished certificate
            return SearchResult(fails(name, f"refuted by a certified stable equilibrium: {verdict.reason}",
                                      dict(verdict.witness)), cert, stats)
    stats = {"wall_time_s": round(time.perf_counter() - started, 3), "t_end": t_end, "tried": tried}
    if not candidates:
        return SearchResult(unknown(name, f"the simulation (t = {t_end}) ends with no token violating "
                                          f"'{CLAIMS[refutes]}': no counterexample found (the claim is not proved)"),
                            None, stats)
    return SearchResult(unknown(name, "no candidate equilibrium could be certified: " + "; ".join(tried)), None, stats)


def _certify(system, refutes, beta, heads, X: np.ndarray, witness_token: int, label: str):
    m_tokens, d = X.shape
    charts, y = [], []
    for x in X:
        k, sign, coords = _chart(np.asarray(x, float) / np.linalg.norm(x))
        charts.append((k, sign))
        y += coords
    data = FieldData(d=d, beta=beta, mask=system.mask, heads=heads, charts=tuple(charts))
    y, res, J = _newton(data, y)
    if not res < 1e-12:
        return None, f"Newton did not converge (residual {res:.3g})"
    blocks = token_blocks(data.N, d - 1, data.mask)
    pairs = []
    for rows in blocks:
        D = J[np.ix_(rows, rows)]
        worst = float(np.max(np.linalg.eigvals(D).real))
        if not worst < 0:
            return None, f"the equilibrium is not stable (float eigenvalue with real part {worst:.3g})"
        A = tuple(tuple(_dyadic(float(v), A_DENOMINATOR) for v in row) for row in D)
        S = solve_lyapunov(A)
        if S is None:
            return None, "the Lyapunov equation is singular"
        pairs.append((A, tuple(tuple(row) for row in S)))
    witness = (witness_token,) if refutes == "later-token-alignment" else (0, witness_token)
    cert = EquilibriumCertificate(
        refutes=refutes, witness=witness, data=data, mid=tuple(_dyadic(v, MID_DENOMINATOR) for v in y),
        rad=(RADIUS,) * data.n, blocks=tuple(pairs), precision=PRECISION, instance_tokens=system.N,
        label=label or f"{system.name}: counterexample to {refutes}")
    verdict = cert.recheck()
    if not verdict.holds:
        return None, f"the certificate does not re-check: {verdict.reason}"
    return cert, "certified"
