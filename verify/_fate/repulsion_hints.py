"""Float proposals for :mod:`.repulsion` (NumPy; outside the trust base).

On a grid of token 1's angle: ``f`` (its speed) and ``h = dg/dth_2`` at ``th_2 = th_1``, from the same
formulas as the check, evaluated at 53-bit points.  Token 1 must rotate (``f`` of one sign, away from 0)
and the time average ``kappa = (int h / f) / (int 1 / f)`` must be positive; then ``W' = 2 (kappa - h) / f``
has mean 0, its Fourier series gives the harmonics of ``W`` (rounded to dyadic rationals), and the band
``delta`` is tried from wide to narrow (a wider band proves a larger distance), each with coarse boxes first.  Every proposal is
re-proved by :func:`~.repulsion.check_repulsion`; a bad one costs a fate, never soundness.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb, ctx

from .problem import FateProblem
from .repulsion import Repulsion, RepulsionCheck, _heads, check_repulsion, token1_speed, token2_slope

GRID = 512
DELTAS = (Fraction(1, 4), Fraction(1, 8), Fraction(1, 16), Fraction(1, 32), Fraction(1, 64), Fraction(1, 128))
BOXES = (512, 2048, 8192)


def _profiles(problem: FateProblem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    th = 2 * np.pi * np.arange(GRID) / GRID
    f, h = np.empty(GRID), np.empty(GRID)
    with ctx.workprec(53):
        heads, beta = _heads(problem)
        for n, t in enumerate(th):
            c, s = arb(float(np.cos(t))), arb(float(np.sin(t)))
            f[n] = float(token1_speed(heads, c, s).mid())
            h[n] = float(token2_slope(heads, beta, c, s, c, s).mid())
    return th, f, h


def _dyadic(v: float, bits: int = 40) -> Fraction:
    return Fraction(round(v * 2**bits), 2**bits)


def propose_repulsion(problem: FateProblem) -> tuple[Repulsion | None, RepulsionCheck | None, str]:
    """``(data, its check, why)``: a proved :class:`Repulsion`, or ``(None, last check or None, why not)``."""
    if problem.mask != "causal" or problem.d != 2 or problem.N < 2:
        return None, None, "the repulsion route is for the causal mask in d = 2"
    th, f, h = _profiles(problem)
    if not (np.all(f > 0) or np.all(f < 0)) or np.min(np.abs(f)) < 1e-3 * np.max(np.abs(f)):
        return None, None, "token 1 does not rotate (its speed on the circle vanishes somewhere)"
    kappa = float(np.sum(h / f) / np.sum(1 / f))
    if not kappa > 1e-6:
        return None, None, f"tokens 1 and 2 do not repel on average over a turn of token 1 (kappa = {kappa:.3g})"
    target = 2 * (kappa - h) / f
    spec = np.fft.rfft(target) / GRID
    fmax = float(np.max(np.abs(f)))
    K = None
    for k in range(1, min(64, GRID // 2 - 1) + 1):
        fit = np.fft.irfft(np.concatenate([[0], spec[1:k + 1], np.zeros(GRID // 2 + 1 - k - 1)]) * GRID, GRID)
        if np.max(np.abs(fit - target)) * fmax / 2 < kappa / 8:
            K = k
            break
    if K is None:
        return None, None, "W' is not well fitted by 64 harmonics"
    A, B = 2 * spec[1:K + 1].real, -2 * spec[1:K + 1].imag  # W' ~ sum A_k cos k th + B_k sin k th
    ks = np.arange(1, K + 1)
    a = tuple(_dyadic(-float(v)) for v in B / ks)  # W' = sum k (b_k cos - a_k sin): b_k = A_k / k, a_k = -B_k / k
    b = tuple(_dyadic(float(v)) for v in A / ks)
    last = None
    for delta in DELTAS:
        for boxes in BOXES:
            data = Repulsion(a, b, delta, boxes)
            last = check_repulsion(problem, data)
            if last.ok:
                return data, last, ""
    return None, last, f"the repulsion (kappa = {kappa:.3g}) was not proved: {last.reason}"


__all__ = ["propose_repulsion"]
