"""The fate certificate (kind ``"fate"``): exact data that :meth:`FateCertificate.recheck` re-proves.

It stores the instance (``beta``, mask, every ``(P^h, U^h)``, the rational tokens), the claimed
fate (``consensus`` / ``non-consensus``), the route (``hemisphere``, ``cap``, ``basin``, ``contraction``,
``projective``, ``moving-consensus`` or ``repulsion``), the entry time ``T`` and the route's data (the rational ``z``,
the :class:`~.basin.Basin`, the :class:`~.cap.Cap`, the projective data, the :class:`~.moving.Moving` data or
the :class:`~.repulsion.Repulsion` data; the repulsion route needs no enclosure, its ``T`` is 0).  The re-check
uses no solver and no float on a path to "holds":

1. the route's hypotheses on the data, exactly (``U^h = I`` and the mask for ``hemisphere`` / ``cap``;
   for ``basin`` every step of :func:`~.basin.check_basin`, and for ``non-consensus`` two tokens of
   the certified equilibrium proved distinct in arb);
2. the validated enclosure (:func:`~.flow.run_until`, arb balls; the certificate names its settings,
   ``default``, ``tight`` or ``damped``, :data:`~.flow.ENCLOSURES`) from the stored tokens enters the route's set
   at some time ``<= T``.

A tampered number either breaks a step (rejected) or leaves a claim that is still proved (a later
``T``, a smaller level ``r``).  Not guaranteed: that another machine repeats the float proposals of
the enclosure (step sizes, frames) bit for bit; a re-check that proves less says so, never more.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, final

from flint import ctx

from theorems.verdict import Verdict, fails, holds

from .basin import Basin, check_basin, entered
from .cap import Cap, cap_entered, check_cap
from .certificate_json import FATES, KIND, ROUTES, fields_from_json, to_json  # noqa: F401  (FATES, KIND, ROUTES re-exported)
from .flow import ENCLOSURES, OPTIONS, FlowRun, run_until
from .limits import (ball_text, cap_test, distinct, first_token, hemisphere_limit, hemisphere_test,
                     narrow_hemisphere_test)
from .moving import Moving, check_moving, moving_entered
from .problem import FateProblem
from .projective import Projective, check_projective, half_space
from .repulsion import Repulsion, check_repulsion

MAX_ENTRY = Fraction(10_000)


@final
@dataclass(frozen=True)
class Limit:
    """What the certificate proves about the limit: balls per token (``tokens``), the groups of
    tokens with one direction (``groups``) and whether the groups are proved exactly equal inside."""

    tokens: tuple[tuple[str, ...], ...]
    groups: tuple[tuple[int, ...], ...]
    exact_groups: bool
    text: str


@final
@dataclass(frozen=True)
class FateCertificate:
    problem: FateProblem
    fate: str
    route: str
    entry: Fraction
    z: tuple[Fraction, ...] | None = None
    basin: Basin | None = None
    label: str = ""
    cap: Cap | None = None
    projective: Projective | None = None
    moving: Moving | None = None
    enclosure: str = "default"
    """The enclosure the re-check runs (a name in :data:`~.flow.ENCLOSURES`; older certificates: ``default``)."""
    repulsion: Repulsion | None = None

    @property
    def claim(self) -> str:
        p = self.problem
        where = {"hemisphere": "an open hemisphere (Theorem 3.2 applies from then on)",
                 "cap": "the open cap around x_1 (every <x_1, x_i> > 0; docs/depth.md 4.2)",
                 "basin": "a certified basin of a stable equilibrium (Krawczyk box, Lyapunov matrix S)",
                 "contraction": "a certified cap around a consensus point (Krawczyk box, block max-norm contraction)",
                 "projective": "the half-space sign <w, x> > 0 of a projective contraction of the one head's U",
                 "moving-consensus": "the diameter bound of the moving-consensus lemma (docs/fate.md)",
                 "repulsion": ""}[self.route]
        if self.route == "repulsion":
            which = ("tokens 1 and 2 repel (the weighted V = e^W (1 - cos phi) grows near phi = 0), so |x_2(t) - x_1(t)|"
                     if p.mask == "causal" else "the consensus set repels (the weighted V = e^W sum_j (1 - cos phi_j) grows "
                     "near it), so max_j |x_j(t) - x_1(t)|")
            return (f"eq. 5, {p.mask} mask, N = {p.N}, d = 2, {len(p.heads)} head(s), beta = {p.beta}, the stored tokens: "
                    f"{which} stays above a positive bound for every t >= 0: no consensus, not even in the limit")
        if self.route == "moving-consensus":
            return (f"eq. 5, {p.mask} mask, N = {p.N}, d = {p.d}, {len(p.heads)} head(s), beta = {p.beta}, the stored "
                    f"tokens: the tokens satisfy {where} by t = {self.entry}, so every |x_i - x_j| -> 0 (consensus; "
                    "the common point is not claimed to converge)")
        return (f"eq. 5, {p.mask} mask, N = {p.N}, d = {p.d}, {len(p.heads)} head(s), beta = {p.beta}, the stored "
                f"tokens: the tokens enter {where} by t = {self.entry}, so they converge to "
                + ("one point (consensus)" if self.fate == "consensus" else "an equilibrium with distinct directions"))

    def _route_problem(self) -> str:
        p = self.problem
        if self.fate not in FATES or self.route not in ROUTES:
            return f"fate must be one of {FATES} and route one of {ROUTES}"
        if not 0 <= self.entry <= MAX_ENTRY:
            return f"the entry time must lie in [0, {MAX_ENTRY}]"
        if not isinstance(self.enclosure, str) or self.enclosure not in ENCLOSURES:
            return f"the enclosure must be one of {tuple(ENCLOSURES)}"
        if (self.route == "projective") != (self.projective is not None):
            return "the projective route stores its data (and only that route does)"
        if (self.route == "moving-consensus") != (self.moving is not None):
            return "the moving-consensus route stores its data (and only that route does)"
        if (self.route == "repulsion") != (self.repulsion is not None):
            return "the repulsion route stores its data (and only that route does)"
        if self.route == "repulsion":
            if (self.fate != "non-consensus" or self.entry != 0 or self.enclosure != "default" or self.cap is not None
                    or self.basin is not None or self.z is not None):
                return "the repulsion route proves non-consensus at t = 0 and stores no cap, basin, z or enclosure"
            return ""
        if self.route == "moving-consensus":
            if self.fate != "consensus" or self.cap is not None or self.basin is not None or self.z is not None:
                return "the moving-consensus route proves consensus and stores no cap, basin or z"
            return ""
        if self.route in ("hemisphere", "cap"):
            if self.fate != "consensus" or not p.identity_values():
                return f"the {self.route} route proves consensus and needs every U^h = I"
            if (self.route == "hemisphere") != (p.mask == "full"):
                return "the hemisphere route is for the full mask, the cap route for the causal mask"
            if (self.z is None) != (self.route == "cap") or (self.z is not None and len(self.z) != p.d):
                return "the hemisphere route stores z (d rationals), the cap route none"
            if self.basin is not None or self.cap is not None:
                return f"the {self.route} route stores no basin and no cap"
            return ""
        if self.route == "projective":
            if self.fate != "consensus" or self.cap is not None or self.basin is not None or self.z is not None:
                return "the projective route proves consensus and stores no cap, basin or z"
            return ""
        if self.route == "contraction":
            if self.cap is None or self.basin is not None or self.z is not None or self.fate != "consensus":
                return "the contraction route proves consensus and stores a cap, no basin and no z"
            return ""
        if self.cap is not None:
            return "the basin route stores no cap"
        if self.basin is None or self.z is not None:
            return "the basin route stores a basin and no z"
        if (self.basin.kind == "consensus") != (self.fate == "consensus"):
            return "a consensus fate needs a consensus basin, a non-consensus fate an equilibrium basin"
        return ""

    def _enclose(self, test) -> FlowRun:
        """The named enclosure from the stored tokens, until ``test`` holds or ``T``."""
        return run_until(self.problem.field, self.problem.initial, self.entry, test, ENCLOSURES[self.enclosure])

    def recheck(self) -> Verdict:
        """Re-derive the fate from the stored data (balls and rationals only)."""
        name = "fate_certificate"
        why = self._route_problem()
        if why:
            return fails(name, why)
        p = self.problem
        if self.route == "repulsion":
            rc = check_repulsion(p, self.repulsion)
            if not rc.ok:
                return fails(name, f"repulsion: {rc.reason}")
            return holds(name, rc.reason, {"entry": "0", "distance_bound": str(rc.bound)})
        if self.route == "moving-consensus":
            mc = check_moving(p, self.moving)
            if not mc.ok:
                return fails(name, f"moving consensus: {mc.reason}")
            run = self._enclose(lambda X: moving_entered(self.moving, X))
            if not run.entered:
                return fails(name, _no_entry(run, f"the diameter bound Dmax = {self.moving.Dmax}"))
            return holds(name, f"{mc.reason}; the entry condition holds at t = {run.time}; no limit point is claimed",
                         {"entry": str(run.time), "kappa": str(mc.kappa), "steps": run.steps})
        if self.route == "projective":
            pc = check_projective(p, self.projective)
            if not pc.ok:
                return fails(name, f"projective: {pc.reason}")
            run = self._enclose(lambda X: half_space(self.projective, pc.w, X))
            if not run.entered:
                return fails(name, _no_entry(run, "the half-space sign <w, x> > 0"))
            limit = cap_limit((pc.limit,) * p.N)
            return holds(name, f"{pc.reason}; every token in the half-space at t = {run.time}; limit: {limit.text}",
                         {"entry": str(run.time), "steps": run.steps})
        if self.route == "contraction":
            check = check_cap(p, self.cap)
            if not check.ok:
                return fails(name, f"cap: {check.reason}")
            run = self._enclose(lambda X: cap_entered(self.cap, X))
            if not run.entered:
                return fails(name, _no_entry(run, "the cap ||Phi (y - y*)|| < eps"))
            limit = cap_limit(check.limit)
            return holds(name, f"{check.reason}; the enclosure is in the cap at t = {run.time}; limit: {limit.text}",
                         {"entry": str(run.time), "decay": str(check.decay), "steps": run.steps})
        if self.route == "basin":
            check = check_basin(p, self.basin)
            if not check.ok:
                return fails(name, f"basin: {check.reason}")
            limit = basin_limit(p, self.basin, check.limit)
            if self.fate == "non-consensus" and len(limit.groups) < 2:
                return fails(name, "no two tokens of the equilibrium are proved distinct: not a non-consensus fate")
            run = self._enclose(lambda X: entered(self.basin, X))
            if not run.entered:
                return fails(name, _no_entry(run, "the basin {V < r}"))
            return holds(name, f"{check.reason}; the enclosure is in {{V < r}} at t = {run.time}; limit: {limit.text}",
                         {"entry": str(run.time), "decay": str(check.decay), "steps": run.steps})
        if self.route == "hemisphere":
            run = self._enclose(narrow_hemisphere_test(self.z, OPTIONS.prec))
            if not run.entered:  # the limit stays wide, the fate is the same
                run = self._enclose(hemisphere_test(self.z))
            if not run.entered:
                return fails(name, _no_entry(run, f"the open hemisphere of z = {[str(v) for v in self.z]}"))
            limit = hemisphere_route_limit(self.z, run, OPTIONS.prec)
        else:
            run = self._enclose(cap_test(p))
            if not run.entered:
                return fails(name, _no_entry(run, "the open cap around x_1"))
            limit = cap_route_limit(p, OPTIONS.prec)
        return holds(name, f"U^h = I, {p.mask} mask; the enclosure enters the {self.route} at t = {run.time}; "
                           f"limit: {limit.text}", {"entry": str(run.time), "steps": run.steps})

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> FateCertificate:
        return FateCertificate(*fields_from_json(data))


def _no_entry(run: FlowRun, where: str) -> str:
    return f"the enclosure does not enter {where} by the claimed time (reached t = {run.time}, {run.status})"


def basin_limit(p: FateProblem, basin: Basin, balls) -> Limit:
    """Groups of the certified equilibrium's tokens.  Full mask: tokens with the same chart and the
    same box are equal (the field is equivariant under permuting tokens, so the permuted zero is a
    zero in the same box, and Krawczyk's zero is unique).  Groups are pairwise proved distinct."""
    m = p.d - 1
    keys = [(basin.charts[i], basin.mid[i * m:(i + 1) * m], basin.krad[i * m:(i + 1) * m]) for i in range(p.N)]
    if basin.kind == "consensus":
        groups, exact = [list(range(p.N))], True
    else:
        groups = []
        for i in range(p.N):
            home = next((g for g in groups if keys[g[0]] == keys[i]), None)
            if home is None:
                groups.append([i])
            else:
                home.append(i)
        exact = p.mask == "full"
        merged: list[list[int]] = []
        for g in groups:  # a group not proved distinct from an earlier one is merged into it
            other = next((h for h in merged if not distinct(balls[h[0]], balls[g[0]])), None)
            if other is None:
                merged.append(list(g))
            else:
                other.extend(g)
                exact = False
        groups = merged
    tokens = tuple(tuple(ball_text(v) for v in x) for x in balls)
    words = "exactly" if exact else "at least"
    text = (f"consensus at x* = ({', '.join(tokens[0])})" if basin.kind == "consensus" else
            f"{words} {len(groups)} distinct directions: " + "; ".join(
                f"tokens {','.join(str(i + 1) for i in g)} at ({', '.join(tokens[g[0]])})" for g in groups))
    return Limit(tokens, tuple(tuple(g) for g in groups), exact, text)


def cap_limit(balls) -> Limit:
    tokens = tuple(tuple(ball_text(v) for v in x) for x in balls)
    return Limit(tokens[:1], (tuple(range(len(tokens))),), True, f"consensus at x* = ({', '.join(tokens[0])})")


def hemisphere_route_limit(z, run: FlowRun, prec: int) -> Limit:
    with ctx.workprec(prec):
        x = tuple(ball_text(v) for v in hemisphere_limit(z, run.enclosure))
    return Limit((x,), (tuple(range(len(run.enclosure))),), True,
                 f"consensus at a point x* in ({', '.join(x)}) (the normalised chart hull at the entry time)")


def cap_route_limit(p: FateProblem, prec: int) -> Limit:
    with ctx.workprec(prec):
        x = tuple(ball_text(v) for v in first_token(p))
    return Limit((x,), (tuple(range(p.N)),), True, f"consensus at x_1(0) = ({', '.join(x)})")


__all__ = ["FATES", "KIND", "ROUTES", "FateCertificate", "Limit", "basin_limit", "cap_limit"]
