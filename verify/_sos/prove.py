"""``prove_nonnegative``: certify ``p >= 0`` on ``{g_k >= 0, h_l = 0}`` with an exact SOS certificate.

Pipeline: parse to exact polynomials -> a cheap rational counterexample search (grid, exact check) ->
build the Gram program (Putinar multipliers ``sigma_k`` for each ``g_k``, free multipliers for each
``h_l``, optionally products of constraints, Schmuedgen-type, all terms of degree ``<= degree``;
large blocks split by term sparsity, :mod:`verify._sos.sparsity`, which loses nothing) ->
margin solve (CVXPY; at loose accuracy first on large programs, see :mod:`verify._sos.engine`; the
plain solve only when the margin is not positive) -> exact rounding and
projection -> exact re-check of the resulting :class:`Certificate` -> only if that fails, the
expensive counterexample search (local minimisation, rounded and checked exactly).  Inside
:func:`verify._sos.shipped.use_shipped`, a shipped certificate of exactly the same request is
re-checked instead (no search).  The verdict is ``holds`` only if the re-check passes; ``fails``
only with an exact rational witness; otherwise ``unknown`` with the step that failed.
"""
from __future__ import annotations

import dataclasses
import math
import itertools
import time
from fractions import Fraction
from typing import Sequence

import sympy

from theorems.errors import InvalidInput
from theorems.verdict import fails, holds, unknown

from . import poly, shipped
from .bases import half_degree_basis, newton_basis
from .cert_schema import MAX_TERMS
from .certificate import Certificate, EqTerm, SOSTerm, freeze
from .parse import symbols_from_names, to_exact, to_exact_all
from .program import FreeParam, GramBlock, GramProgram
from .refute import Witness, grid_witness, local_witness
from .sparsity import split_blocks
from .result import SOSResult
from .rounding import DEFAULT_DENOMINATORS, ExactPoint
from .options import SOSOptions
from .stats import SearchStats

NAME = "sos"


def resolve_symbols(variables: Sequence[sympy.Symbol | str] | str) -> tuple[sympy.Symbol, ...]:
    if isinstance(variables, str):
        return symbols_from_names(variables, "variables")
    names = [v.name if isinstance(v, sympy.Symbol) else v for v in variables]
    return symbols_from_names(names, "variables")


def multiplier_sets(degrees: Sequence[int], degree: int, products: bool | int) -> list[tuple[int, ...]]:
    """``()`` (sigma_0), each single constraint, and products of up to ``products`` constraints."""
    sets: list[tuple[int, ...]] = [()] + [(k,) for k in range(len(degrees)) if degrees[k] <= degree]
    if products:
        largest = len(degrees) if products is True else min(int(products), len(degrees))  # one factor per constraint
        for size in range(2, largest + 1):
            for subset in itertools.combinations(range(len(degrees)), size):
                if sum(degrees[k] for k in subset) <= degree:
                    sets.append(subset)
    return sets


