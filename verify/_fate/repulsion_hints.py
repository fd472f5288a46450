"""Float proposals for :mod:`.repulsion` (NumPy; outside the trust base).

On a grid of token 1's angle, at consensus: ``f`` (token 1's speed) and the repulsion rate ``h`` (causal:
``dg/dth_2`` of the pair; full mask: the transversal rate), from the same formulas as the check, at 53-bit
points.  If ``h > 0`` everywhere, ``W = 0``.  Otherwise token 1 must rotate (``f`` of one sign, away from 0)
and the time average ``kappa = (int h / f) / (int 1 / f)`` must be positive; then ``W' = 2 (kappa - h) / f``
has mean 0, its Fourier series gives the harmonics of ``W`` (rounded to dyadic rationals), and the band
``delta`` is tried from wide to narrow (a wider band proves a larger distance), each with coarse boxes
first.  Every proposal is re-proved by :func:`~.repulsion.check_repulsion`; a bad one costs a fate, never
soundness.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb, ctx

from .problem import FateProblem
from .repulsion import MAX_FULL_N, Repulsion, RepulsionCheck, _heads, check_repulsion, full_rates, token1_speed, token2_slope

GRID = 512
CAUSAL_TRIES = tuple((Fraction(1, 2**k), boxes) for k in range(2, 8) for boxes in (512, 2048, 8192))
"""``(delta, boxes)`` tried in order for the pair (a wider band first: it proves a larger distance)."""
FULL_TRIES = ((Fraction(1, 64), 512), (Fraction(1, 128), 2048), (Fraction(1, 256), 2048), (Fraction(1, 512), 4096),
              (Fraction(1, 1024), 8192), (Fraction(1, 2048), 32768))
"""The same for the full mask, whose box enclosure of the ``N - 1`` differences widens faster with ``delta``."""


def _profiles(problem: FateProblem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Token 1's speed ``f`` and the repulsion rate ``h`` at consensus on a grid of token 1's angle: causal,
    ``h = dg/dth_2 (th, th)`` (the pair); full mask, ``h = d(G_2 - G_1)/dth_2`` with every token at ``th`` (the
    transversal rate: by symmetry the consensus set's linearisation is ``h`` times the identity across it)."""
    th = 2 * np.pi * np.arange(GRID) / GRID
    f, h = np.empty(GRID), np.empty(GRID)
    with ctx.workprec(53):
        heads, beta = _heads(problem)
        for n, t in enumerate(th):
            c, s = arb(float(np.cos(t))), arb(float(np.sin(t)))
            if problem.mask == "causal":
                f[n] = float(token1_speed(heads, c, s).mid())
                h[n] = float(token2_slope(heads, beta, c, s, c, s).mid())
            else:
                G, dG = full_rates(heads, beta, [(c, s)] * problem.N)
                f[n] = float(G[0].mid())
                h[n] = float((dG[1][1] - dG[0][1]).mid())
    return th, f, h


def _dyadic(v: float, bits: int = 40) -> Fraction:
    return Fraction(round(v * 2**bits), 2**bits)


def propose_repulsion(problem: FateProblem) -> tuple[Repulsion | None, RepulsionCheck | None, str]:
    """``(data, its check, why)``: a proved :class:`Repulsion`, or ``(None, last check or None, why not)``."""
    if problem.d != 2 or problem.N < 2 or (problem.mask == "full" and problem.N > MAX_FULL_N):
        return None, None, f"the repulsion route is for d = 2 (full mask: N <= {MAX_FULL_N})"
    th, f, h = _profiles(problem)
    if np.min(h) > 0:  # repelling everywhere: no weight needed
        a, b = (Fraction(0),), (Fraction(0),)
    else:
        if not (np.all(f > 0) or np.all(f < 0)) or np.min(np.abs(f)) < 1e-3 * np.max(np.abs(f)):
            return None, None, "the repulsion rate is negative somewhere and token 1 does not rotate"
        kappa = float(np.sum(h / f) / np.sum(1 / f))
        if not kappa > 1e-6:
            return None, None, f"the tokens do not repel from consensus on average over a turn of token 1 (kappa = {kappa:.3g})"
        target = 2 * (kappa - h) / f
        spec = np.fft.rfft(target) / GRID
        fmax = float(np.max(np.abs(f)))
        K = None
        for k in range(1, min(64, GRID // 2 - 1) + 1):
            fit = np.fft.irfft(np.concatenate([[0], spec[1:k + 1], np.zeros(GRID // 2 + 1 - k - 1)]) * GRID, GRID)
            if np.max(np.abs(fit - target)) * fmax / 2 < kappa / 32:
                K = k
                break
        if K is None:
            return None, None, "W' is not well fitted by 64 harmonics"
        A, B = 2 * spec[1:K + 1].real, -2 * spec[1:K + 1].imag  # W' ~ sum A_k cos k th + B_k sin k th
        ks = np.arange(1, K + 1)
        a = tuple(_dyadic(-float(v)) for v in B / ks)  # W' = sum k (b_k cos - a_k sin): b_k = A_k / k, a_k = -B_k / k
        b = tuple(_dyadic(float(v)) for v in A / ks)
    last = None
    for delta, boxes in CAUSAL_TRIES if problem.mask == "causal" else FULL_TRIES:
        data = Repulsion(a, b, delta, boxes)
        last = check_repulsion(problem, data)
        if last.ok:
            return data, last, ""
    return None, last, f"the repulsion was not proved: {last.reason}"


__all__ = ["propose_repulsion"]
