"""Taylor coefficients of the solution of eq. 5 in arb ball arithmetic, through a point or a box.

Around ``t0`` the solution is ``X(t0 + s) = sum_k X_k s^k``.  The coefficients follow from the
field by the recurrences of automatic differentiation (Moore 1966; Jorba & Zou, *Exp. Math.* 14,
2005; the same recurrences as :mod:`numerics.taylor`), for every head ``h``
(``B = beta P^h``, ``o`` the entrywise product, sums over ``m = 0..k`` unless stated)::

    S_k = sum_m X_m (X_{k-m} B^T)^T            (S_ij = beta <x_i, P x_j>)
    E_0 = exp(S_0) on the mask, 0 off it;   E_k = (1/k) sum_{m=1..k} m S_m o E_{k-m}
    Z_k = E_k 1,   W_k = X_k U^T,   T_k = sum_m E_m W_{k-m}
    G_k = diag(1/Z_0) (T_k - sum_{m=1..k} diag(Z_m) G_{k-m})          (G = diag(1/Z) E W)
    Gs_k = sum_h G^h_k,   R_k = diag(sum_m X_m Gs_{k-m}^T)             (R_i = <x_i, Gs_i>)
    F_k = Gs_k - sum_m diag(R_m) X_{k-m},   X_{k+1} = F_k / (k + 1).

Each ``X_k`` is computed with python-flint ``arb_mat`` products and ``arb`` operations, all outward
rounded, so when ``X_0`` is a box of balls every returned ``X_k`` contains the ``k``-th Taylor
coefficient of the solution through *every* point of the box (inclusion isotonicity of ball
arithmetic).  ``X_1`` is the field ``F(X_0)`` itself.  Call inside a ``flint.ctx.workprec`` scope.

Not guaranteed: tightness.  Over a wide box the high coefficients are overestimated (the
dependency problem grows with the order); the integrator keeps boxes narrow where it can.
"""
from __future__ import annotations

from typing import Sequence

from flint import arb, arb_mat

Heads = Sequence[tuple[arb_mat, "arb_mat | None"]]
"""Per head ``((beta P)^T, U^T)`` as ball matrices (``U^T = None`` for ``U = I``), from :func:`~.balls.field_data`."""


class Damped(tuple):
    """Heads whose field carries a normal damping term: ``F(X) + c (1 - |x_i|^2) x_i`` row by row,
    ``c`` an exact integer.

    On the unit sphere the term is 0, so this field equals eq. 5 there.  Why a run from tokens on the
    sphere encloses eq. 5's solution: eq. 5's solution ``x(t)`` stays on the sphere (``|x_i|^2`` obeys
    ``r' = 2 <x_i, v_i> (1 - r)`` along it, and ``r = 1`` solves that linear equation with ``r(0) = 1``),
    so ``x(t)`` also solves the damped equation; both fields are smooth (locally Lipschitz), so it is
    the damped equation's unique solution from the same point.  Off the sphere the two differ: with
    ``c`` above ``|<x_i, v_i>|`` the norm is attracted to 1 (``r' = 2 (1 - r) (<x_i, v_i> + c r)``)
    instead of repelled where ``<x_i, v_i> < 0``, which is what keeps an enclosure (a set that is not
    on the sphere) from widening along the normal directions.  Only for runs whose claims concern
    points on the sphere (:mod:`verify._fate.flow`)."""

    c: int

    def __new__(cls, heads: Heads, c: int) -> "Damped":
        if isinstance(c, bool) or not isinstance(c, int) or c <= 0:
            raise ValueError("the damping must be a positive integer")
        obj = super().__new__(cls, heads)
        obj.c = c
        return obj


def mask_positions(N: int, causal: bool) -> list[int]:
    """Flat indices ``i * N + j`` of the pairs ``j in M(i)``."""
    return [i * N + j for i in range(N) for j in range(N) if not causal or j <= i]


def square(values: Sequence[arb], positions: Sequence[int], N: int) -> arb_mat:
    """An ``N x N`` matrix with ``values`` at ``positions`` and exact zeros elsewhere."""
    if len(positions) == N * N:
        return arb_mat(N, N, values)
    out = [0] * (N * N)
    for p, v in zip(positions, values):
        out[p] = v
    return arb_mat(N, N, out)


def diagonal(values: Sequence[arb]) -> arb_mat:
    n = len(values)
    D = arb_mat(n, n)
    for i, v in enumerate(values):
        D[i, i] = v
    return D


class HeadSeries:
    """Work arrays of one head (lists indexed by the order)."""

    def __init__(self) -> None:
        self.Yt: list[arb_mat] = []     # (X_k (beta P)^T)^T, d x N
        self.mS: list[list[arb]] = []   # k * S_k on the mask
        self.e: list[list[arb]] = []    # E_k on the mask
        self.E: list[arb_mat] = []      # E_k, N x N
        self.Zd: list[arb_mat] = []     # diag(Z_k)
        self.W: list[arb_mat] = []      # X_k U^T
        self.G: list[arb_mat] = []
        self.invZ0: arb_mat | None = None


