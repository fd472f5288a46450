"""``certify_fate``: where do the tokens of one constant instance of eq. 5 go?  A proof, or "unknown".

Routes (the first that applies):

* every ``U^h = I``: the enclosure (:mod:`.flow`) until the tokens are proved in an open hemisphere
  (full mask, Theorem 3.2) or in the open cap around the fixed ``x_1`` (causal mask, docs/depth.md
  4.2): consensus;
* otherwise a float simulation proposes the limit (:mod:`.hints`), :func:`~.basin.check_basin`
  proves a basin around it (a consensus point ``x*``, an eigenvector of ``sum_h U^h``, or an
  equilibrium with distinct directions), and the enclosure runs until it is inside the basin;
* a simulation that never settles (rotation, slow drift) with the tokens clustering, or a consensus
  limit whose basin and cap fail: :mod:`.moving` proves that the diameter goes to 0 once the
  enclosure's diameter is small enough (consensus whose common point may keep moving; no limit
  point is claimed).

Anything that fails on the way is "unknown" with the reason.  A fate is a statement about this
instance's tokens only (an instance-level proof), not about every start.
"""
from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction

from theorems.errors import InvalidInput, InvalidType

from .basin import check_basin, entered
from .cap import cap_entered, check_cap
from .cap_hints import propose_cap_near
from .certificate import (MAX_ENTRY, FateCertificate, basin_limit, cap_limit, cap_route_limit,
                          hemisphere_route_limit)
from .flow import OPTIONS, FlowRun, run_tiered, run_until
from .hints import propose_basin, simulate
from .limits import cap_test, hemisphere_test, narrow_hemisphere_test, propose_z
from .moving import check_moving, moving_entered
from .problem import FateProblem, problem_from_system
from .projective import check_projective, half_space, propose_projective
from .report import Fate, FateReport

DEFAULT_T_MAX = Fraction(100)


def _why(run: FlowRun, target: str, t_max: Fraction, enclosure: str = "default") -> str:
    why = {"t_max": f"no {target} reached by t_max = {t_max} (the enclosure stayed outside it)",
           "width": f"the enclosure grew too wide (width {run.width:.3g} at t = {float(run.time):.4g}) before reaching {target}",
           "step_too_small": f"the validated step became too small at t = {float(run.time):.4g}",
           "max_steps": f"the step limit was reached at t = {float(run.time):.4g}"}.get(run.status, run.status)
    after = {"tight": " (with the tight enclosure, after the default one grew too wide)",
             "damped": " (with the damped enclosure, after the default and the tight ones grew too wide)"}
    return why + after.get(enclosure, "")


def _tight_hemisphere(found: list):
    """A ``z`` proposed on the enclosure that proves the hemisphere with narrow limit balls."""
    def test(X) -> bool:
        z = propose_z(X)
        if z is not None and narrow_hemisphere_test(z, OPTIONS.prec)(X):
            found.append(z)
            return True
        return False
    return test


CLUSTERING = 0.1
"""The float diameter below which an unsettled simulation is handed to the moving-consensus route."""
NEAR = 1e-5
"""A float state with a field below this is close enough for Newton to find the limit (slow convergence)."""
PROJECTIVE_T = Fraction(10)
"""How long the one-head route waits for the tokens to share the half-space before the general routes."""


def _projective(problem: FateProblem, t_max: Fraction, done) -> FateReport | None:
    """One head whose ``U`` has a dominant real eigenvalue: consensus once the tokens share ``sign <w, x> > 0``."""
    if len(problem.heads) != 1:
        return None
    proj, _ = propose_projective(problem)
    if proj is None:
        return None
    check = check_projective(problem, proj)
    sides = [replace(proj, sign=s) for s in (proj.sign, -proj.sign)]
    hit: list = []

    def inside(E) -> bool:  # the side the tokens end on is not known in advance: either proves consensus
        hit.extend(c for c in sides if not hit and half_space(c, check.w, E))
        return bool(hit)

    run = run_until(problem.field, problem.initial, min(t_max, PROJECTIVE_T), inside)
    if not run.entered:
        return None
    if hit[0].sign != proj.sign:
        proj, check = hit[0], check_projective(problem, hit[0])
    cert = FateCertificate(problem, "consensus", "projective", run.time, None, None, f"{problem.name}: fate",
                           projective=proj)
    reason = f"every token is in the half-space sign <w, x> > 0 at t = {float(run.time):.6g}: {check.reason}"
    return done(Fate.CONSENSUS, reason, entry_time=run.time, route="projective", limit=cap_limit((check.limit,) * problem.N),
                certificate=cert, stats={"steps": run.steps, "status": run.status})


