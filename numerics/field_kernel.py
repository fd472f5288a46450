"""Eq. 5 evaluated in place, for integrators that call the field thousands of times.

Same formula and the same floating-point steps as :func:`numerics.field.attention_field`
(which calls this with fresh buffers):

    Y = X P^T,  S = beta X Y^T (+ causal mask),  E = exp(S),  T = E V (V = X or X U^T),
    Z = E 1,    G = sum_h T_h / Z_h,                 F = G - X <X, G>   (row-wise).

Why a separate kernel: at the shapes of a batched run (``B = 256``, ``N = 32``, ``d = 16``) each
temporary is 1-2 MB, and a fresh allocation of that size costs page faults comparable to the
matrix product that fills it.  :class:`FieldBuffers` keeps one set of buffers for the largest
batch and every call writes into leading slices of them (leading slices of C-contiguous arrays
stay contiguous, so BLAS sees plain strided matrices).  ``Z`` is ``E 1`` instead of a column of
``E [X, 1]``: no concatenation, and a ``d``-wide product is faster than a ``d + 1``-wide one.

``scale`` (shape ``(b,)``) multiplies each instance's result: Runge–Kutta stages want ``h k``, and
folding ``h`` into ``1/Z`` costs nothing.  The projection is linear, so ``scale`` commutes with it.

Not guaranteed: the rounding differs from the field before this kernel existed (``T * (h/Z)``
instead of ``T / Z``) by a few units in the last place; nothing bounds the round-off.
"""
from __future__ import annotations

from typing import final

import numpy as np


@final
class FieldBuffers:
    """Scratch arrays for batches of up to ``capacity`` instances of shape ``(N, d)``.

    Mutable by design (it is a workspace, not a result); one per thread, never shared.
    """

    def __init__(self, capacity: int, N: int, d: int) -> None:
        self.capacity, self.N, self.d = capacity, N, d
        self.Y = np.empty((capacity, N, d))
        self.S = np.empty((capacity, N, N))
        self.T = np.empty((capacity, N, d))
        self.Z = np.empty((capacity, N))
        self.c = np.empty((capacity, N))
        self.tmp = np.empty((capacity, N, d))
        self.ones = np.ones(N)
        self._V: np.ndarray | None = None
        self._mask: np.ndarray | None = None

    @property
    def V(self) -> np.ndarray:
        if self._V is None:
            self._V = np.empty((self.capacity, self.N, self.d))
        return self._V

    @property
    def causal_mask(self) -> np.ndarray:
        """``0`` on and below the diagonal, ``-inf`` above (``j > i`` is outside the mask)."""
        if self._mask is None:
            self._mask = np.triu(np.full((self.N, self.N), -np.inf), 1)
        return self._mask


def field_into(X: np.ndarray, P: np.ndarray, U: np.ndarray | None, beta: np.ndarray | None, causal: bool,
               stabilize: bool, out: np.ndarray, buf: FieldBuffers, scale: np.ndarray | None = None) -> np.ndarray:
    """Write eq. 5 at ``X`` (``(b, N, d)``, C-contiguous) into ``out`` and return it.

    ``P``, ``U``, ``beta`` as in :func:`numerics.field.attention_field` (leading axis ``b`` or ``1``
    for shared matrices); ``out`` must not alias ``X``.
    """
    b, N, d = X.shape
    H = P.shape[1]
    Y, S, T = buf.Y[:b], buf.S[:b], buf.T[:b]
    Z, c, tmp = buf.Z[:b], buf.c[:b], buf.tmp[:b]
    flat = X.reshape(b * N, d)
    for h in range(H):
        if P.shape[0] == 1:
            np.matmul(flat, P[0, h].T, out=Y.reshape(b * N, d))
        else:
            np.matmul(X, np.swapaxes(P[:, h], -1, -2), out=Y)
        np.matmul(X, np.swapaxes(Y, -1, -2), out=S)
        if beta is not None:
            S *= beta.reshape(-1, 1, 1)
        if causal:
            S += buf.causal_mask
        if stabilize:
            S -= S.max(axis=-1, keepdims=True)
        np.exp(S, out=S)
        if U is None:
            V = X
        else:
            V = buf.V[:b]
            if U.shape[0] == 1:
                np.matmul(flat, U[0, h].T, out=V.reshape(b * N, d))
            else:
                np.matmul(X, np.swapaxes(U[:, h], -1, -2), out=V)
        np.matmul(S, V, out=T)
        np.matmul(S, buf.ones, out=Z)
        if scale is None:
            np.reciprocal(Z, out=Z)
        else:
            np.divide(scale[:, None], Z, out=Z)
        if h == 0:
            np.multiply(T, Z[..., None], out=out)
        else:
            T *= Z[..., None]
            out += T
    np.einsum("bnd,bnd->bn", X, out, out=c)
    np.multiply(X, c[..., None], out=tmp)
    out -= tmp
    return out