class Series:
    """The Taylor coefficients ``X[0..order]`` of the solution through ``X0`` (``N x d`` balls).

    Construct, then :meth:`extend` to the order needed; the intermediate series stay available
    (the tangent recurrences of :mod:`.tangent` reuse them)."""

    def __init__(self, X0: arb_mat, heads: Heads, causal: bool) -> None:
        self.N, self.d = X0.nrows(), X0.ncols()
        self.heads = tuple(heads)
        self.causal = causal
        self.positions = mask_positions(self.N, causal)
        self.X: list[arb_mat] = [X0]
        self.hs = [HeadSeries() for _ in self.heads]
        self.Gs: list[arb_mat] = []
        self.Gst: list[arb_mat] = []
        self.Rd: list[arb_mat] = []
        self.ones = arb_mat(self.N, 1, [1] * self.N)
        self.damping = heads.c if isinstance(heads, Damped) else None
        self.Nd: list[arb_mat] = []  # diag(|x_i|^2)_k, only with damping

    @property
    def order(self) -> int:
        return len(self.X) - 1

    def extend(self, order: int) -> "Series":
        while self.order < order:
            self._next()
        return self

    def _next(self) -> None:
        k = self.order
        X, N, one = self.X, self.N, arb(1)
        Gs = None
        for (Bt, Ut), st in zip(self.heads, self.hs):
            st.Yt.append((X[k] * Bt).transpose())
            S = X[0] * st.Yt[k]
            for m in range(1, k + 1):
                S += X[m] * st.Yt[k - m]
            s = S.entries()
            pos = self.positions
            if k == 0:
                e = [s[p].exp() for p in pos]
                st.mS.append([arb(0)] * len(pos))
            else:
                st.mS.append([k * s[p] for p in pos])
                acc = [a * b for a, b in zip(st.mS[1], st.e[k - 1])]
                for m in range(2, k + 1):
                    acc = [u + a * b for u, a, b in zip(acc, st.mS[m], st.e[k - m])]
                inv_k = one / k
                e = [u * inv_k for u in acc]
            st.e.append(e)
            st.E.append(square(e, pos, N))
            Z = (st.E[k] * self.ones).entries()
            st.Zd.append(diagonal(Z))
            if k == 0:
                st.invZ0 = diagonal([one / z for z in Z])
            st.W.append(X[k] if Ut is None else X[k] * Ut)
            T = st.E[0] * st.W[k]
            for m in range(1, k + 1):
                T += st.E[m] * st.W[k - m]
                T -= st.Zd[m] * st.G[k - m]
            G = st.invZ0 * T
            st.G.append(G)
            Gs = G if Gs is None else Gs + G
        self.Gs.append(Gs)
        self.Gst.append(Gs.transpose())
        Rm = X[0] * self.Gst[k]
        for m in range(1, k + 1):
            Rm += X[m] * self.Gst[k - m]
        self.Rd.append(diagonal([Rm[i, i] for i in range(N)]))
        F = Gs - self.Rd[0] * X[k]
        for m in range(1, k + 1):
            F -= self.Rd[m] * X[k - m]
        if self.damping is not None:  # + c (X_k - sum_m diag(n_m) X_{k-m}),  n_i = |x_i|^2
            self.Nd.append(diagonal(row_dots(X, X, k)))
            D = X[k] - self.Nd[0] * X[k]
            for m in range(1, k + 1):
                D -= self.Nd[m] * X[k - m]
            F += D * self.damping
        X.append(F * (one / (k + 1)))


def row_dots(A: Sequence[arb_mat], B: Sequence[arb_mat], k: int) -> list[arb]:
    """``sum_{m=0..k} <row i of A_m, row i of B_{k-m}>`` for every row ``i``."""
    N, d = A[0].nrows(), A[0].ncols()
    out = []
    for i in range(N):
        acc = arb(0)
        for m in range(k + 1):
            Am, Bm = A[m], B[k - m]
            for a in range(d):
                acc += Am[i, a] * Bm[i, a]
        out.append(acc)
    return out


def series(X0: arb_mat, heads: Heads, causal: bool, order: int) -> Series:
    """:class:`Series` through ``X0`` extended to ``order``."""
    return Series(X0, heads, causal).extend(order)


def field(X0: arb_mat, heads: Heads, causal: bool) -> arb_mat:
    """The right-hand side of eq. 5 over the box ``X0`` (``X_1`` of the series)."""
    return series(X0, heads, causal, 1).X[1]


def horner(coeffs: Sequence[arb_mat], s: arb) -> arb_mat:
    """``sum_j s^j coeffs[j]`` by Horner's rule (``s`` a ball or an interval such as ``[0, h]``)."""
    acc = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = c + acc * s
    return acc


__all__ = ["Damped", "Series", "diagonal", "field", "horner", "mask_positions", "series", "square"]