def _moving(problem: FateProblem, t_max: Fraction, X, hint: dict, done) -> FateReport | None:
    """Unsettled simulation, clustering tokens: consensus by the diameter contraction of :mod:`.moving` (no fixed limit)."""
    import numpy as np

    from .moving_hints import propose_moving

    diameter = float(np.max(np.linalg.norm(X[:, None, :] - X[None, :, :], axis=2)))
    hint["float_diameter"] = diameter
    if diameter > CLUSTERING:
        return None
    candidates, why = propose_moving(problem)
    if not candidates:
        hint["moving"] = why
        return None
    hit: list = []

    def inside(E) -> bool:
        hit.extend(c for c in candidates if not hit and moving_entered(c, E))
        return bool(hit)

    run, enclosure = run_tiered(problem.field, problem.initial, t_max, inside)
    stats = {**hint, "steps": run.steps, "status": run.status, "enclosure": enclosure}
    if not run.entered:
        hint["moving"] = f"moving-consensus candidates proved, but {_why(run, 'their diameter bound', t_max, enclosure)}"
        return None
    check = check_moving(problem, hit[0])
    cert = FateCertificate(problem, "consensus", "moving-consensus", run.time, None, None, f"{problem.name}: fate",
                           moving=hit[0], enclosure=enclosure)
    reason = (f"the enclosure meets the moving-consensus entry bound at t = {float(run.time):.6g}: {check.reason}; "
              "every |x_i - x_j| -> 0, the common point is not proved to converge")
    return done(Fate.CONSENSUS, reason, entry_time=run.time, route="moving-consensus", limit=None, certificate=cert,
                stats={**stats, "kappa": f"{float(check.kappa):.6g}", "Dmax": str(hit[0].Dmax)})


def _repulsion(problem: FateProblem, hint: dict, done) -> FateReport | None:
    """``d = 2``: the tokens never reach consensus (:mod:`.repulsion`: causal, tokens 1 and 2 never meet; full mask,
    the consensus set repels), no integration."""
    if problem.d != 2:
        return None
    from .repulsion_hints import propose_repulsion

    data, check, why = propose_repulsion(problem)
    if data is None:
        hint["repulsion"] = f"no repulsion certificate ({why})"
        return None
    cert = FateCertificate(problem, "non-consensus", "repulsion", Fraction(0), None, None, f"{problem.name}: fate",
                           repulsion=data)
    return done(Fate.NON_CONSENSUS, check.reason, entry_time=Fraction(0), route="repulsion", limit=None,
                certificate=cert, stats={**hint, "distance_bound": str(check.bound), "delta": str(data.delta),
                                         "harmonics": len(data.a), "boxes": data.boxes})