def build_program(p: poly.Poly, n: int, ineqs: Sequence[poly.Poly], eqs: Sequence[poly.Poly], degree: int,
                  products: bool | int) -> GramProgram:
    blocks: list[GramBlock] = []
    g_degrees = [poly.degree(g) for g in ineqs]
    for subset in multiplier_sets(g_degrees, degree, products):
        weight = poly.product((ineqs[k] for k in subset), n)
        if not subset and not ineqs and not eqs:
            basis = newton_basis(p.keys(), n)
        else:
            basis = half_degree_basis(n, 0, (degree - sum(g_degrees[k] for k in subset)) // 2)
        if basis:
            blocks.append(GramBlock(0, subset, freeze(weight), tuple(basis)))
    params = []
    for l, h in enumerate(eqs):
        for mono in half_degree_basis(n, 0, degree - poly.degree(h)):
            params.append(FreeParam(("eq", l, mono), ((0, freeze(poly.mul(h, poly.monomial(mono)))),)))
    return GramProgram(n, (freeze(p),), tuple(blocks), tuple(params))


def certificate_from_point(program: GramProgram, point: ExactPoint, variables: tuple[str, ...], p: poly.Poly,
                           ineqs: Sequence[poly.Poly], eqs: Sequence[poly.Poly], label: str = "") -> Certificate:
    """Assemble the certificate, keeping only the terms and the constraints it actually uses.

    A constraint whose multipliers are all zero is dropped (and indices renumbered): the
    certificate then proves ``p >= 0`` on a larger set, a stronger statement, and every rational it
    stores takes part in the identity (so altering any of them breaks the re-check).
    """
    blocks = [(block, gram) for block, gram in zip(program.blocks, point.grams)
              if any(x for row in gram for x in row)]
    multipliers: dict[int, poly.Poly] = {}
    for param, value in zip(program.params, point.params):
        _, l, mono = param.tag
        if value:
            poly.add_into(multipliers.setdefault(l, {}), poly.monomial(mono, value))
    used_g = sorted({k for block, _ in blocks for k in block.multiplier})
    used_h = sorted(l for l, m in multipliers.items() if m)
    g_index = {k: i for i, k in enumerate(used_g)}
    h_index = {l: i for i, l in enumerate(used_h)}
    if len(blocks) > MAX_TERMS:
        blocks = _merge_by_multiplier(blocks)
    terms = [SOSTerm(tuple(g_index[k] for k in block.multiplier), *drop_zero_rows(block.basis, gram))
             for block, gram in blocks]
    eq_terms = [EqTerm(h_index[l], freeze(multipliers[l])) for l in used_h]
    return Certificate(variables, freeze(p), tuple(freeze(ineqs[k]) for k in used_g),
                       tuple(freeze(eqs[l]) for l in used_h), tuple(terms), tuple(eq_terms), label)


def _merge_by_multiplier(blocks):
    """One block-diagonal Gram block per multiplier (when term sparsity made more blocks than a
    certificate file holds, :data:`verify._sos.cert_schema.MAX_TERMS`): the same polynomial."""
    merged: dict[tuple[int, ...], tuple[list, list]] = {}
    for block, gram in blocks:
        basis, parts = merged.setdefault(block.multiplier, ([], []))
        basis.extend(block.basis)
        parts.append(gram)
    out = []
    for multiplier, (basis, parts) in merged.items():
        size, offset = len(basis), 0
        full = [[Fraction(0)] * size for _ in range(size)]
        for gram in parts:
            for i, row in enumerate(gram):
                full[offset + i][offset:offset + len(row)] = row
            offset += len(gram)
        out.append((GramBlock(0, multiplier, (), tuple(basis)), full))
    return out


def drop_zero_rows(basis, gram) -> tuple[tuple, tuple]:
    """Remove basis monomials whose Gram row is exactly zero (same polynomial, principal submatrix)."""
    keep = [i for i, row in enumerate(gram) if any(row)]
    return tuple(basis[i] for i in keep), tuple(tuple(gram[i][j] for j in keep) for i in keep)


def default_degree(p: poly.Poly, ineqs: Sequence[poly.Poly], eqs: Sequence[poly.Poly]) -> int:
    d = max([poly.degree(p)] + [poly.degree(g) for g in ineqs] + [poly.degree(h) for h in eqs] + [0])
    return d + (d % 2)


TERM_SPARSITY_FROM = 30
"""Programs whose largest Gram block has at least this many monomials are split by term sparsity
(:func:`verify._sos.sparsity.split_blocks`, which loses nothing); smaller ones, every certificate of
the paper among them, keep their dense blocks, so their certificates stay as they were."""

MAX_GRAM = 400
"""Largest Gram block this engine builds: beyond it the SDP and the exact rational checks exceed
what a workstation handles (memory grows with the square of the block)."""


def prove_exact(p: poly.Poly, variables: tuple[str, ...], ineqs: Sequence[poly.Poly] = (),
                eqs: Sequence[poly.Poly] = (), options: SOSOptions = SOSOptions()) -> SOSResult:
    """:func:`prove_nonnegative` on already exact polynomials (``verify._sos.poly`` dicts)."""
    n = len(variables)
    solver, refute, label = options.solver, options.refute, options.label
    products = options.products
    degree = options.degree if options.degree is not None else default_degree(p, ineqs, eqs)
    if degree < max(poly.degree(p), 0):
        raise InvalidInput("degree", f"an integer >= deg p = {poly.degree(p)}", degree)
    largest = math.comb(n + degree // 2, n)  # monomials of degree <= degree/2: the largest possible Gram block
    if largest > MAX_GRAM:
        raise InvalidInput("POLY / --degree", f"a problem whose Gram blocks have at most {MAX_GRAM} monomials",
                           f"degree {degree} in {n} variable(s): up to {largest} monomials per block",
                           "Lower the degree or the number of variables")
    options_json = options.to_json(degree)
    draft = Certificate(variables, freeze(p), tuple(freeze(g) for g in ineqs), tuple(freeze(h) for h in eqs),
                        (), (), label)
    claim = draft.claim
    if shipped.active():
        reused = _shipped_result(draft, ineqs, eqs, degree, solver, options_json)
        if reused is not None:
            return reused
    start = time.perf_counter()
    # Cheap refutation first (a grid of small rationals); the SciPy local search runs only after the
    # proof has failed (it is slow): a proved claim has no witness, so the verdict is the same.
    witness = grid_witness(p, n, ineqs, eqs) if refute else None
    if witness is not None:
        return _refuted(witness, variables, claim, SearchStats(solver=solver), time.perf_counter() - start,
                        options_json)
    refute_s = time.perf_counter() - start
    if not p:
        cert = draft
        return SOSResult(holds(NAME, "the polynomial is identically zero", {"claim": claim}), cert,
                         SearchStats(solver=solver), refute_s, options_json)
    def build(p, ineqs, eqs):  # the program of (p, ineqs, eqs) at this degree, split by term sparsity
        program = build_program(p, n, ineqs, eqs, degree, products)
        if options.term_sparsity and max([0] + [len(b.basis) for b in program.blocks]) >= TERM_SPARSITY_FROM:
            program = split_blocks(program)
        return program

    from .facial_zeros import search_with_zeros  # lazily: the engine imports CVXPY and the solvers

    outcome, zeros_used = search_with_zeros(build, p, n, ineqs, eqs, options)
    if outcome.point is None:
        late = _late_witness(p, n, ineqs, eqs, refute)
        if late[0] is not None:
            return _refuted(late[0], variables, claim, SearchStats(solver=solver), refute_s + late[1], options_json)
        return SOSResult(unknown(NAME, f"no exact certificate at degree {degree}: {outcome.reason}",
                                 {"claim": claim, "degree": degree}), None, outcome.stats, refute_s + late[1],
                         options_json)
    check_start = time.perf_counter()
    cert = certificate_from_point(outcome.program, outcome.point, variables, p, ineqs, eqs, label)
    verdict = cert.recheck()
    stats = _add_rounding(outcome.stats, time.perf_counter() - check_start)
    if not verdict.holds:
        late = _late_witness(p, n, ineqs, eqs, refute)
        if late[0] is not None:
            return _refuted(late[0], variables, claim, SearchStats(solver=solver), refute_s + late[1], options_json)
        return SOSResult(unknown(NAME, f"the rounded certificate failed its exact re-check: {verdict.reason}",
                                 {"claim": claim}), None, stats, refute_s + late[1], options_json)
    shipped.note_searched(draft, cert)
    used = _used_note(cert, ineqs, eqs) + (f"; Gram blocks restricted by {zeros_used} exact zeros of p "
                                           f"(facial reduction)" if zeros_used else "")
    return SOSResult(holds(NAME, f"exact SOS certificate (degree {degree}, denominator "
                                 f"{outcome.point.denominator}): {verdict.reason}{used}",
                           {"claim": claim, "certified_claim": cert.claim, "degree": degree}),
                     cert, stats, refute_s, options_json)


def _used_note(cert: Certificate, ineqs, eqs) -> str:
    if len(cert.ineqs) < len(ineqs) or len(cert.eqs) < len(eqs):
        return (f"; the certificate uses {len(cert.ineqs)} of {len(ineqs)} inequalities and {len(cert.eqs)} of "
                f"{len(eqs)} equalities, so it proves the claim on a larger set")
    return ""


def _shipped_result(draft: Certificate, ineqs, eqs, degree: int, solver: str, options_json: dict) -> SOSResult | None:
    """``holds`` from a shipped certificate of exactly this request that re-checks now; else None."""
    found = shipped.lookup(draft)
    if found is None:
        return None
    name, cert = found
    start = time.perf_counter()
    verdict = cert.recheck()
    if not verdict.holds:
        return None  # a shipped certificate that no longer re-checks proves nothing: search instead
    stats = SearchStats(solver=solver, rounding_s=time.perf_counter() - start)
    return SOSResult(holds(NAME, f"re-checked the shipped certificate {name} (same claim; no search): "
                                 f"{verdict.reason}{_used_note(cert, ineqs, eqs)}",
                           {"claim": draft.claim, "certified_claim": cert.claim, "degree": degree,
                            "origin": "shipped", "shipped": name}),
                     cert, stats, 0.0, options_json)


def _late_witness(p, n, ineqs, eqs, refute: bool) -> tuple[Witness | None, float]:
    """The expensive refutation (local minimisation), after a failed proof; ``(witness, seconds)``."""
    if not refute:
        return None, 0.0
    start = time.perf_counter()
    witness = local_witness(p, n, ineqs, eqs)
    return witness, time.perf_counter() - start


def _refuted(witness: Witness, variables, claim: str, stats: SearchStats, seconds: float,
             options_json: dict) -> SOSResult:
    point = {v: str(x) for v, x in zip(variables, witness.point)}
    return SOSResult(fails(NAME, f"refuted: at the rational point {point} (in the set) the polynomial "
                                 f"equals {witness.value} < 0", {"claim": claim, "point": point,
                                                                 "value": str(witness.value)}),
                     None, stats, seconds, options_json)


def _add_rounding(stats: SearchStats, seconds: float) -> SearchStats:
    return dataclasses.replace(stats, rounding_s=stats.rounding_s + seconds)


def prove_nonnegative(p, variables, ineqs=(), eqs=(), degree: int | None = None, products: bool | int = False,
                      solver: str = "CLARABEL", refute: bool = True,
                      denominators: Sequence[int] = DEFAULT_DENOMINATORS, label: str = "",
                      first_order: bool = True, term_sparsity: bool = True, zeros=None) -> SOSResult:
    """Prove ``p >= 0`` on ``{g >= 0 for g in ineqs, h == 0 for h in eqs}`` with an exact certificate.

    ``p``, ``ineqs``, ``eqs``: SymPy expressions/Polys (or strings, parsed safely) with rational
    coefficients in ``variables`` (SymPy symbols or names, matched by name).  ``degree``: largest
    total degree of every term ``g_S sigma_S`` and ``lambda_l h_l`` (default: the largest input
    degree rounded up to even).  ``products``: add products of constraints (``True`` all, or an
    int = most factors).  ``solver``: ``"CLARABEL"`` (default) or ``"SCS"``.  ``refute``: first
    look for a rational counterexample (exact check).  ``first_order`` / ``term_sparsity``: see
    :class:`SOSOptions` (search strategy only), as is ``zeros``.  Raises :class:`InvalidInput` for malformed
    input; an inconclusive search is a result (``unknown``), not an exception.
    """
    symbols = resolve_symbols(variables)
    names = tuple(s.name for s in symbols)
    exact_p = to_exact(p, symbols, "p")
    exact_g = to_exact_all(ineqs, symbols, "ineqs")
    exact_h = to_exact_all(eqs, symbols, "eqs")
    options = SOSOptions(degree, products, solver, refute, tuple(denominators), label, first_order, term_sparsity,
                         zeros)
    return prove_exact(exact_p, names, exact_g, exact_h, options)
