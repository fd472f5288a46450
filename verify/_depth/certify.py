"""``certify_depth``: a certified time ``T(eps)`` (eq. 5) or number of layers ``L(eps)`` (eq. 4).

What is proven, per result (hypotheses: the catalogue predicates named in the report):

* **3.2, ODE** (full, ``U^h = I``, ``||P^h(t)|| <= p``, tokens in the open hemisphere of ``z``):
  ``max_ij (1 - <x_i(t), x_j(t)>) <= Q exp(-2 lam t)`` with ``lam = H e_lo r_lo``; ``T = ln(Q/eps)/(2 lam)``.
  The review's chart weight ``H exp(-2 beta p) m0 / N`` is right for unit ``z`` (``s_j/s_i >= m0``),
  and the ``N`` weights of a row give the rate ``N`` times it.  Uniform continuity of ``P`` is
  **not** used (the diameter argument needs only the lower weight bound).
* **4.2, ODE** (causal, ``U^h = I``, every ``<x_1, x_i(0)> >= m0 > 0``):
  ``min_i a_i(t) >= tanh(c t + artanh m0)``, ``c = H e_lo / N``.  No bound outside that hemisphere.
* **Layer map** (eq. 4, any ``tau > 0``): ``L = ceil(ln(Q/eps) / (-2 ln(1 - kappa)))``; the review's
  ``ln(D0/eps)`` compares a chart diameter with ``eps`` and omits the chart-to-sphere factor.
* **Late entry** (3.2, layer map, constant rational ``P``): ``L0`` layers in arb balls, then the
  bound from layer ``L0``.

Everything that reaches "holds" is re-derived by :meth:`DepthCertificate.recheck`; the simulation is
evidence (``observed``, ``tightness = bound / observed``).
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from theorems.errors import InvalidInput
from theorems.provenance import Provenance
from theorems.system import AttentionSystem
from theorems.verdict import Status, Verdict, applicability, combine, holds

from .bounds import token2_report
from .certificate import DepthCertificate, derive, exp_lower
from .render import render_depth

MAX_ENTRY_WORK = 20_000_000
"""Largest ``N^2 H d budget`` of a late-entry search (about a minute of arb on one core)."""
SKIPPED_HYPOTHESES = {"P_uniformly_continuous": "not used by the bound (the diameter argument needs only the weight "
                      "lower bound)", "open_hemisphere": "evaluated by the bound itself (chart z, margin, late entry)",
                      "dim_at_least_2": "not used by the bound (its inequalities hold in Gram coordinates, in every "
                      "dimension; d >= 2 matters only for 4.2's 'almost every start')"}


@dataclass(frozen=True)
class DepthReport:
    theorem: str
    model: str
    eps: Fraction
    tau: Fraction | None
    status: Status
    explanation: str
    hypotheses: tuple[Verdict, ...]
    steps: tuple[Verdict, ...]
    certificate: DepthCertificate | None = None
    evidence: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    wall_s: float = 0.0

    @property
    def bound(self):
        if self.certificate is None:
            return None
        b = self.certificate.derived["bound"]
        return b if isinstance(b, int) else str(b)

    def to_json(self) -> dict[str, Any]:
        obs = None if self.evidence is None else self.evidence.get("observed")
        bound = self.bound
        tight = None
        if obs is not None and bound is not None and obs > 0:
            tight = float(Fraction(bound)) / obs
        cert = self.certificate
        return {"verdict": applicability(self.status), "bound": bound,
                "bound_kind": "layers L(eps)" if self.model == "layers" else "time T(eps)",
                "rate": None if cert is None else cert.derived["rate"], "eps": str(self.eps), "model": self.model,
                "tau": None if self.tau is None else str(self.tau), "observed": obs, "tightness": tight,
                "explanation": self.explanation, "theorem": self.theorem,
                "metric": "max_ij (1 - <x_i, x_j>)" if self.theorem == "3.2" else "max_i (1 - <x_1, x_i>)",
                "claim": None if cert is None else cert.claim,
                "hypotheses": [v.to_json() for v in self.hypotheses], "steps": [v.to_json() for v in self.steps],
                "evidence": None if self.evidence is None else {k: v for k, v in self.evidence.items()
                                                                 if k not in ("times", "values")},
                **{k: v for k, v in self.extra.items() if not k.startswith("_")}, "provenance": _provenance(),
                "wall_time_s": round(self.wall_s, 4)}

    def render(self, tau_default: bool = False) -> str:
        """The console text (:func:`.render.render_depth`; ``tau_default``: tau was not given)."""
        return render_depth(self, tau_default=tau_default)

    def figure(self, ax: Any = None, *, title: str = "", label: str | None = None) -> Any:
        """The bound against the simulation (:func:`.figure.depth_figure`); ``ax``: an existing Axes."""
        from .figure import depth_figure
        return depth_figure([(self, label or f"{self.theorem}, {self.model}")], title=title, ax=ax)

    @property
    def window_certificate(self):
        """The :class:`~.window_certificate.WindowCertificate` of the validated window, if one was proved."""
        return self.extra.get("_window_certificate")


def _provenance() -> dict[str, Any]:
    from .bounds import DIGITS, PREC

    return Provenance.collect(("consensus-verify", "python-flint", "sympy", "numpy"), packages_key="packages", arithmetic=(
        "exact rationals (Fraction, fmpq_mat) and python-flint arb balls; times rounded up, rates down"), details={
        "arb_precision_bits": PREC, "shortened_digits": DIGITS}, layout=("arithmetic", "arb_precision_bits", "shortened_digits", "packages")).to_json()


@functools.lru_cache(maxsize=1)
def invariance_certificate():
    """The parameter-free SOS certificate ``<z,x_j> - <x_i,x_j> m >= 0`` (searched once per process)."""
    from verify._sos.certificate import Certificate

    from .invariance_data import DATA

    try:
        stored = Certificate.from_json(DATA)
        if stored.recheck().holds:
            return stored
    except InvalidInput:
        pass
    from verify.certificates import certify_hemisphere_invariance

    result = certify_hemisphere_invariance()
    return result.certificate if result.verdict.holds and result.certificate.recheck().holds else None


@functools.lru_cache(maxsize=1)
def _chart_identity() -> Verdict:
    from verify._theorem.symbolic import chart_identity

    return chart_identity()


def rational_tokens(system: AttentionSystem) -> list[list[Fraction]] | None:
    """Rational tokens for the certificate: exact rational data, float data as the rationals they hold,
    and a token of irrational exact data that is an algebraic multiple of a rational direction (one
    the reader divided by its exact norm) as that direction scaled to within ``1e-24`` of the sphere:
    the certificate's bounds are about the normalised tokens ``x/|x|`` (``NORM_TOL``).  None otherwise."""
    if system.tokens_exact is None:
        return [[Fraction(float(v)) for v in row] for row in system.tokens]
    from theorems.predicates._rational import rational_direction

    out = []
    for i in range(system.N):
        q = rational_direction(system.tokens_exact.row(i))
        if q is None:
            return None
        out.append(q if all(v.is_Rational for v in system.tokens_exact.row(i)) else _near_unit(q))
    return out