def certify_fate(instance, *, t_max: object = DEFAULT_T_MAX, t_sim: float = 400.0) -> FateReport:
    """The certified fate of ``instance`` (a :class:`~.problem.FateProblem` or an
    :class:`~theorems.system.AttentionSystem`): consensus, non-consensus, or unknown with the reason."""
    from theorems.system import AttentionSystem

    started = time.perf_counter()
    if isinstance(instance, AttentionSystem):
        problem = problem_from_system(instance)
    elif isinstance(instance, FateProblem):
        problem = instance
    else:
        raise InvalidType("instance", "a FateProblem or an AttentionSystem", type(instance).__name__)
    from verify.validated.problem import exact

    t_max = exact(t_max, "t_max")
    if not 0 < t_max <= MAX_ENTRY:
        raise InvalidInput("t_max", f"a rational in (0, {MAX_ENTRY}]", str(t_max))
    if isinstance(t_sim, bool) or not isinstance(t_sim, (int, float)) or not 0 < t_sim <= 1e5:
        raise InvalidInput("t_sim", "a number in (0, 1e5]", t_sim)

    def done(fate: Fate, reason: str, **kw) -> FateReport:
        stats = {"t_max": str(t_max), "wall_time_s": round(time.perf_counter() - started, 3), **kw.pop("stats", {})}
        return FateReport(problem.name, fate, reason, stats=stats, **kw)

    if problem.identity_values():
        route = "hemisphere" if problem.mask == "full" else "cap"
        found: list = []
        if route == "hemisphere":
            def test(X):
                z = propose_z(X)
                if z is not None and hemisphere_test(z)(X):
                    found.append(z)
                    return True
                return False
        else:
            test = cap_test(problem)
        run = run_until(problem.field, problem.initial, t_max, test)
        stats = {"steps": run.steps, "status": run.status}
        first = run.time
        target = "open hemisphere" if route == "hemisphere" else "open cap around x_1"
        if not run.entered:
            return done(Fate.UNKNOWN, f"U^h = I: {_why(run, target, t_max)}", stats=stats)
        z, certified_at = (found[-1] if found else None), run.time
        if z is not None:  # the chart hull only shrinks after entry: run on until it pins x* down
            tight = run_until(problem.field, problem.initial, t_max, _tight_hemisphere(found))
            if tight.entered:
                z, certified_at, run = found[-1], tight.time, tight
                stats["limit_time"] = str(tight.time)
        cert = FateCertificate(problem, "consensus", route, certified_at, z, None, f"{problem.name}: fate")
        limit = hemisphere_route_limit(z, run, OPTIONS.prec) if z is not None else cap_route_limit(problem, OPTIONS.prec)
        reason = (f"U^h = I and the enclosure is in the {target} at t = {float(first):.6g}: "
                  + ("Theorem 3.2 (hemisphere entered later; docs/model.md §2)" if z is not None
                     else "the cap bound of Theorem 4.2 (docs/depth.md, 4.2 ODE)"))
        return done(Fate.CONSENSUS, reason, entry_time=first, route=route, limit=limit, certificate=cert, stats=stats)

    projective = _projective(problem, t_max, done)
    if projective is not None:
        return projective
    X, t_hint, residual = simulate(problem, t_sim)
    hint = {"simulated_to": t_hint, "field_residual": residual}
    if residual > NEAR:
        found = _moving(problem, t_max, X, hint, done) or _repulsion(problem, hint, done)
        if found is not None:
            return found
        return done(Fate.UNKNOWN, f"the float simulation has not settled by t = {t_hint:g} (|field| = {residual:.3g}): "
                                  "no candidate limit (the tokens may rotate, oscillate or converge slowly)"
                    + "".join(f"; {hint[k]}" for k in ("moving", "repulsion") if k in hint), stats=hint)
    cap, cap_why = propose_cap_near(problem, X)
    basin, why = propose_basin(problem, X)
    if basin is None and cap is None:
        return _moving(problem, t_max, X, hint, done) or done(
            Fate.UNKNOWN, (why if "not a consensus" in cap_why else f"{why}; {cap_why}")
            + (f"; {hint['moving']}" if "moving" in hint else ""), stats=hint)
    cap_check = None if cap is None else check_cap(problem, cap)
    check = None if basin is None else check_basin(problem, basin)
    hit: list[str] = []

    def inside(E) -> bool:
        if cap is not None and cap_entered(cap, E):
            hit.append("contraction")
        elif basin is not None and entered(basin, E):
            hit.append("basin")
        return bool(hit)

    run, enclosure = run_tiered(problem.field, problem.initial, t_max, inside)
    stats = {**hint, "steps": run.steps, "status": run.status, "enclosure": enclosure}
    if basin is not None:
        stats.update(basin_radius=str(basin.R[0]), basin_level=str(basin.r), decay=str(check.decay))
    if cap is not None:
        stats.update(cap_radius=str(cap.eps), cap_box=str(cap.R), cap_decay=str(cap_check.decay))
    if not run.entered:
        proved = "; ".join(c.reason for c in (cap_check, check) if c is not None)
        moving = _moving(problem, t_max, X, hint, done)
        return moving or done(Fate.UNKNOWN, f"certified ({proved}), but {_why(run, 'certified region', t_max, enclosure)}"
                              + (f"; {hint['moving']}" if "moving" in hint else ""), stats={**stats, **hint})
    if hit[-1] == "contraction":
        cert = FateCertificate(problem, "consensus", "contraction", run.time, None, None, f"{problem.name}: fate", cap,
                               enclosure=enclosure)
        reason = f"the enclosure is in the certified cap at t = {float(run.time):.6g}: {cap_check.reason}"
        return done(Fate.CONSENSUS, reason, entry_time=run.time, route="contraction", limit=cap_limit(cap_check.limit),
                    certificate=cert, stats=stats)
    limit = basin_limit(problem, basin, check.limit)
    fate = Fate.CONSENSUS if basin.kind == "consensus" else Fate.NON_CONSENSUS
    if fate is Fate.NON_CONSENSUS and len(limit.groups) < 2:
        return done(Fate.UNKNOWN, "the equilibrium's tokens could not be proved distinct", stats=stats)
    cert = FateCertificate(problem, fate.value, "basin", run.time, None, basin, f"{problem.name}: fate",
                           enclosure=enclosure)
    reason = f"the enclosure is in the certified basin at t = {float(run.time):.6g}: {check.reason}"
    return done(fate, reason, entry_time=run.time, route="basin", limit=limit, certificate=cert, stats=stats)


def fate_from_file(path, **options) -> FateReport:
    """:func:`certify_fate` of a JSON instance file (``InvalidInput`` for a malformed file)."""
    from theorems.system_json import load_system

    return certify_fate(load_system(path), **options)


__all__ = ["DEFAULT_T_MAX", "certify_fate", "fate_from_file"]
