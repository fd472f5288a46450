"""``find_lyapunov``: search a polynomial Lyapunov function and certify it exactly (SOSTOOLS' findlyap).

For ``dx/dt = f(x)`` with ``f(0) = 0`` the unknown ``V = sum_a c_a x^a`` (monomials of degree
``2..degree``, so ``V(0) = 0``) must satisfy two SOS conditions at once:

    V - eps |x|^2            = m_1^T X_1 m_1      (V positive definite, radially unbounded)
    -<grad V, f> - decay |x|^2 = m_2^T X_2 m_2     (V does not increase / decreases strictly)

One Gram program with both identities and the shared free coefficients ``c_a`` is solved, rounded
and projected exactly; the :class:`LyapunovCertificate` is re-checked exactly before ``holds`` is
returned.  ``eps > 0`` and ``decay >= 0`` are exact rationals chosen by the caller.
"""
from __future__ import annotations

import math

from fractions import Fraction
from typing import Sequence

from theorems.errors import InvalidInput
from theorems.verdict import fails, holds, unknown

from . import poly
from .bases import half_degree_basis
from .certificate import Certificate, SOSTerm, freeze
from .engine import search
from .lyapunov_certificate import LyapunovCertificate, decrease_target, lie_derivative, positivity_target, squared_norm
from .parse import parse_polynomial, to_exact_all
from .program import FreeParam, GramBlock, GramProgram
from .options import normalize_solver
from .prove import MAX_GRAM, drop_zero_rows, resolve_symbols
from .result import LyapunovResult
from .rounding import DEFAULT_DENOMINATORS
from .stats import SearchStats

NAME = "lyapunov"


def _rational(value: object, field: str, positive: bool) -> Fraction:
    if isinstance(value, float):
        raise InvalidInput(field, "an exact rational (int, Fraction or 'p/q' string)", value)
    try:
        out = Fraction(value) if not isinstance(value, str) else poly.parse_rational(value, field)
    except (TypeError, ValueError):
        raise InvalidInput(field, "an exact rational", value) from None
    if out < 0 or (positive and out == 0):
        raise InvalidInput(field, "> 0" if positive else ">= 0", value)
    return out


