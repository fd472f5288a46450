"""The proof of a depth window from a validated enclosure, shared by ``verify depth`` (:mod:`.tight`)
and the re-check of its certificate (:mod:`.window_certificate`): given the exact data, one
validated run and the window read off it (see :mod:`.tight` for the argument that makes ``T_high``
hold for all later times).  Deterministic in its inputs; floats only propose the chart vector ``z``.
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx

from verify.validated.from_system import MAX_STATES

MAX_LAYERS = 2000


def ode_window(theorem_id: str, field, init, horizon: Fraction, eps: Fraction):
    """``(T_low, T_high, trajectory, window)`` of one validated run to ``horizon`` (deterministic in its
    inputs: the certificate's re-check calls it again)."""
    from verify.validated import ValidatedOptions, depth_window, integrate_validated

    traj = integrate_validated(field, init, horizon, options=ValidatedOptions(max_steps=4000))
    window = depth_window(traj, "cap_first" if theorem_id == "4.2" else "diameter", eps)
    return window.T_low, _all_time_high(theorem_id, traj, window, eps), traj, window


def layers_window(theorem_id: str, field, init, tau: Fraction, layers: int, eps: Fraction):
    """``(L_low, L_high, trajectory, window)`` of ``layers`` enclosed layers (see :func:`tight_layer_window`)."""
    from verify.validated import iterate_layers, layer_window

    traj = iterate_layers(field, init, tau, layers)
    window = layer_window(traj.enclosures, "cap_first" if theorem_id == "4.2" else "diameter", eps,
                          traj.options.prec)
    high = None
    if window.T_high is not None:
        high = window.T_high if theorem_id == "4.2" else next(
            (Fraction(k) for k in range(int(window.T_high), len(traj.enclosures))
             if _chart_bound_proves(traj.enclosures[k], eps, traj.options.prec)), None)
    return window.T_low, high, traj, window


def _all_time_high(theorem_id: str, traj, window, eps: Fraction) -> Fraction | None:
    if not traj.steps:
        return None
    if theorem_id == "4.2":
        return window.T_high  # cap <= eps < 1 there, so min_i <x_1, x_i> > 0 and the cap never increases again
    for step in traj.steps:
        if window.T_high is not None and step.t1 < window.T_high:
            continue
        if _chart_bound_proves(step.end, eps, traj.options.prec):
            return step.t1
    return None


def _chart_bound_proves(X, eps: Fraction, prec: int) -> bool:
    """``Q = |z|^2 max_ij |y_i - y_j|^2 / 2 <= eps`` with ``y_i = x_i / <z, x_i>``, ``<z, x_i> > 0``, for every
    point of the boxes ``X``; ``z`` is the rational mean direction of the midpoints (a proposal)."""
    with ctx.workprec(prec):
        mids = [[Fraction(float(c.mid())) for c in row] for row in X]
        z = [sum((r[k] for r in mids), Fraction(0)) for k in range(len(mids[0]))]
        z = [Fraction(v).limit_denominator(10 ** 12) for v in z]
        za = [arb(v.numerator) / v.denominator for v in z]
        Z2 = sum((c * c for c in za), arb(0))
        ys = []
        for row in X:
            s = sum((a * b for a, b in zip(za, row)), arb(0))
            if not s > 0:
                return False
            ys.append([c / s for c in row])
        worst = arb(0)
        for i in range(len(ys)):
            for j in range(i + 1, len(ys)):
                worst = worst.max(sum(((a - b) * (a - b) for a, b in zip(ys[i], ys[j])), arb(0)))
        Q = Z2 * worst / 2
        return bool(Q <= arb(eps.numerator) / eps.denominator)


__all__ = ["MAX_LAYERS", "MAX_STATES", "layers_window", "ode_window"]
