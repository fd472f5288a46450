"""The claims an equilibrium certificate refutes: their hypotheses (checked exactly on the stored
data) and the witness that the certified equilibrium violates their conclusion (checked in arb
over the box).

* ``later-token-alignment`` (``4.4-sym-later``, docs/model.md §2 as read): causal mask, one head, ``U``
  symmetric with a simple largest eigenvalue (eigenvector ``v``); conclusion "every token
  converges to ``v`` or ``-v``".  Witness: token ``i`` of the equilibrium is not an eigenvector of
  ``U`` (``|U x - (x^T U x) x| > 0`` over the box), so ``x_i`` is not ``+-v``.
* ``same-sign-consensus`` (``4.4-same-sign``): the same hypotheses and ``U`` positive definite;
  conclusion "every token converges to the same point ``sign(<v, x_1(0)>) v``".  Witness: tokens
  ``i, j`` with ``<x_i, x_j> < 1`` over the box, so they have different limits.

A stable equilibrium attracts every start in an open neighbourhood; under the causal mask the
first ``N`` tokens evolve on their own, so the failure holds on an open set of starts for any
instance whose first ``N`` tokens carry these data, whatever its later tokens.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from flint import arb, fmpq, fmpq_mat

from verify._sos.exact_psd import check_psd

from .chart_field import FieldData, token_points
from .krawczyk import arb_scalars

CLAIMS = {
    "later-token-alignment": "every token converges to v or -v (4.4-sym, later tokens, as this project reads it in docs/model.md §2)",
    "same-sign-consensus": "every token converges to sign(<v, x_1(0)>) v (same-sign consensus, U positive definite)",
}


def check_hypotheses(claim: str, data: FieldData) -> tuple[bool, str]:
    """Exact check of the refuted claim's hypotheses on the stored data."""
    if data.mask != "causal":
        return False, "the claim is about the causal mask"
    if len(data.heads) != 1:
        return False, "the claim is about one head"
    U = data.heads[0][1]
    d = data.d
    if any(U[a][b] != U[b][a] for a in range(d) for b in range(d)):
        return False, "U is not symmetric"
    ok, why = _simple_top_eigenvalue(U)
    if not ok:
        return False, why
    facts = ["causal mask", "one head", "U symmetric", why]
    if claim == "same-sign-consensus":
        psd = check_psd(U)
        if not (psd.ok and psd.rank == d):
            return False, "U is not positive definite"
        facts.append("U positive definite (exact LDL^T)")
    return True, ", ".join(facts)


def _simple_top_eigenvalue(U: Sequence[Sequence[Fraction]]) -> tuple[bool, str]:
    """The largest root of the characteristic polynomial is simple and isolated (arb roots of the
    exact integer polynomial, multiplicities from its squarefree factorisation)."""
    M = fmpq_mat([[fmpq(v.numerator, v.denominator) for v in row] for row in U])
    roots = M.charpoly().numer().complex_roots()
    if not roots:
        return False, "no eigenvalues"
    top = max(range(len(roots)), key=lambda k: float(roots[k][0].real.mid()))
    value, mult = roots[top]
    if mult != 1:
        return False, f"the largest eigenvalue has multiplicity {mult}"
    others = [r for k, (r, _) in enumerate(roots) if k != top]
    if not all(value.real > r.real for r in others):
        return False, "the largest eigenvalue could not be separated from the others"
    return True, f"largest eigenvalue of U simple (~{float(value.real.mid()):.6g})"


def check_witness(claim: str, witness: Sequence[int], data: FieldData, X: Sequence[arb]) -> tuple[bool, str]:
    """The equilibrium (known to lie in ``X``) violates the claim's conclusion, in arb."""
    s = arb_scalars()
    points = token_points(data, X, s)
    if claim == "later-token-alignment":
        (i,) = witness
        U = [[s.const(v) for v in row] for row in data.heads[0][1]]
        x = points[i]
        Ux = [sum((U[a][b] * x[b] for b in range(data.d)), arb(0)) for a in range(data.d)]
        rq = sum((x[a] * Ux[a] for a in range(data.d)), arb(0))
        res = [Ux[a] - rq * x[a] for a in range(data.d)]
        res2 = sum((r * r for r in res), arb(0))  # r * r, not r ** 2: arb's pow is NaN on balls around 0
        if not res2 > 0:
            return False, f"token {i + 1} could not be shown off the eigenvectors of U"
        return True, (f"token {i + 1} is not an eigenvector of U (|U x - (x^T U x) x|^2 >= {float(res2.lower().mid()):.4g}), "
                      f"so x_{i + 1} != +-v")
    i, j = witness
    inner = sum((points[i][a] * points[j][a] for a in range(data.d)), arb(0))
    if not inner < 1:
        return False, f"tokens {i + 1} and {j + 1} could not be shown distinct"
    return True, f"<x_{i + 1}, x_{j + 1}> <= {float(inner.upper().mid()):.6g} < 1: tokens {i + 1} and {j + 1} differ"