def build_lyapunov_program(field: Sequence[poly.Poly], n: int, degree: int, eps: Fraction,
                           decay: Fraction) -> GramProgram:
    params = []
    for mono in half_degree_basis(n, 2, degree):
        v = poly.monomial(mono)
        params.append(FreeParam(("V", mono), ((0, freeze(poly.scale(v, -1))),
                                               (1, freeze(lie_derivative(v, tuple(field)))))))
    top = degree - 1 + max(poly.degree(f) for f in field)
    low = min((sum(m) for f in field for m in f), default=1)
    blocks = (GramBlock(0, (), (), tuple(half_degree_basis(n, 1, degree // 2))),
              GramBlock(1, (), (), tuple(half_degree_basis(n, (low + 2) // 2, top // 2))))
    blocks = tuple(GramBlock(b.identity, b.multiplier, freeze(poly.constant(1, n)), b.basis) for b in blocks if b.basis)
    targets = (freeze(poly.scale(squared_norm(n), -eps)), freeze(poly.scale(squared_norm(n), -decay)))
    return GramProgram(n, targets, blocks, tuple(params))


def find_lyapunov(field, variables, degree: int = 2, eps: Fraction | int | str = Fraction(1, 100),
                  decay: Fraction | int | str = 0, solver: str = "CLARABEL",
                  denominators: Sequence[int] = DEFAULT_DENOMINATORS, label: str = "") -> LyapunovResult:
    """Find ``V`` (degree ``degree``, even) with exact certificates of ``V >= eps|x|^2`` and ``dV/dt <= -decay|x|^2``.

    ``field``: the components ``f_1..f_n`` (SymPy expressions or strings) of ``dx/dt = f(x)`` in
    ``variables``; rational coefficients.  Returns ``fails`` when the origin is not an equilibrium,
    ``holds`` with a re-checked :class:`LyapunovCertificate`, else ``unknown`` with the reason.
    """
    symbols = resolve_symbols(variables)
    names = tuple(s.name for s in symbols)
    n = len(symbols)
    items = list(field)
    if len(items) != n:
        raise InvalidInput("field", f"{n} components (one per variable)", len(items))
    items = [parse_polynomial(f, symbols, f"field[{k}]") if isinstance(f, str) else f for k, f in enumerate(items)]
    f_exact = to_exact_all(items, symbols, "field")
    if isinstance(degree, bool) or not isinstance(degree, int) or degree < 2 or degree % 2:
        raise InvalidInput("degree", "an even integer >= 2", degree)
    field_degree = max((poly.degree(f) for f in f_exact), default=1)
    largest = math.comb(n + (degree + max(field_degree, 1) - 1) // 2 + 1, n)  # Gram block of -dV/dt
    if largest > MAX_GRAM:
        raise InvalidInput("--degree", f"a search whose Gram blocks have at most {MAX_GRAM} monomials",
                           f"degree {degree} with {n} variable(s): up to {largest} monomials per block",
                           "Lower the degree of V")
    eps_q = _rational(eps, "eps", positive=True)
    decay_q = _rational(decay, "decay", positive=False)
    solver = normalize_solver(solver)
    if not denominators or any(isinstance(d, bool) or not isinstance(d, int) or d < 1 for d in denominators):
        raise InvalidInput("denominators", "a non-empty list of positive integers", denominators)
    options = {"degree": degree, "eps": str(eps_q), "decay": str(decay_q), "solver": solver,
               "denominators": [int(d) for d in denominators]}
    origin = (0,) * n
    moving = {names[k]: str(f.get(origin)) for k, f in enumerate(f_exact) if f.get(origin)}
    if moving:
        return LyapunovResult(fails(NAME, f"the origin is not an equilibrium: f(0) has nonzero components {moving}",
                                    {"f(0)": moving}), None, SearchStats(solver=solver), options)
    program = build_lyapunov_program(f_exact, n, degree, eps_q, decay_q)
    outcome = search(program, solver, denominators)
    if outcome.point is None:
        return LyapunovResult(unknown(NAME, f"no Lyapunov certificate of degree {degree} (eps {eps_q}, decay {decay_q}): "
                                            f"{outcome.reason}", {"degree": degree}), None, outcome.stats, options)
    v: poly.Poly = {}
    for param, value in zip(outcome.program.params, outcome.point.params):
        poly.add_into(v, poly.monomial(param.tag[1], value))
    terms: dict[int, list[SOSTerm]] = {0: [], 1: []}
    for block, gram in zip(outcome.program.blocks, outcome.point.grams):
        if any(x for row in gram for x in row):
            terms[block.identity].append(SOSTerm((), *drop_zero_rows(block.basis, gram)))
    positivity = Certificate(names, freeze(positivity_target(v, eps_q, n)), (), (), tuple(terms[0]), (),
                             f"{label}: V - eps|x|^2 >= 0".strip(": "))
    decrease = Certificate(names, freeze(decrease_target(v, tuple(f_exact), decay_q, n)), (), (), tuple(terms[1]), (),
                           f"{label}: -dV/dt - decay|x|^2 >= 0".strip(": "))
    cert = LyapunovCertificate(names, tuple(freeze(f) for f in f_exact), freeze(v), eps_q, decay_q,
                               positivity, decrease, label)
    verdict = cert.recheck()
    if not verdict.holds:
        return LyapunovResult(unknown(NAME, f"the rounded certificate failed its exact re-check: {verdict.reason}"),
                              None, outcome.stats, options)
    return LyapunovResult(holds(NAME, verdict.reason, {"V": poly.to_text(v, names), "degree": degree}), cert,
                          outcome.stats, options)
