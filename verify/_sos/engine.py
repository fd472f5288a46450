"""The search pipeline for one :class:`GramProgram`: float solve, margin solve, exact rounding.

``search`` never claims anything: it returns an exact point (rational Gram matrices and
parameters satisfying the coefficient equations exactly, every block PSD exactly) or the reason it
has none.  Callers turn the point into a certificate and re-check it (:mod:`verify._sos.prove`).

The margin SDP is solved first, at loose accuracy (:data:`verify._sos.solve.LOOSE`: a point well
inside the cone is all rounding needs, and the exact projection removes the residual; programs
below :data:`LOOSE_FROM_UNKNOWNS` unknowns skip this step); only when that point has no positive
margin or does not round is the margin SDP solved again at the solver's default accuracy, and from
there on the pipeline is the one before the loose step: the plain SDP only when the margin is not
positive or its rounding fails (solving both on every program doubled the float time).
Solver accuracy decides only whether rounding succeeds; what is proved is decided by the exact
rounding and re-check.
Programs with a Gram block of at least :data:`FIRST_ORDER_FROM` monomials take a first-order
margin solve first (SCS on the conic form, :mod:`verify._sos.first_order`: loose, then tight
warm-started from it), since an interior-point method's memory grows like the fourth power of
the block size; only when its point does not round does the pipeline above run (Clarabel: its
refinement and facial reduction), and only while Clarabel's dense Newton blocks stay below
:data:`CLARABEL_NEWTON_MAX` entries; beyond that the verdict is "unknown" with the reason.
If the margin solve finds no interior point (``t <= 0``: every feasible Gram matrix is singular),
a basis monomial whose diagonal entry is numerically zero in the plain solution is dropped and the
program solved again (a cheap facial reduction; any basis is sound, the re-check decides).
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Sequence, final

from .program import GramProgram
from .rounding import DEFAULT_DENOMINATORS, ExactPoint, Projector, RoundingOutcome, rationalize
from .solve import LOOSE, FloatSolution, solve_margin, solve_plain
from . import first_order as fo
from .stats import SearchStats
from . import poly

ZERO_DIAGONAL = 1e-7
MAX_REDUCTIONS = 3
LOOSE_FROM_UNKNOWNS = 100
"""Programs with fewer unknowns skip the loose margin solve: there the solver's fixed setup cost
dominates (measured: 3.6 ms loose against 3.5 ms default accuracy at 55 unknowns, 11 against 16 ms
at 210, 0.25 against 0.48 s at 630), so it would save nothing when it rounds and cost a solve when
it does not."""

FIRST_ORDER_FROM = 80
"""Programs whose largest Gram block has at least this many monomials start with the first-order
(SCS) margin solve; smaller ones (every certificate of the paper) keep the interior-point path
unchanged."""
CLARABEL_NEWTON_MAX = 35_000_000
"""Largest :func:`verify._sos.first_order.newton_entries` for which the Clarabel fallback runs
after a first-order point failed to round: measured 4.6 GB peak at 8.7e7 (one block of 136), so
this bound keeps it near 2 GB (one block of about 108)."""


@final
@dataclass(frozen=True)
class SearchOutcome:
    point: ExactPoint | None
    program: GramProgram
    reason: str
    stats: SearchStats


def _zero_rows(program: GramProgram, solution: FloatSolution) -> GramProgram | None:
    blocks, changed = [], False
    for block, X in zip(program.blocks, solution.grams):
        diag = [float(X[i, i]) for i in range(len(block.basis))]
        scale = max([1.0] + [abs(d) for d in diag])
        keep = tuple(m for m, d in zip(block.basis, diag) if d > ZERO_DIAGONAL * scale)
        if len(keep) != len(block.basis):
            changed = True
        if keep:
            blocks.append(dataclasses.replace(block, basis=keep))
        else:
            changed = True
    if not changed:
        return None
    return dataclasses.replace(program, blocks=tuple(blocks))


def _unmatched_reason(rows: list[tuple[int, poly.Monomial]]) -> str:
    identity, mono = rows[0]
    return (f"coefficient of the monomial with exponents {list(mono)} (identity {identity}) cannot be matched: "
            f"no Gram block or multiplier reaches it ({len(rows)} such monomials); raise the degree")


def _note_margin(times: dict, info: dict, solution: FloatSolution) -> None:
    times["margin"] += solution.seconds
    info.update(margin_status=solution.status, margin=solution.margin,
                margin_solves=info.get("margin_solves", ()) + (solution.accuracy,),
                margin_iterations=info.get("margin_iterations", 0) + (solution.iterations or 0))


def _interior(solution: FloatSolution) -> bool:
    return solution.usable and solution.margin is not None and solution.margin > 0


def _round(program: GramProgram, projector: Projector, solution: FloatSolution, denominators: Sequence[int],
           info: dict) -> RoundingOutcome:
    outcome = rationalize(program, projector, solution.grams, solution.params, denominators)
    info["rounding_attempts"] = info.get("rounding_attempts", 0) + outcome.attempts
    if outcome.point is not None:
        info["denominator"] = outcome.point.denominator
    return outcome


def _first_order(program: GramProgram, system, denominators: Sequence[int], times: dict,
                 info: dict) -> tuple[RoundingOutcome | None, Projector | None]:
    """The SCS margin solve, loose then tight (warm-started), each point rounded exactly."""
    data = fo.ConicData(program, system)
    projector, outcome, warm = None, None, None
    for accuracy in (fo.LOOSE, fo.TIGHT):
        solution, warm = fo.solve_first_order(data, accuracy, warm)
        _note_margin(times, info, solution)
        if not _interior(solution):
            break  # no interior point at all: a tighter solve will not create one
        start = time.perf_counter()
        projector = projector if projector is not None else Projector(system)
        outcome = _round(program, projector, solution, denominators, info)
        times["rounding"] += time.perf_counter() - start
        if outcome.point is not None:
            break
    return outcome, projector


def search(program: GramProgram, solver: str = "CLARABEL",
           denominators: Sequence[int] = DEFAULT_DENOMINATORS, first_order: bool = True) -> SearchOutcome:
    """Search an exact point of ``program`` (see the module doc).  ``first_order=False`` keeps every
    program on the interior-point path (the benchmarks' peer)."""
    times = {"float": 0.0, "margin": 0.0, "rounding": 0.0}
    info: dict = {"solver": solver}
    reductions = 0
    reason = ""
    while True:
        system = program.system()
        info.update(gram_blocks=tuple(len(b.basis) for b in program.blocks), unknowns=program.n_columns,
                    equations=len(system.rhs), facial_reductions=reductions)
        unmatched = program.unmatched_rows(system)
        if unmatched:
            return SearchOutcome(None, program, _unmatched_reason(unmatched), SearchStats(
                **_stat_times(times), **info))
        if not program.blocks and not program.params:
            return SearchOutcome(None, program, "nothing to search: no Gram block and no free parameter",
                                 SearchStats(**_stat_times(times), **info))
        projector = None
        if first_order and reductions == 0 and max([0] + [len(b.basis) for b in program.blocks]) >= FIRST_ORDER_FROM:
            outcome, projector = _first_order(program, system, denominators, times, info)
            if outcome is not None and outcome.point is not None:
                return SearchOutcome(outcome.point, program, outcome.reason, SearchStats(**_stat_times(times), **info))
            entries = fo.newton_entries(program)
            if solver == "CLARABEL" and entries > CLARABEL_NEWTON_MAX:
                why = outcome.reason if outcome is not None else f"no interior point (margin {info.get('margin')})"
                return SearchOutcome(None, program, f"the first-order (SCS) margin point did not round ({why}); "
                                     f"the Clarabel fallback would need {entries:.2g} dense Newton entries (more than "
                                     f"{CLARABEL_NEWTON_MAX:.2g}): not run", SearchStats(**_stat_times(times), **info))
        # A loose interior point first: it costs a few interior-point iterations, and
        # when it rounds, the accurate solves are never needed.
        if program.n_columns >= LOOSE_FROM_UNKNOWNS:
            loose = solve_margin(program, system, solver, LOOSE)
            _note_margin(times, info, loose)
            if _interior(loose):
                start = time.perf_counter()
                projector = Projector(system)
                outcome = _round(program, projector, loose, denominators, info)
                times["rounding"] += time.perf_counter() - start
                if outcome.point is not None:
                    return SearchOutcome(outcome.point, program, outcome.reason,
                                         SearchStats(**_stat_times(times), **info))
        # The interior point at default accuracy; the plain SDP is solved only when the margin
        # solve gives none (or its rounding fails); its diagonal then drives the facial reduction.
        margin = solve_margin(program, system, solver)
        _note_margin(times, info, margin)
        if _interior(margin):
            start = time.perf_counter()
            projector = projector if projector is not None else Projector(system)
            outcome = _round(program, projector, margin, denominators, info)
            times["rounding"] += time.perf_counter() - start
            if outcome.point is not None:
                return SearchOutcome(outcome.point, program, outcome.reason,
                                     SearchStats(**_stat_times(times), **info))
            reason = outcome.reason
            tried = (margin,)
        else:
            tried = ()
        plain = solve_plain(program, system, solver)
        times["float"] += plain.seconds
        info["float_status"] = plain.status
        info["float_iterations"] = info.get("float_iterations", 0) + (plain.iterations or 0)
        if not plain.usable:
            reason = (f"the SDP has no solution with these bases (solver {solver} status: {plain.status}); "
                      f"no SOS certificate at this degree")
            return SearchOutcome(None, program, reason, SearchStats(**_stat_times(times), **info))
        start = time.perf_counter()
        projector = projector if projector is not None else Projector(system)
        candidates = [s for s in (margin, plain) if s.usable and all(s is not t for t in tried)]
        for candidate in candidates:
            outcome = _round(program, projector, candidate, denominators, info)
            if outcome.point is not None:
                times["rounding"] += time.perf_counter() - start
                return SearchOutcome(outcome.point, program, outcome.reason,
                                     SearchStats(**_stat_times(times), **info))
            reason = outcome.reason
        times["rounding"] += time.perf_counter() - start
        reduced = _zero_rows(program, plain) if reductions < MAX_REDUCTIONS else None
        if reduced is None:
            t = margin.margin
            shown = f"{t:.3g}" if t is not None else "none"
            return SearchOutcome(None, program, f"exact rounding failed (PSD margin {shown}): {reason}",
                                 SearchStats(**_stat_times(times), **info))
        program = reduced
        reductions += 1


def _stat_times(times: dict) -> dict:
    return {"float_solve_s": times["float"], "margin_solve_s": times["margin"], "rounding_s": times["rounding"]}
