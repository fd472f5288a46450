"""Taylor coefficients of the solution of eq. 5 by automatic differentiation (the recurrences are
listed in :mod:`numerics.taylor`), in mixed precision.

Why mixed precision is safe: with step ``h ~ rho eps^(1/K)`` (``rho`` the radius of convergence)
the ``k``-th term ``X_k h^k`` has size about ``eps^(k/K)``, so ``X_k`` is needed only to the
relative accuracy ``eps^(1 - k/K)``, and each product that enters it has the same size as the
coefficient.  Orders with ``(1 - k/K) log2(1/eps) <= 53 - 12`` therefore need nothing beyond
float64; they are computed with numpy floats from rounded copies of the exact low orders.  The
low orders are computed in exact fixed point.  If float64 overflows (radius of convergence far
below one) the whole expansion falls back to fixed point.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .fixed_point import fixed_exp, to_float_array, zeros

_FLOAT_BITS = 41
"""Relative accuracy (bits) trusted from float64 orders, leaving 12 bits for accumulation."""


def float_switch(order: int, target_bits: float) -> int:
    """First order computed in float64 (``order + 1`` means none)."""
    if target_bits <= _FLOAT_BITS:
        return 1
    return min(order + 1, max(1, math.ceil(order * (1.0 - _FLOAT_BITS / target_bits))))


class _Int:
    def __init__(self, prec: int) -> None:
        self.prec = prec

    def sh(self, a):
        return a >> self.prec

    @staticmethod
    def div(a, b):
        return a // b

    def exp(self, S):
        return fixed_exp(S, self.prec)

    def zeros(self, shape):
        return zeros(shape)


class _Float:
    @staticmethod
    def sh(a):
        return a

    @staticmethod
    def div(a, b):
        return a / b

    @staticmethod
    def exp(S):
        return np.exp(S)

    @staticmethod
    def zeros(shape):
        return np.zeros(shape)


def _order(k: int, ar, Xs, store, Gsum, R, heads, mask) -> None:
    """Fill every series at order ``k`` and the state coefficient ``X_{k+1}``."""
    for (BPT, UT), st in zip(heads, store):
        if len(BPT) == 1:
            st["Y"][k] = ar.sh(np.dot(Xs[k], BPT[0]))
        else:
            m = min(k, len(BPT) - 1)
            st["Y"][k] = ar.sh(np.tensordot(Xs[k - m:k + 1], np.stack(BPT[m::-1]), axes=([0, 2], [0, 1])))
        S = ar.sh(np.tensordot(Xs[:k + 1], st["Y"][k::-1], axes=([0, 2], [0, 2])))
        E = st["E"]
        if k == 0:
            E[0] = ar.exp(S)
            if mask is not None:
                E[0][~mask] = 0
        else:
            st["mS"][k] = S * k
            E[k] = ar.div(ar.sh((st["mS"][1:k + 1] * E[k - 1::-1]).sum(axis=0)), k)
        st["Z"][k] = E[k].sum(axis=1)
        if UT is None:
            st["W"][k] = Xs[k]
        elif len(UT) == 1:
            st["W"][k] = ar.sh(np.dot(Xs[k], UT[0]))
        else:
            m = min(k, len(UT) - 1)
            st["W"][k] = ar.sh(np.tensordot(Xs[k - m:k + 1], np.stack(UT[m::-1]), axes=([0, 2], [0, 1])))
        T = np.tensordot(E[:k + 1], st["W"][k::-1], axes=([0, 2], [0, 1]))
        num = T if k == 0 else T - (st["Z"][1:k + 1, :, None] * st["G"][k - 1::-1]).sum(axis=0)
        st["G"][k] = ar.div(num, st["Z"][0][:, None])
        Gsum[k] = Gsum[k] + st["G"][k]
    R[k] = ar.sh((Xs[:k + 1] * Gsum[k::-1]).sum(axis=(0, 2)))
    F = Gsum[k] - ar.sh((Xs[:k + 1] * R[k::-1][:, :, None]).sum(axis=0))
    Xs[k + 1] = ar.div(F, k + 1)


def _allocate(ar, K: int, N: int, d: int, n_heads: int):
    store = [{"Y": ar.zeros((K + 1, N, d)), "mS": ar.zeros((K + 1, N, N)), "E": ar.zeros((K + 1, N, N)),
              "Z": ar.zeros((K + 1, N)), "W": ar.zeros((K + 1, N, d)), "G": ar.zeros((K + 1, N, d))}
             for _ in range(n_heads)]
    return ar.zeros((K + 1, N, d)), store, ar.zeros((K + 1, N, d)), ar.zeros((K + 1, N))


def taylor_coefficients(X0: np.ndarray, heads, order: int, prec: int, causal: bool,
                        switch: int | None = None) -> tuple[np.ndarray, np.ndarray | None, int]:
    """Coefficients of the solution through ``X0`` (fixed point, ``(N, d)``).

    ``heads``: list of ``(BPT, UT)``, tuples of fixed-point coefficient matrices of ``(beta P)^T``
    and ``U^T`` in ``s`` (``UT = None`` for the identity).  Returns ``(exact, floats, switch)``:
    ``exact[k]`` for ``k < switch`` in fixed point, ``floats[k - switch]`` for ``k >= switch`` as
    float64 arrays (``None`` when ``switch > order``).
    """
    N, d = X0.shape
    K = order
    switch = K + 1 if switch is None else switch
    mask = np.tril(np.ones((N, N), dtype=bool)) if causal else None
    ar = _Int(prec)
    Xs, store, Gsum, R = _allocate(ar, K, N, d, len(heads))
    Xs[0] = X0
    for k in range(min(switch, K + 1) - 1):
        _order(k, ar, Xs, store, Gsum, R, heads, mask)
    if switch > K:
        return Xs, None, K + 1
    fl = _Float()
    conv = lambda a: to_float_array(a, prec)  # noqa: E731
    fheads = [(tuple(conv(c) for c in BPT), None if UT is None else tuple(conv(c) for c in UT)) for BPT, UT in heads]
    fXs, fstore, fGsum, fR = _allocate(fl, K, N, d, len(heads))
    low = slice(0, switch)
    fXs[low] = conv(Xs[low])
    fGsum[low] = conv(Gsum[low])
    fR[low] = conv(R[low])
    for st, fst in zip(store, fstore):
        for key in st:
            fst[key][low] = conv(st[key][low])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        try:
            for k in range(switch - 1, K):
                _order(k, fl, fXs, fstore, fGsum, fR, fheads, mask)
        except FloatingPointError:
            return taylor_coefficients(X0, heads, order, prec, causal, None)
    if not np.all(np.isfinite(fXs)):
        return taylor_coefficients(X0, heads, order, prec, causal, None)
    return Xs[:switch], fXs[switch:], switch


def float_tail_to_fixed(values: np.ndarray, prec: int) -> np.ndarray:
    """Exact conversion of float64 values to fixed point."""
    out = np.empty(values.shape, dtype=object)
    for idx in np.ndindex(values.shape):
        out[idx] = round(Fraction(float(values[idx])) * (1 << prec))
    return out
