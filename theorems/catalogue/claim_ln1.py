"""Claim LN1 (authors' reply): with equal scales ``g = c 1`` (``c != 0``), layer normalisation is
``LN(y) = c sqrt(D) C y / |C y| + b`` with ``C = I - 1 1^T / D``: the projection onto a sphere of
radius ``|c| sqrt(D)`` inside the hyperplane orthogonal to ``1``, translated by ``b``.

``std`` is the population standard deviation (as in PyTorch's LayerNorm) and the ``eps`` that
real layers add under the square root is taken to be 0: with ``eps > 0`` LN is only
approximately this projection (not guaranteed here).  Proved symbolically for symbolic ``D`` (every ``D >= 2``) from the definitions
``y - mean(y) 1 = C y`` and ``std(y) = |C y| / sqrt(D)``, and cross-checked componentwise for
D = 2..5.  The case ``C y = 0`` (constant ``y``) is excluded: LN divides by ``std = 0`` there.
"""
from __future__ import annotations

import sympy

from ..verdict import Verdict, fails, holds


def _difference(D: int, radius: sympy.Expr | None = None) -> list[sympy.Expr]:
    """Componentwise ``LN(y) - (c r C y/|C y| + b)`` with ``r = radius`` (default ``sqrt(D)``)."""
    y = sympy.Matrix(sympy.symbols(f"y1:{D + 1}", real=True))
    b = sympy.Matrix(sympy.symbols(f"b1:{D + 1}", real=True))
    c = sympy.Symbol("c", real=True, nonzero=True)
    ones = sympy.ones(D, 1)
    mean = sum(y) / D
    centred = y - mean * ones
    std = sympy.sqrt(sum(v ** 2 for v in centred) / D)
    ln = c * centred / std + b
    C = sympy.eye(D) - ones * ones.T / D
    Cy = C * y
    r = sympy.sqrt(D) if radius is None else radius
    projection = c * r * Cy / sympy.sqrt(Cy.dot(Cy)) + b
    return [sympy.simplify(sympy.powsimp(sympy.expand(ln[i] - projection[i]), force=True)) for i in range(D)]


def _dimension_free() -> dict[str, sympy.Expr]:
    """Symbolic ``D``: with ``S = sum_k y_k``, ``m = S/D``, ``(C y)_k = y_k - m`` (definition of ``C``) and
    ``n = |C y| > 0``, population ``std = sqrt(n^2/D)``.  Residuals: the scale ``c/std - c sqrt(D)/n``, the
    hyperplane ``<C y, 1> = S - D m`` and the radius ``|c sqrt(D) C y/n|^2 - c^2 D``."""
    D, n = sympy.symbols("D n", positive=True)
    S, c = sympy.symbols("S c", real=True)
    m = S / D
    std = sympy.sqrt(n ** 2 / D)
    return {"scale": sympy.simplify(c / std - c * sympy.sqrt(D) / n),
            "hyperplane": sympy.simplify(S - D * m),
            "radius": sympy.simplify((c * sympy.sqrt(D) / n) ** 2 * n ** 2 - c ** 2 * D)}


def prove_ln1() -> Verdict:
    per_dim = {}
    for D in (2, 3, 4, 5):
        per_dim[str(D)] = [str(v) for v in _difference(D)]
    general = {k: str(v) for k, v in _dimension_free().items()}
    ok = all(v == "0" for vals in per_dim.values() for v in vals) and all(v == "0" for v in general.values())
    witness = {
        "difference_by_dimension": per_dim,
        "dimension_free": general,
        "dimension_free_method": ("symbolic D > 0 (SymPy): y - mean(y) 1 = C y by the definition of C, std(y) = "
                                  "|C y|/sqrt(D) by the definition of the population std; residuals above"),
        "not_covered": "eps > 0 inside the square root; unequal scales (the image is an ellipsoid)",
    }
    if ok:
        return holds("LN1", "LN(y) = c sqrt(D) C y/|C y| + b (whenever C y != 0): proved for symbolic D (every D >= 2) "
                     "from the definitions of C and the population std, and cross-checked componentwise for D = 2..5",
                     witness)
    return fails("LN1", "the symbolic difference did not simplify to 0", witness)
