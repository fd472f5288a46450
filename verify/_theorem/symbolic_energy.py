"""``grad-energy`` in general: ``dE/dt = 2 beta sum_i Z_i |Proj_{x_i} F_i|^2`` for every ``N`` and every ``d``.

Dimension-free: inner products are abstract symbols ``B(a, b) = <a, P b>`` of a *symmetric* bilinear form
(``B(a, b) = B(b, a)``: the hypothesis ``P = P^T``), with ``a, b`` among the tokens ``x_k`` and arbitrary
velocities ``v_k``; ``e_ij = exp(beta B(x_i, x_j)) = e_ji``.  Nothing depends on coordinates, so the check
holds in every dimension.  Two facts are checked:

1. ``sum_ij beta e_ij (B(v_i, x_j) + B(x_i, v_j)) = 2 beta sum_i sum_j e_ij B(v_i, x_j)`` for **arbitrary**
   velocities ``v_k`` (the chain rule for ``E`` with ``P`` constant gives the left side).  The difference
   is ``beta sum_ij e_ij (B(x_i, v_j) - B(v_i, x_j))``, whose ``(i, j)`` and ``(j, i)`` terms cancel: checked
   for a generic pair and on the diagonal (which gives every ``N``), and in full for ``N = 2..5``.
2. With ``v_i = Proj_{x_i} F_i`` and ``F_i = sum_j a_ij P x_j = sum_j e_ij P x_j / Z_i`` (``U = P``):
   ``<v_i, F_i> = |F_i|^2 - <x_i, F_i>^2 = |Proj F_i|^2`` on the sphere (Gram symbols, dimension-free).
"""
from __future__ import annotations

import sympy

from theorems.verdict import Verdict, fails, holds


def _B(a: str, b: str) -> sympy.Symbol:
    lo, hi = sorted((a, b))
    return sympy.Symbol(f"B[{lo},{hi}]", real=True)


def _e(i: int, j: int) -> sympy.Symbol:
    lo, hi = sorted((i, j))
    return sympy.Symbol(f"e_{lo}{hi}", positive=True)


def _difference(pairs: list[tuple[int, int]]) -> sympy.Expr:
    beta = sympy.Symbol("beta", positive=True)
    lhs = sum(beta * _e(i, j) * (_B(f"v{i}", f"x{j}") + _B(f"x{i}", f"v{j}")) for i, j in pairs)
    rhs = 2 * beta * sum(_e(i, j) * _B(f"v{i}", f"x{j}") for i, j in pairs)
    return sympy.expand(lhs - rhs)


def energy_identity_general() -> Verdict:
    residuals: dict[str, sympy.Expr] = {
        "generic_pair_(i,j)+(j,i)": _difference([(1, 2), (2, 1)]),
        "diagonal_(i,i)": _difference([(1, 1)]),
    }
    for N in range(2, 6):
        residuals[f"N={N}"] = _difference([(i, j) for i in range(N) for j in range(N)])
    FF, xF, xx = sympy.symbols("FF xF xx", real=True)  # |F|^2, <x, F>, |x|^2 (Euclidean Gram symbols)
    proj_dot_F = FF - xF * xF  # <F - <x,F> x, F>
    proj_sq = FF - 2 * xF * xF + xF * xF * xx  # |F - <x,F> x|^2
    residuals["<Proj F, F> - |Proj F|^2 on |x| = 1"] = sympy.expand((proj_dot_F - proj_sq).subs(xx, 1))
    witness = {"residuals": {k: str(v) for k, v in residuals.items()},
               "method": "SymPy over abstract symmetric bilinear symbols B(a,b) = B(b,a) (dimension-free); the pair "
                         "cancellation gives every N, the full sums are checked for N = 2..5"}
    statement = ("dE/dt = 2 beta sum_i Z_i <dx_i/dt, F_i> for every N, d and arbitrary velocities (P symmetric and "
                 "constant), and <Proj F, F> = |Proj F|^2 on the sphere")
    if all(v == 0 for v in residuals.values()):
        return holds("energy_identity_general", f"{statement}: every residual is exactly 0", witness)
    return fails("energy_identity_general", f"{statement}: a residual does not vanish", witness)
