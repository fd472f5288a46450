"""The vector field of eq. 5 in arbitrary precision, written directly from the formula.

This is the plain, slow reference: every quantity is an ``mpf`` of a private
:class:`mpmath.MPContext` with ``prec`` bits (nothing touches ``mpmath.mp``).  The Taylor
integrator does not call it; tests use it as an independent oracle for the first Taylor
coefficient and for the float64 field.
"""
from __future__ import annotations

import mpmath
import numpy as np

from theorems.errors import InvalidInput
from theorems.matrices import ConstantMatrix
from theorems.system import AttentionSystem


def _matrix(schedule, time, ctx: mpmath.MPContext):
    if isinstance(schedule, ConstantMatrix) and schedule.exact is not None:
        return [[ctx.mpf(v.p) / v.q if v.is_Rational else ctx.mpf(str(v.evalf(int(ctx.prec * 0.302) + 10)))
                 for v in schedule.exact.row(i)] for i in range(schedule.dim)]
    return [[ctx.mpf(float(v)) for v in row] for row in schedule.at(float(time))]


def field_mp(system: AttentionSystem, X, time: float = 0.0, prec: int = 200) -> np.ndarray:
    """``dX/dt`` at ``(time, X)`` for one system; ``X`` is ``(N, d)`` (numbers or ``mpf``).
    Returns an object array of ``mpf`` with ``prec`` bits.  Time-varying schedules are
    evaluated in float64 at ``time`` (exact constant data stay exact)."""
    if not isinstance(prec, int) or prec < 53:
        raise InvalidInput("prec", "an integer number of bits >= 53", prec)
    ctx = mpmath.MPContext()
    ctx.prec = prec
    N, d = system.N, system.d
    x = [[ctx.mpf(v) for v in row] for row in np.asarray(X, dtype=object)]
    if len(x) != N or any(len(r) != d for r in x):
        raise InvalidInput("X", f"an array of shape ({N}, {d})", (len(x), len(x[0]) if x else 0))
    beta = ctx.mpf(str(system.beta.evalf(int(prec * 0.302) + 10)))
    G = [[ctx.zero] * d for _ in range(N)]
    for head in system.heads:
        P = _matrix(head.P, time, ctx)
        U = _matrix(head.U, time, ctx)
        Px = [[ctx.fsum(P[a][b] * x[j][b] for b in range(d)) for a in range(d)] for j in range(N)]
        Ux = [[ctx.fsum(U[a][b] * x[j][b] for b in range(d)) for a in range(d)] for j in range(N)]
        for i in range(N):
            js = range(N) if system.mask == "full" else range(i + 1)
            s = {j: beta * ctx.fsum(x[i][a] * Px[j][a] for a in range(d)) for j in js}
            top = max(s.values())
            e = {j: ctx.exp(s[j] - top) for j in js}
            z = ctx.fsum(e.values())
            for a in range(d):
                G[i][a] += ctx.fsum(e[j] * Ux[j][a] for j in js) / z
    out = np.empty((N, d), dtype=object)
    for i in range(N):
        r = ctx.fsum(x[i][a] * G[i][a] for a in range(d))
        for a in range(d):
            out[i, a] = G[i][a] - r * x[i][a]
    return out
