"""Jacobians of the Taylor coefficients with respect to the initial state, in arb balls.

For the solution ``X(s; Y)`` through ``Y`` with coefficients ``X_k(Y)`` (:mod:`.series`), forward
automatic differentiation of the recurrences gives ``D_Y X_k`` in each of the ``n = N d``
coordinate directions ``a = (i, c)``: the seed ``dX_0 = e_i e_c^T``, and for every head
(``dQ`` is the tangent of the series ``Q`` in one direction; sums over ``m = 0..k``)::

    dYt_k = (dX_k (beta P)^T)^T,   dS_k = sum_m dX_m Yt_{k-m} + X_m dYt_{k-m}
    dE_k  = sum_m E_m o dS_{k-m}                       (d exp(S) = exp(S) o dS)
    dZ_k  = dE_k 1,   dW_k = dX_k U^T,   dT_k = sum_m dE_m W_{k-m} + E_m dW_{k-m}
    dG_k  = diag(1/Z_0) (dT_k - sum_{m>=1} diag(Z_m) dG_{k-m} - sum_m diag(dZ_m) G_{k-m})
    dR_k  = diag(sum_m dX_m Gs_{k-m}^T + X_m dGs_{k-m}^T)
    dF_k  = dGs_k - sum_m diag(dR_m) X_{k-m} + diag(R_m) dX_{k-m},   dX_{k+1} = dF_k / (k + 1),

and with the damping of :class:`~.series.Damped` (``n_k`` the rows' ``|x_i|^2`` coefficients)
``dF_k += c (dX_k - sum_m diag(dn_m) X_{k-m} + diag(n_m) dX_{k-m})``, ``dn_k = 2 sum_m <dX_m, X_{k-m}>`` by rows.

Evaluated over a box ``Y`` of balls, each ``dX_k`` contains ``D_Y X_k(y)`` for every ``y`` in the
box, so :meth:`Tangent.jacobian` is a rigorous interval Jacobian.  ``dX_1`` is the Jacobian of
the field; the tangent of ``Gs_0`` (:meth:`Tangent.softmax_jacobian`) is the one the layer map needs.

Not guaranteed: tightness over wide boxes (as for the series).  The cost is ``n`` times that of
the series for the same order, so callers ask for low orders.
"""
from __future__ import annotations

from typing import Sequence

from flint import arb, arb_mat

from .series import Series, diagonal as diag, horner, row_dots, square


class _HeadTangent:
    def __init__(self) -> None:
        self.dYt: list[arb_mat] = []
        self.ds: list[list[arb]] = []
        self.dE: list[arb_mat] = []
        self.dZd: list[arb_mat] = []
        self.dW: list[arb_mat] = []
        self.dG: list[arb_mat] = []


class _Direction:
    def __init__(self, seed: arb_mat, heads: int) -> None:
        self.dX = [seed]
        self.hs = [_HeadTangent() for _ in range(heads)]
        self.dGs: list[arb_mat] = []
        self.dGst: list[arb_mat] = []
        self.dRd: list[arb_mat] = []
        self.dNd: list[arb_mat] = []


class Tangent:
    """Tangents ``dX[0..order]`` of the series ``base`` in every coordinate direction."""

    def __init__(self, base: Series, order: int) -> None:
        base.extend(order)
        self.base = base
        N, d = base.N, base.d
        self.n = N * d
        self.dirs = []
        for a in range(self.n):
            seed = arb_mat(N, d)
            seed[a // d, a % d] = arb(1)
            self.dirs.append(_Direction(seed, len(base.heads)))
        for k in range(order):
            for direction in self.dirs:
                self._next(direction, k)
        self.order = order

    def _next(self, u: _Direction, k: int) -> None:
        b = self.base
        X, dX, N = b.X, u.dX, b.N
        dGs = None
        for (Bt, Ut), st, tt in zip(b.heads, b.hs, u.hs):
            tt.dYt.append((dX[k] * Bt).transpose())
            dS = dX[0] * st.Yt[k] + X[0] * tt.dYt[k]
            for m in range(1, k + 1):
                dS += dX[m] * st.Yt[k - m] + X[m] * tt.dYt[k - m]
            ent = dS.entries()
            tt.ds.append([ent[p] for p in b.positions])
            acc = [a * c for a, c in zip(st.e[0], tt.ds[k])]
            for m in range(1, k + 1):
                acc = [v + a * c for v, a, c in zip(acc, st.e[m], tt.ds[k - m])]
            tt.dE.append(square(acc, b.positions, N))
            tt.dZd.append(diag((tt.dE[k] * b.ones).entries()))
            tt.dW.append(dX[k] if Ut is None else dX[k] * Ut)
            T = tt.dE[0] * st.W[k] + st.E[0] * tt.dW[k] - tt.dZd[0] * st.G[k]
            for m in range(1, k + 1):
                T += tt.dE[m] * st.W[k - m] + st.E[m] * tt.dW[k - m]
                T -= st.Zd[m] * tt.dG[k - m] + tt.dZd[m] * st.G[k - m]
            dG = st.invZ0 * T
            tt.dG.append(dG)
            dGs = dG if dGs is None else dGs + dG
        u.dGs.append(dGs)
        u.dGst.append(dGs.transpose())
        Rm = dX[0] * b.Gst[k] + X[0] * u.dGst[k]
        for m in range(1, k + 1):
            Rm += dX[m] * b.Gst[k - m] + X[m] * u.dGst[k - m]
        u.dRd.append(diag([Rm[i, i] for i in range(N)]))
        F = dGs - u.dRd[0] * X[k] - b.Rd[0] * dX[k]
        for m in range(1, k + 1):
            F -= u.dRd[m] * X[k - m] + b.Rd[m] * dX[k - m]
        if b.damping is not None:  # d(c (X_k - sum_m diag(n_m) X_{k-m})), dn = 2 <x, dx> by rows
            dn = [2 * v for v in row_dots(dX, X, k)]
            u.dNd.append(diag(dn))
            D = dX[k]
            for m in range(k + 1):
                D -= u.dNd[m] * X[k - m] + b.Nd[m] * dX[k - m]
            F += D * b.damping
        dX.append(F * (arb(1) / (k + 1)))

    def jacobian(self, j: int) -> arb_mat:
        """``D X_j`` as an ``n x n`` matrix (row: flat output index ``i d + c``; column: direction)."""
        return _columns([u.dX[j] for u in self.dirs])

    def combination(self, s: arb, upto: int) -> arb_mat:
        """``sum_{j <= upto} s^j D X_j`` (``n x n``; ``s`` a ball or an interval)."""
        return _columns([horner(u.dX[:upto + 1], s) for u in self.dirs])

    def softmax_jacobian(self) -> list[arb_mat]:
        """Per direction, the tangent of ``Gs_0 = sum_h sum_j a^h_ij U^h x_j`` (``N x d``)."""
        return [u.dGs[0] for u in self.dirs]


def _columns(cols: Sequence[arb_mat]) -> arb_mat:
    n = len(cols)
    flat_cols = [c.entries() for c in cols]
    return arb_mat(len(flat_cols[0]), n, [x for row in zip(*flat_cols) for x in row])


__all__ = ["Tangent"]
