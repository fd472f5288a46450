"""Symbolic (SymPy, exact) steps of the layer-map bounds (eq. 4, ``U^h = I``).

* :func:`layer_chart_identity`: with ``v_i = x_i + tau sum_j A_ij x_j`` and ``x_i' = v_i/|v_i|``,
  the chart point ``y_i' = x_i'/<z, x_i'> = v_i/<z, v_i>`` equals ``sum_j W_ij y_j`` with
  ``W_ij = (delta_ij s_i + tau A_ij s_j) / (s_i + tau sum_l A_il s_l)``, ``s_j = <z, x_j>``: a
  stochastic matrix (rows sum to one; entries ``>= 0`` when every ``s_j > 0`` and ``A >= 0``).
  Checked for three tokens in ``R^2`` with symbolic entries (coordinatewise the same computation; linear in each token,
  and the same computation holds for any ``N`` and ``d``).
* :func:`token2_layer_identity`: causal, token 2, ``a = <x_1, x_2>``, ``w = sum_h a^h_21``,
  ``alpha = 1 + tau (H - w)``, ``b = tau w``: ``v = alpha x_2 + b x_1``,
  ``|v|^2 = alpha^2 + b^2 + 2 alpha b a`` and
  ``(alpha a + b)^2 - a^2 |v|^2 = (1 - a^2) b (b + 2 alpha a)``.  Hence ``a' = <x_1, v>/|v| >= a``
  for every ``tau > 0``: if ``a >= 0`` both sides are ``>= 0`` and the identity gives
  ``(a')^2 >= a^2``; if ``a < 0 <= alpha a + b`` then ``a' >= 0 > a``; if ``alpha a + b < 0`` then
  ``b + 2 alpha a < alpha a < 0`` and the identity gives ``(a')^2 <= a^2`` with ``a' < 0``.
  Equality only at ``a = +-1`` (``b > 0``): token 2 approaches ``x_1`` monotonically.
"""
from __future__ import annotations

import functools

import sympy

from theorems.verdict import Verdict, fails, holds


@functools.lru_cache(maxsize=1)
def layer_chart_identity() -> Verdict:
    n, d = 3, 2
    tau = sympy.Symbol("tau", positive=True)
    X = [sympy.Matrix(sympy.symbols(f"x{i}_0:{d}", real=True)) for i in range(n)]
    z = sympy.Matrix(sympy.symbols(f"z0:{d}", real=True))
    A = sympy.Matrix(n, n, lambda i, j: sympy.Symbol(f"A{i}{j}", nonnegative=True))
    s = [z.dot(x) for x in X]
    residuals = []
    for i in range(n):
        v = X[i] + tau * sum((A[i, j] * X[j] for j in range(n)), sympy.zeros(d, 1))
        den = s[i] + tau * sum(A[i, j] * s[j] for j in range(n))
        if sympy.expand(z.dot(v) - den) != 0:
            return fails("layer_chart_identity", f"<z, v_{i}> differs from the denominator")
        num = [(s[i] if j == i else 0) + tau * A[i, j] * s[j] for j in range(n)]  # W_ij = num_j / den
        if sympy.expand(sum(num) - den) != 0:
            return fails("layer_chart_identity", f"row {i} of W does not sum to 1")
        # den * (v_i/den - sum_j W_ij y_j) = v_i - sum_j num_j x_j / s_j, a rational function: cancel it
        residuals += [sympy.cancel(c) for c in (v - sum((num[j] * X[j] / s[j] for j in range(n)), sympy.zeros(d, 1)))]
    if any(r != 0 for r in residuals):
        return fails("layer_chart_identity", "the chart of eq. 4 is not the stochastic update")
    return holds("layer_chart_identity", "y_i' = v_i/<z,v_i> = sum_j W_ij y_j, W stochastic (exact SymPy identity)")


@functools.lru_cache(maxsize=1)
def token2_layer_identity() -> Verdict:
    a, w, tau, H = sympy.symbols("a w tau H", real=True)
    alpha, b = 1 + tau * (H - w), tau * w
    norm2 = sympy.expand(alpha ** 2 + b ** 2 + 2 * alpha * b * a)
    lhs = sympy.expand((alpha * a + b) ** 2 - a ** 2 * norm2)
    rhs = sympy.expand((1 - a ** 2) * b * (b + 2 * alpha * a))
    if sympy.expand(lhs - rhs) != 0:
        return fails("token2_layer_monotone", "the squared identity does not hold")
    return holds("token2_layer_monotone", "(alpha a + b)^2 - a^2 |v|^2 = (1 - a^2) b (b + 2 alpha a): "
                 "<x_1, x_2> is nondecreasing along eq. 4 for every tau > 0 (exact SymPy identity + sign cases)")
