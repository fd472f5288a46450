"""The attention field (paper eq. 5) in gnomonic charts of the product of spheres.

Token ``i`` gets a chart around the hemisphere ``sign_i x_{i,k_i} > 0`` (``k_i`` the pivot
coordinate): ``u_i = (y_i with sign_i inserted at position k_i)``, ``x_i = u_i / |u_i|``, with
``y_i`` in ``R^{d-1}``.  With ``F_i = Proj_{x_i} s_i`` and ``s_i = sum_h sum_{j in M(i)} a^h_ij U^h x_j``
(docs/model.md §1), the flow ``dx_i/dt = F_i`` reads in the chart (``u_i = sign_i x_i / x_{i,k_i}``):

    dy_{i,l}/dt = |u_i| (s_{i,l} - sign_i y_{i,l} s_{i,k_i})       for every l != k_i.   (*)

(The projection drops out: ``F_l x_k - x_l F_k = s_l x_k - x_l s_k``.)  The chart map is a
diffeomorphism onto an open subset of ``(S^{d-1})^N``, so zeros of (*) are exactly the equilibria
of eq. 5 in the chart domain and the Jacobian of (*) at a zero is similar to the tangent
Jacobian of eq. 5 there: the same eigenvalues, the same stability.

:func:`chart_field` evaluates (*) and, on request, its Jacobian by forward differentiation, over
any :class:`~verify.equilibrium.dual.Scalars` (arb balls for proofs, float for hints).  With the
causal mask token ``i``'s field does not depend on tokens ``j > i``; the Jacobian then comes out
with exact zeros above the token blocks (block lower triangular), which the stability check reads.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence, final

from .dual import Dual, Scalars, d_exp, d_sqrt


@final
@dataclass(frozen=True)
class FieldData:
    """Exact constant data of eq. 5 and the charts: ``heads`` is a tuple of ``(P, U)`` rational
    matrices, ``charts`` a tuple of ``(pivot, sign)`` per token."""

    d: int
    beta: Fraction
    mask: str
    heads: tuple[tuple[tuple[tuple[Fraction, ...], ...], tuple[tuple[Fraction, ...], ...]], ...]
    charts: tuple[tuple[int, int], ...]

    @property
    def N(self) -> int:
        return len(self.charts)

    @property
    def n(self) -> int:
        return self.N * (self.d - 1)

    def slots(self, i: int) -> list[int]:
        """Coordinates of token ``i`` that are chart variables (all but the pivot), in order."""
        k = self.charts[i][0]
        return [a for a in range(self.d) if a != k]

    def keys(self, i: int) -> range:
        """Tokens whose state enters the field of token ``i`` (the mask ``M(i)``)."""
        return range(i + 1) if self.mask == "causal" else range(self.N)


def embed(data: FieldData, i: int, y_i: Sequence[Any], pivot: Any) -> list[Any]:
    """``u_i``: the chart coordinates with ``pivot`` (the value ``sign_i``) at the pivot."""
    k = data.charts[i][0]
    u, it = [], iter(y_i)
    for a in range(data.d):
        u.append(pivot if a == k else next(it))
    return u


def _matvec(M, x: list[Dual], s: Scalars, n: int) -> list[Dual]:
    out = []
    for row in M:
        acc = Dual.constant(s.zero, n, s.zero)
        for c, xb in zip(row, x):
            if c:
                acc = acc + xb.scale(s.const(c))
        out.append(acc)
    return out


def chart_field(data: FieldData, y: Sequence[Any], s: Scalars, jacobian: bool) -> tuple[list[Any], list[list[Any]]]:
    """Values of (*) at ``y`` (length ``n``, scalars of ``s``) and, if ``jacobian``, the ``n x n``
    Jacobian (row ``r`` = component ``r`` of the field, column ``c`` = variable ``c``)."""
    d, N = data.d, data.N
    n = data.n if jacobian else 0
    m = d - 1
    zero, one = s.zero, s.zero + 1
    var = [Dual.variable(y[r], r, n, zero) if jacobian else Dual(y[r], ()) for r in range(data.n)]
    u = [embed(data, i, var[i * m:(i + 1) * m], Dual.constant(one * data.charts[i][1], n, zero)) for i in range(N)]
    norms = [d_sqrt(_dot(ui, ui, s, n), s) for ui in u]
    x = [[c / norms[i] for c in u[i]] for i in range(N)]
    beta = s.const(data.beta)
    heads = [(_tuple_matvecs(P, x, s, n), _tuple_matvecs(U, x, s, n)) for P, U in data.heads]
    values, rows = [], []
    for i in range(N):
        total = [Dual.constant(zero, n, zero) for _ in range(d)]
        for Px, Ux in heads:
            weights = {j: d_exp(_dot(x[i], Px[j], s, n).scale(beta), s) for j in data.keys(i)}
            z = Dual.constant(zero, n, zero)
            acc = [Dual.constant(zero, n, zero) for _ in range(d)]
            for j, w in weights.items():
                z = z + w
                acc = [a + Ux[j][b] * w for b, a in enumerate(acc)]
            total = [t + a / z for t, a in zip(total, acc)]
        k, sign = data.charts[i]
        for l, a in enumerate(data.slots(i)):
            comp = norms[i] * (total[a] - (var[i * m + l] * total[k]).scale(one * sign))
            values.append(comp.value)
            rows.append(list(comp.grad))
    return values, rows


def _tuple_matvecs(M, x, s, n):
    return [_matvec(M, xj, s, n) for xj in x]


def _dot(a: list[Dual], b: list[Dual], s: Scalars, n: int) -> Dual:
    acc = Dual.constant(s.zero, n, s.zero)
    for p, q in zip(a, b):
        acc = acc + p * q
    return acc


def token_points(data: FieldData, y: Sequence[Any], s: Scalars) -> list[list[Any]]:
    """The points ``x_i = u_i / |u_i|`` (no derivatives), for witness checks."""
    m = data.d - 1
    out = []
    for i in range(data.N):
        u = embed(data, i, y[i * m:(i + 1) * m], (s.zero + 1) * data.charts[i][1])
        norm = s.sqrt(sum((c * c for c in u), s.zero))
        out.append([c / norm for c in u])
    return out
