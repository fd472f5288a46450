"""Coordinates adapted to the known zeros, for the facial reduction of :mod:`verify._sos.facial_zeros`.

When the zeros ``x*`` span a proper linear subspace ``L`` of ``R^n`` but no coordinate subspace,
every restricted basis polynomial ``q_a`` is dense, and so is the exact projection.  A linear change
of variables ``x = C y`` with ``C`` rational, invertible and with orthogonal columns, the first
``dim L`` of them spanning ``L`` (exact Gram-Schmidt), puts the zeros in a coordinate subspace:
every monomial containing a later ``y_j`` vanishes at them and stays a plain monomial of the
restricted basis.  Orthogonal columns keep ``|x|^2 = sum_j |c_j|^2 y_j^2`` diagonal, so a sphere
constraint stays sparse.

The search runs on ``p(C y)``, ``g_k(C y)``, ``h_l(C y)`` and the zeros ``C^-1 x*``; its exact point
is mapped back: a Gram block ``Q_y`` on the monomials ``m(y)`` becomes ``T^T Q_y T`` on monomials
of ``x``, where ``m(C^-1 x) = T m(x)`` exactly, and a multiplier ``lambda(y)`` becomes
``lambda(C^-1 x)``.  That is the same identity in ``x`` (a substitution), and the certificate is
re-checked in ``x`` as always: nothing here is trusted.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Sequence

from . import poly
from .certificate import freeze
from .program import FreeParam, GramProgram
from .rounding import ExactPoint


def _dot(u: Sequence[Fraction], v: Sequence[Fraction]) -> Fraction:
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def adapted_columns(points: Sequence[Sequence[Fraction]], n: int) -> list[list[Fraction]] | None:
    """Orthogonal rational columns of ``C`` (the span of ``points`` first), or None when the points
    span ``R^n`` (nothing to adapt) or already lie in a coordinate subspace."""
    import flint

    columns: list[list[Fraction]] = []
    M = flint.fmpq_mat(len(points), n, [flint.fmpq(Fraction(v).numerator, Fraction(v).denominator)
                                        for x in points for v in x])
    R, rank = M.rref()  # the span of the points with small heights
    candidates = [[Fraction(int(R[i, j].p), int(R[i, j].q)) for j in range(n)] for i in range(int(rank))]
    span_end = None
    for k, v in enumerate(candidates + [[Fraction(int(i == j)) for i in range(n)] for j in range(n)]):
        if k == len(candidates):
            span_end = len(columns)
        w = list(v)
        for c in columns:
            f = _dot(w, c) / _dot(c, c)
            w = [a - f * b for a, b in zip(w, c)]
        if any(w):
            columns.append(w)
        if len(columns) == n:
            break
    if span_end is None:
        span_end = len(columns)
    columns = [_unit_scale(c) for c in columns]
    if span_end >= n:
        return None
    support = {i for c in columns[:span_end] for i, a in enumerate(c) if a}
    if len(support) == span_end:
        return None  # the zeros span a coordinate subspace already: the plain reduction is sparse
    return columns


def _unit_scale(c: list[Fraction]) -> list[Fraction]:
    """``c`` times the power of two nearest ``1 / |c|`` (any nonzero factor keeps the columns
    orthogonal; near-unit columns keep the substituted problem as well conditioned as the original,
    and a power of two adds no new prime to the denominators)."""
    import math

    norm = float(_dot(c, c)) ** 0.5
    factor = Fraction(2) ** -round(math.log2(norm)) if norm > 0 else Fraction(1)
    return [a * factor for a in c]


def _linear_forms(matrix: Sequence[Sequence[Fraction]], n: int) -> list[poly.Poly]:
    """``[sum_j matrix[i][j] v_j for each row i]`` as polynomials in ``n`` variables."""
    return [{tuple(int(k == j) for k in range(n)): a for j, a in enumerate(row) if a} for row in matrix]


def substitute(p: poly.Poly, forms: Sequence[poly.Poly], n: int) -> poly.Poly:
    """``p(forms)``: variable ``i`` replaced by the polynomial ``forms[i]`` (exact)."""
    out: poly.Poly = {}
    powers: dict[tuple[int, int], poly.Poly] = {}
    for mono, c in p.items():
        term: poly.Poly = {(0,) * n: Fraction(c)}
        for i, e in enumerate(mono):
            if e:
                key = (i, e)
                if key not in powers:
                    powers[key] = poly.power(forms[i], e, n)
                term = poly.mul(term, powers[key])
        poly.add_into(out, term)
    return {m: c for m, c in out.items() if c}


def _inverse(columns: list[list[Fraction]], n: int) -> list[list[Fraction]]:
    """``C^-1`` for orthogonal columns: row ``j`` is ``c_j^T / |c_j|^2``."""
    return [[a / _dot(c, c) for a in c] for c in columns]


def to_adapted(columns, n, p, ineqs, eqs, points):
    """``(p, ineqs, eqs, points)`` in the coordinates ``y`` with ``x = C y``."""
    C = [[columns[j][i] for j in range(n)] for i in range(n)]  # row i: x_i = sum_j C[i][j] y_j
    forms = _linear_forms(C, n)
    inv = _inverse(columns, n)
    ys = [tuple(_dot(row, x) for row in inv) for x in points]
    return (substitute(p, forms, n), [substitute(g, forms, n) for g in ineqs],
            [substitute(h, forms, n) for h in eqs], ys)


def back_to_x(columns, n: int, program: GramProgram, point: ExactPoint, ineqs) -> tuple[GramProgram, ExactPoint]:
    """The exact point of the ``y`` program as a plain program and point in ``x`` (same identity)."""
    import flint

    back = _linear_forms(_inverse(columns, n), n)  # y_j as a linear form in x
    cache: dict[poly.Monomial, poly.Poly] = {}

    def in_x(mono: poly.Monomial) -> poly.Poly:
        if mono not in cache:
            cache[mono] = substitute({mono: Fraction(1)}, back, n)
        return cache[mono]

    blocks, grams = [], []
    for block, gram in zip(program.blocks, point.grams):
        rows = [in_x(m) for m in block.basis]
        monos = sorted({m for r in rows for m in r}, key=lambda m: (sum(m), m))
        index = {m: i for i, m in enumerate(monos)}
        T = flint.fmpq_mat(len(rows), len(monos))
        for a, r in enumerate(rows):
            for m, c in r.items():
                T[a, index[m]] = flint.fmpq(c.numerator, c.denominator)
        G = flint.fmpq_mat(len(rows), len(rows), [flint.fmpq(x.numerator, x.denominator) for row in gram for x in row])
        Q = T.transpose() * G * T
        size = len(monos)
        grams.append(tuple(tuple(Fraction(int(Q[i, j].p), int(Q[i, j].q)) for j in range(size)) for i in range(size)))
        weight = poly.product((ineqs[k] for k in block.multiplier), n)
        blocks.append(dataclasses.replace(block, weight=freeze(weight), basis=tuple(monos)))
    multipliers: dict[int, poly.Poly] = {}
    for param, value in zip(program.params, point.params):
        _, l, mono = param.tag
        if value:
            poly.add_into(multipliers.setdefault(l, {}), in_x(mono), value)
    params, values = [], []
    for l in sorted(multipliers):
        for mono, c in sorted(multipliers[l].items()):
            if c:
                params.append(FreeParam(("eq", l, mono), ()))
                values.append(c)
    plain = GramProgram(n, (), tuple(blocks), tuple(params))  # certificate_from_point reads blocks and params
    return plain, ExactPoint(tuple(grams), tuple(values), point.denominator)


def adapted_search(build, p, n, ineqs, eqs, points, options, reduced_search):
    """The reduced search in coordinates adapted to ``points`` (None when none apply); the outcome's
    program and point are in ``x``.  ``build(p, ineqs, eqs)``: the Gram program of a claim."""
    columns = adapted_columns(points, n)
    if columns is None:
        return None
    p_y, g_y, h_y, ys = to_adapted(columns, n, p, ineqs, eqs, points)
    program = build(p_y, g_y, h_y)
    outcome = reduced_search(program, ys, options.denominators, options.first_order)
    if outcome is None or outcome.point is None:
        return outcome
    plain, point = back_to_x(columns, n, outcome.program, outcome.point, ineqs)
    return dataclasses.replace(outcome, program=plain, point=point)


__all__ = ["adapted_columns", "adapted_search", "back_to_x", "substitute", "to_adapted"]