def _near_unit(q: list[Fraction]) -> list[Fraction]:
    """``q / r`` with ``r`` a rational within ``1e-25`` (relative) of ``|q|``: a positive multiple of ``q``."""
    import math

    n2 = sum((v * v for v in q), Fraction(0))
    scale = 10 ** 30
    r = Fraction(math.isqrt(n2.numerator * scale ** 2 // n2.denominator), scale)
    return [v / r for v in q]


def _z_candidates(system: AttentionSystem) -> list[list[Fraction]]:
    """Hints for the chart vector (float; each is checked exactly): the LP witness, the mean, and a
    few hundred steps towards the centre of the smallest enclosing cap."""
    from theorems.predicates import hemisphere_verdict

    X = system.tokens / np.linalg.norm(system.tokens, axis=1, keepdims=True)
    out = []
    hv = hemisphere_verdict(system.tokens, system.tokens_exact)
    if hv.holds:
        out.append([Fraction(v) for v in hv.witness["z"]])
    z = X.mean(axis=0)
    if np.linalg.norm(z) > 1e-12:
        z = z / np.linalg.norm(z)
        for k in range(300):
            i = int(np.argmin(X @ z))
            z = z + X[i] / (k + 2)
            z = z / np.linalg.norm(z)
        out.append([Fraction(float(v)).limit_denominator(10 ** 9) for v in X.mean(axis=0) / np.linalg.norm(X.mean(axis=0))])
        out.append([Fraction(float(v)).limit_denominator(10 ** 9) for v in z])
    return out


def exact_beta(system: AttentionSystem):
    """``beta`` as an exact number: float data stand for the binary rational they hold."""
    import sympy

    beta = system.beta
    return sympy.Rational(float(beta)) if beta.has(sympy.Float) else beta


def hypotheses_for(theorem_id: str) -> tuple:
    """The catalogue's hypotheses of 3.2 / 4.2 (``theorems.catalogue.registry``) without
    :data:`SKIPPED_HYPOTHESES`; built from the same predicate classes (a test compares the lists)."""
    from theorems.predicates import EqualLNScales, MaskIs, PBounded, UIdentity

    return (MaskIs("full" if theorem_id == "3.2" else "causal"), UIdentity(), PBounded(), EqualLNScales())


def _float_cost(system: AttentionSystem, z) -> float:
    """Float estimate of ``ln(Q) / r`` for chart vector ``z`` (a hint to order candidates; never a bound)."""
    if z is None:
        return 0.0
    X = system.tokens / np.linalg.norm(system.tokens, axis=1, keepdims=True)
    zf = np.array([float(c) for c in z])
    s = X @ zf
    if np.min(s) <= 0:
        return float("inf")
    Y = X / s[:, None]
    G = Y @ Y.T
    sq = np.diag(G)
    D2 = float(np.max(sq[:, None] + sq[None, :] - 2 * G))
    Z2 = float(zf @ zf)
    return np.log(max(Z2 * D2 / 2, 1e-300) + 1.0) / (np.min(s) / np.sqrt(Z2))


def _hypotheses(theorem_id, system) -> tuple[Verdict, ...]:
    return tuple(h.evaluate(system) for h in hypotheses_for(theorem_id))


def certify_depth(theorem_id: str, system: AttentionSystem, eps: Fraction, model: str = "ode",
                  tau: Fraction | None = None, *, simulate: bool = True, entry_budget: int = 64,
                  tight: bool = True) -> DepthReport:
    """Certify ``T(eps)`` / ``L(eps)`` for result ``3.2`` or ``4.2`` on ``system`` (see module doc); for the
    ODE, ``tight`` adds the two-sided window ``[T_low, T_high]`` of a validated enclosure (:mod:`.tight`)."""
    start = time.perf_counter()
    if theorem_id not in ("3.2", "4.2"):
        raise InvalidInput("ID", "'3.2' or '4.2' (verify depth certifies these two results)", theorem_id)
    if model not in ("ode", "layers"):
        raise InvalidInput("--model", "'ode' or 'layers'", model)
    if not 0 < eps < 1:
        raise InvalidInput("--eps", "a rational in (0, 1)", str(eps))
    if model == "layers":
        tau = Fraction(1) if tau is None else tau
        if tau <= 0:
            raise InvalidInput("--tau", "a positive rational", str(tau))
    hyps = _hypotheses(theorem_id, system)
    base = dict(theorem=theorem_id, model=model, eps=eps, tau=tau if model == "layers" else None, hypotheses=hyps)
    done = lambda status, why, steps=(), cert=None, ev=None, extra=None: DepthReport(  # noqa: E731
        **base, status=status, explanation=why, steps=tuple(steps), certificate=cert, evidence=ev,
        extra=extra or {}, wall_s=time.perf_counter() - start)
    status = combine(v.status for v in hyps)
    if status is not Status.HOLDS:
        bad = [v.name for v in hyps if not v.holds]
        return done(status, f"hypothesis {', '.join(bad)} {'fails' if status is Status.FAILS else 'is undecided'}: "
                    "no bound is claimed")
    p = Fraction(str(next(v for v in hyps if v.name == "P_bounded").witness["p"]))
    tokens = rational_tokens(system)
    if tokens is None:
        return done(Status.UNKNOWN, "irrational token data: verify depth needs rational (or float) tokens")
    beta = str(exact_beta(system))
    steps: list[Verdict] = []
    extra: dict[str, Any] = {}
    inv = None
    steps.append(holds("weights", "cited (weights lemma, docs/model.md §2): sum_h a^h_ij >= H exp(-2 beta p)/|M(i)|, "
                       "exp enclosed by arb (e_lo in the certificate); obligation P_bounded <= hypothesis:P_bounded"))
    if model == "ode":
        inv = invariance_certificate()
        if inv is None:
            return done(Status.UNKNOWN, "the hemisphere-invariance SOS certificate could not be rounded")
        steps.append(holds("hemisphere_invariance", f"exact SOS certificate (re-checked): {inv.claim}"))
        if theorem_id == "3.2":
            steps.append(_chart_identity())
            steps.append(holds("diameter_contraction", "cited (Dini derivative of max_i / min_i <u, y_i> for each unit u): "
                               "dy_i/dt = sum_j b_ij (y_j - y_i) with b_ij >= H e_lo m0/(N |z|) gives "
                               "D(t) <= D0 exp(-H e_lo (m0/|z|) t); obligations: weights <= weights, "
                               "m(t) >= m0 <= hemisphere_invariance, chart <= chart_identity"))
        else:
            steps.append(holds("min_token_comparison", "cited (comparison lemma for the Dini derivative of "
                               "m = min_i <x_1, x_i>): m' >= (H e_lo/N)(1 - m^2) at a minimising token, since its "
                               "j = 1 term is a_i1 (1 - m^2) and every other term a_j - g m >= 0 "
                               "<= hemisphere_invariance with z = x_1; hence m(t) >= tanh(c t + artanh m0)"))
    else:
        from .symbolic import layer_chart_identity, token2_layer_identity

        steps.append(holds("layer_hemisphere_invariance", "elementary (every tau > 0): <z, v_i> >= m (1 + tau H) and "
                           "|v_i| <= 1 + tau H (triangle inequality), so min_i <z, x_i> never decreases"))
        steps.append(layer_chart_identity())
        steps.append(holds("dobrushin_contraction", "cited (Dobrushin coefficient): a stochastic matrix with every "
                           "entry >= mu contracts each directional spread, hence the chart diameter, by 1 - N mu"
                           if theorem_id == "3.2" else "elementary: y_i' - y_1 = sum_{j>=2} W_ij (y_j - y_1), so "
                           "max_i |y_i - y_1| contracts by 1 - min_i W_i1 <= 1 - mu1"))
        if theorem_id == "4.2":
            steps.append(token2_layer_identity())
    candidates = []
    late = None
    if theorem_id == "3.2":
        candidates = _z_candidates(system)
    else:
        candidates = [None]
    best, errors = None, []
    for z in sorted(candidates, key=lambda z: _float_cost(system, z)):
        try:
            best = (z, derive(theorem_id, model, system.H, beta, p, eps, tau, tokens, z, None))
            break
        except ArithmeticError as exc:
            errors.append(str(exc))
    if best is None and errors and not any("hemisphere" in e for e in errors):
        return done(Status.UNKNOWN, f"no bound could be certified: {errors[0]}", steps)
    if best is None and theorem_id == "3.2" and model == "layers":
        late = _late_entry(system, tokens, p, beta, tau, eps, entry_budget)
        if isinstance(late, str):
            return done(Status.UNKNOWN, late, steps)
        best = late[:2]
    if best is None and tight:
        from .tight import enclosure_only_window

        late_window = enclosure_only_window(theorem_id, system, tokens, eps, model, tau)
        if late_window is not None:
            extra["window"], extra["_window_certificate"] = late_window.to_json(), late_window.certificate
            steps.append(holds("validated_window", late_window.reason))
            unit = "t >=" if model == "ode" else "layer k >="
            return done(Status.HOLDS, f"certified by the validated enclosure alone (late entry): {unit} "
                        f"{late_window.T_high} implies the metric <= {eps}; no closed-form bound applies at the start",
                        steps, None, None, extra)
    if best is None:
        why = ("the tokens are not all in the open hemisphere around x_1 (some <x_1, x_i(0)> <= 0): no explicit "
               "bound is certified there" if theorem_id == "4.2" else
               "no open hemisphere was proved (use --model layers for a certified late entry)")
        if theorem_id == "3.2":
            from theorems.predicates import hemisphere_verdict

            hv = hemisphere_verdict(system.tokens, system.tokens_exact)
            if hv.status is Status.FAILS:
                return done(Status.FAILS, "hypothesis open_hemisphere fails at t = 0: " + hv.reason, [*steps, hv])
        return done(Status.UNKNOWN, why, steps, extra=token2_report(theorem_id, model, tokens, system.H, exp_lower(beta, p), eps))
    z, der = best
    le = None if late is None else {"L0": der["L0"], "P": late[2]}
    cert = DepthCertificate(theorem_id, model, system.H, beta, p, eps, tau if model == "layers" else None,
                            tuple(tuple(r) for r in tokens), None if z is None else tuple(z), le, der, inv,
                            label=f"verify depth {theorem_id} --model {model} on {system.name}")
    check = cert.recheck()
    steps.append(Verdict("depth_bound", check.status, check.reason, {"claim": cert.claim}))
    if not check.holds:
        return done(Status.UNKNOWN, "the bound failed its independent re-check: " + check.reason, steps)
    extra.update(token2_report(theorem_id, model, tokens, system.H, exp_lower(beta, p), eps))
    ev = None
    if simulate:
        from .evidence import layers_observed, ode_observed

        b = float(Fraction(der["bound"]))
        ev = (ode_observed(system, float(eps), b) if model == "ode"
              else layers_observed(system, float(eps), float(tau), int(der["bound"])))
    if tight:
        from .tight import tight_layer_window, tight_window

        hint = None if ev is None else ev.get("observed")
        tw = (tight_window(theorem_id, system, tokens, eps, hint, float(Fraction(der["bound"]))) if model == "ode" else
              tight_layer_window(theorem_id, system, tokens, eps, tau, hint))
        extra["window"], extra["_window_certificate"] = tw.to_json(), tw.certificate
    why = (f"certified: {'t' if model == 'ode' else 'layer k'} >= {der['bound']} implies the metric <= {eps}"
           + (f" (late entry: the first {der['L0']} layers enclosed in arb balls, an open hemisphere proved at "
              f"layer {der['L0']}, then {der['layers_after']} more by the contraction bound)" if late else ""))
    return done(Status.HOLDS, why, steps, cert, ev, extra)


def _late_entry(system, tokens, p, beta, tau, eps, budget):
    """Search a late entry (constant rational ``P`` and ``beta``): ``(z, derived, P)`` or a reason."""
    from theorems.matrices import ConstantMatrix
    from theorems.predicates._rational import rational_matrix

    if not all(isinstance(h.P, ConstantMatrix) for h in system.heads):
        return "late entry needs constant P^h (time-varying P is not evaluated in balls)"
    P = [rational_matrix(h.P) for h in system.heads]
    try:
        beta_q = Fraction(beta)
    except ValueError:
        beta_q = None
    if beta_q is None or any(m is None for m in P):
        return "late entry needs rational beta and P"
    from .late_entry import find_entry

    from . import bounds as B
    from .certificate import exp_lower

    e_lo, H = exp_lower(beta, p), system.H

    def total(k: int, chart) -> float:
        try:
            return k + B.layers_full(chart, H, e_lo, tau, eps).value
        except ArithmeticError:
            return float("inf")

    work = len(tokens) ** 2 * len(P) * len(tokens[0]) * max(budget, 1)
    if work > MAX_ENTRY_WORK:
        return (f"late entry search too large (N^2 H d budget = {work} > {MAX_ENTRY_WORK} ball operations): "
                "lower --entry-budget; no bound is certified")
    found = find_entry(tokens, P, beta_q, tau, budget, score=total)
    if found is None:
        return (f"no open hemisphere proved within {budget} layers (ball enclosures of eq. 4 + exact LP check): "
                "no bound is certified")
    L0, z, _ = found
    Pt = tuple(tuple(tuple(r) for r in m) for m in P)
    der = derive("3.2", "layers", system.H, beta, p, eps, tau, tokens, z, {"L0": L0, "P": Pt})
    return z, der, Pt
