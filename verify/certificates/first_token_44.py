"""Assumption 4.4 / result ``4.4-sym``, first token: ``lambda_1 - x^T U x >= gap (1 - b^2)`` on the sphere.

Eigen-coordinates of the symmetric ``U`` (as read by this project: ``U`` symmetric and
time-invariant with a simple largest eigenvalue ``lambda_1``, eigenvector ``v``): ``x = b v +
sum_k y_k v_k`` with ``b = <v, x>`` and ``x^T U x = lambda_1 b^2 + sum_k lambda_k y_k^2``.
Certified claim, for the instance's exact eigenvalues:

    lambda_1 - (lambda_1 b^2 + sum_k lambda_k y_k^2) - gap (1 - b^2) >= 0
    on the sphere  b^2 + sum_k y_k^2 = 1,      gap = lambda_1 - max_{k >= 2} lambda_k  (default)

Hence ``db/dt = (lambda_1 - x^T U x) b`` gives ``d(b^2)/dt >= 2 gap (1 - b^2) b^2``: ``|b|`` increases
to 1 unless ``b(0) = 0``.  The certificate lives in dimension ``d = len(eigenvalues)``, the
instance's dimension.  Not covered: later tokens and same-sign consensus (see docs/model.md §2).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import sympy

from theorems.errors import InvalidInput
from verify._sos.prove import prove_nonnegative
from verify._sos.result import SOSResult

DEFAULT_EIGENVALUES = (Fraction(1), Fraction(-1, 2), Fraction(-2))
"""The sanity example of docs/model.md §2, ``U = diag(1, -0.5, -2)``: ``lambda_1 = 1``, gap ``3/2``."""


def certify_first_token_alignment(eigenvalues: Sequence[Fraction | int | str] = DEFAULT_EIGENVALUES,
                                  gap: Fraction | int | str | None = None,
                                  solver: str = "CLARABEL") -> SOSResult:
    """Exact certificate for the first token; ``eigenvalues[0]`` is ``lambda_1`` (strictly largest).

    ``gap`` defaults to the spectral gap; a smaller positive rational may be given.  Raises
    :class:`InvalidInput` when ``lambda_1`` is not strictly the largest (Assumption 4.4 fails:
    check the hypothesis before asking for this certificate).
    """
    values = []
    for k, v in enumerate(eigenvalues):
        if isinstance(v, (float, bool)):
            raise InvalidInput(f"eigenvalues[{k}]", "an exact rational", v)
        try:
            values.append(Fraction(v))
        except (TypeError, ValueError, ZeroDivisionError):
            raise InvalidInput(f"eigenvalues[{k}]", "an exact rational", v) from None
    if len(values) < 2:
        raise InvalidInput("eigenvalues", "at least two eigenvalues (dimension d >= 2)", list(eigenvalues))
    lam1, rest = values[0], values[1:]
    spectral_gap = lam1 - max(rest)
    if spectral_gap <= 0:
        raise InvalidInput("eigenvalues", "lambda_1 = eigenvalues[0] strictly larger than the others "
                           "(Assumption 4.4: simple largest eigenvalue)", [str(v) for v in values])
    use_gap = spectral_gap if gap is None else Fraction(gap)
    if not 0 < use_gap <= spectral_gap:
        raise InvalidInput("gap", f"a rational in (0, {spectral_gap}]", str(use_gap))
    q = lambda v: sympy.Rational(v.numerator, v.denominator)  # noqa: E731
    b = sympy.Symbol("b", real=True)
    ys = [sympy.Symbol(f"y_{k + 2}", real=True) for k in range(len(rest))]
    quad = q(lam1) * b ** 2 + sum(q(lk) * y ** 2 for lk, y in zip(rest, ys))
    target = q(lam1) - quad - q(use_gap) * (1 - b ** 2)
    sphere = b ** 2 + sum(y ** 2 for y in ys) - 1
    return prove_nonnegative(target, [b] + ys, (), [sphere], degree=2, solver=solver,
                             label=f"4.4-sym first token: lambda_1 - x^T U x >= {use_gap}*(1 - b^2), "
                                   f"eigenvalues {[str(v) for v in values]}")
