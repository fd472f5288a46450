"""Validated iteration of the layer map (paper eq. 4) with Lohner's wrapping control.

One layer: ``x_i' = pi(v_i)``, ``v_i = x_i + tau sum_h sum_{j in M(i)} a^h_ij U^h x_j``,
``pi(v) = v / |v|`` (both masks; a :class:`~.problem.Field` per layer, or one for all).  The
softmax sum is ``Gs_0`` of :mod:`.series`, its Jacobian the order-0 tangent of :mod:`.tangent`;
``D pi(v) = (I - u u^T) / |v|`` with ``u = pi(v)``.  Per layer, in arb balls:

* point part: ``Phi(xhat)`` evaluated at the exact midpoint ``xhat``;
* Jacobian: ``D Phi(Y) = D pi(v(Y)) (I + tau D Gs_0(Y))`` over the hull ``Y`` (every ``|v_i|`` must
  be provably positive, which also makes ``Phi`` smooth on ``Y``);
* :meth:`~.lohner.LohnerSet.advance` (mean-value theorem on the convex ``Y``, QR-preconditioned
  parallelepiped), intersected with the plain ball evaluation ``Phi(Y)``.

So after layer ``k`` every true token lies in its row of ``enclosures[k]``.  Unlike a plain ball
iteration (:mod:`verify._depth.late_entry`), the widths do not compound by ``|D Phi|`` per layer,
so they stay near the rounding level for hundreds of layers when the map does not expand.

Not guaranteed: that the run reaches ``layers`` (it stops with ``WIDTH_LIMIT`` past
``max_width``, or ``NOT_FINITE`` when some ``|v_i|`` cannot be bounded away from 0).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, final

from flint import arb, arb_mat, ctx

from theorems.errors import InvalidInput, InvalidType

from .balls import ball, field_data, flat, initial_box, intersect, max_width, rows, unflat
from .lohner import LohnerSet
from .problem import Field, Tokens, exact
from .record import Enclosure, ValidatedStats, ValidatedStatus
from .series import Heads, diagonal, series
from .tangent import Tangent


@final
@dataclass(frozen=True)
class LayerOptions:
    """``prec``: arb bits; ``max_width``: stop once an enclosure is wider."""

    prec: int = 128
    max_width: float = 1e-2

    def __post_init__(self) -> None:
        if isinstance(self.prec, bool) or not isinstance(self.prec, int) or not 53 <= self.prec <= 4096:
            raise InvalidInput("prec", "an integer between 53 and 4096", self.prec)
        if not isinstance(self.max_width, (int, float)) or not self.max_width > 0:
            raise InvalidInput("max_width", "a number > 0", self.max_width)


@final
@dataclass(frozen=True, eq=False)
class LayerTrajectory:
    """``enclosures[k]``: every token after ``k`` layers (``k = 0`` the input); ``widths[k]`` the
    largest width there; ``status`` whether all ``layers`` were done."""

    status: ValidatedStatus
    message: str
    tau: Fraction
    enclosures: tuple[Enclosure, ...]
    widths: tuple[float, ...]
    stats: ValidatedStats
    options: LayerOptions

    @property
    def layers(self) -> int:
        return len(self.enclosures) - 1

    @property
    def final(self) -> Enclosure:
        return self.enclosures[-1]


def layer_image(X: arb_mat, heads: Heads, causal: bool, tau: arb) -> tuple[arb_mat, arb_mat, list[arb]]:
    """``(pi(v), v, |v_i|)`` for ``v = X + tau Gs_0(X)`` over the box ``X``."""
    s = series(X, heads, causal, 1)
    v = X + s.Gs[0] * tau
    N, d = X.nrows(), X.ncols()
    ent = v.entries()
    norms = [sum((ent[i * d + c] * ent[i * d + c] for c in range(d)), arb(0)).sqrt() for i in range(N)]
    u = arb_mat(N, d, [ent[i * d + c] / norms[i] for i in range(N) for c in range(d)])
    return u, v, norms


def layer_jacobian(Y: arb_mat, heads: Heads, causal: bool, tau: arb) -> arb_mat | None:
    """``D Phi`` over the box ``Y`` (``n x n``), or None when some ``|v_i|`` is not bounded away from 0."""
    N, d = Y.nrows(), Y.ncols()
    u, v, norms = layer_image(Y, heads, causal, tau)
    if not all(nv.is_finite() and nv > 0 for nv in norms):
        return None
    inv = diagonal([1 / nv for nv in norms])
    ut = u.transpose()
    T = Tangent(series(Y, heads, causal, 1), 1)
    cols = []
    for a, dG in enumerate(T.softmax_jacobian()):
        seed = arb_mat(N, d)
        seed[a // d, a % d] = arb(1)
        dv = seed + dG * tau
        dots = dv * ut
        inner = diagonal([dots[i, i] for i in range(N)])
        cols.append((inv * (dv - inner * u)).entries())
    n = N * d
    return arb_mat(n, n, [x for row in zip(*cols) for x in row])


def iterate_layers(field: Field | Sequence[Field], tokens: Tokens, tau: object, layers: int, *,
                   options: LayerOptions | None = None) -> LayerTrajectory:
    """Validated enclosures of ``layers`` layers of eq. 4 from ``tokens`` (see the module docstring).
    ``field``: one :class:`~.problem.Field`, or a sequence cycled layer by layer."""
    opts = options or LayerOptions()
    fields = [field] if isinstance(field, Field) else list(field)
    if not fields or not all(isinstance(f, Field) for f in fields):
        raise InvalidType("field", "a Field or a non-empty list of Fields", type(field).__name__)
    if any(f.d != tokens.d for f in fields):
        raise InvalidInput("field", f"d = {tokens.d} (the tokens' dimension)", [f.d for f in fields])
    tau_q = exact(tau, "tau")
    if tau_q <= 0:
        raise InvalidInput("tau", "a rational > 0", tau)
    if isinstance(layers, bool) or not isinstance(layers, int) or layers < 0:
        raise InvalidInput("layers", "an integer >= 0", layers)
    start = time.perf_counter()
    N, d = tokens.N, tokens.d
    status, detail = ValidatedStatus.SUCCESS, ""
    with ctx.workprec(opts.prec):
        centres, radius = initial_box(tokens)
        spread = arb(0, radius.abs_upper())
        S = LohnerSet.from_box(flat(arb_mat(N, d, [c + spread for c in centres.entries()])))
        data = [field_data(f) for f in fields]
        t = ball(tau_q)
        out = [rows(unflat(S.box, N, d))]
        widths = [max_width(out[0])]
        for k in range(layers):
            f, heads = fields[k % len(fields)], data[k % len(fields)]
            Y, xhat = unflat(S.box, N, d), unflat(S.xhat, N, d)
            J = layer_jacobian(Y, heads, f.causal, t)
            image = layer_image(xhat, heads, f.causal, t)[0]
            if J is None or not all(x.is_finite() for x in image.entries()):
                status, detail = ValidatedStatus.NOT_FINITE, f"layer {k + 1}: some |v_i| is not bounded away from 0"
                break
            S = S.advance(flat(image), J)
            direct = layer_image(Y, heads, f.causal, t)[0]
            box = arb_mat(N, d, [b.union(p) for b, p in zip(intersect(unflat(S.box, N, d), direct).entries(),
                                                            unflat(S.xhat, N, d).entries())])
            S = LohnerSet(S.xhat, S.A, S.R, flat(box))
            out.append(rows(box))
            widths.append(max_width(box))
            if widths[-1] > opts.max_width:
                status, detail = ValidatedStatus.WIDTH_LIMIT, f"width {widths[-1]:.3g} after layer {k + 1}"
                break
    stats = ValidatedStats(len(out) - 1, 0, time.perf_counter() - start, float(tau_q), float(tau_q))
    message = status.message + (f" ({detail})" if detail else "")
    return LayerTrajectory(status, message, tau_q, tuple(out), tuple(widths), stats, opts)


__all__ = ["LayerOptions", "LayerTrajectory", "iterate_layers", "layer_image", "layer_jacobian"]
