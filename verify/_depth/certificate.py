"""The ``depth`` certificate: a certified time ``T(eps)`` or number of layers ``L(eps)``, re-checkable.

It stores the inputs (result, model, ``H``, ``beta``, the proven bound ``p``, ``eps``, ``tau``, the
rational tokens, the chart vector ``z``; for a late entry the constant ``P^h`` and ``L0``) and the
derived rationals (``exp(-2 beta p) >= e_lo``, the chart data, the bound, the rate).  The re-check
(:meth:`DepthCertificate.recheck`) recomputes every derived value from the inputs with the same
trusted arithmetic (:mod:`verify._depth.bounds`: ``Fraction``, ``fmpq_mat``, ``arb`` at the stored
precision, the enclosure engine for ``exp``) and requires equality, so changing any stored number
is rejected; for a late entry it also re-evaluates the ``L0`` layers in balls and proves
``p^2 I - P^T P >= 0`` exactly.  The nested hemisphere-invariance SOS certificate (ODE bounds) is
re-checked as well.

What it proves: the claim printed by :attr:`DepthCertificate.claim`, relative to the cited steps
named there (chart identity, the diameter argument, the comparison lemma); see docs/depth.md.
Without a late entry the claim holds for **every** ``P^h(t)`` (continuous in ``t``) with
``sup_t ||P^h(t)||_2 <= p``; ``P`` itself is not needed.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, final

import flint
import sympy

from theorems.errors import InvalidInput
from theorems.verdict import Verdict, fails, holds
from verify._sos import cert_schema as S

from . import bounds as B

FORMAT = "consensus-verify/depth-certificate"
VERSION = 1
KIND = "depth"
MAX_TOKENS = 20000
MAX_DIM = 1024
MAX_LAYERS = 10000
MAX_EXPONENT = 700
NORM_TOL = Fraction(1, 10 ** 12)
"""Float tokens are the rationals they hold, unit up to decimal round-off (``theorems.system.TOKEN_NORM_TOL``);
the bound is about the normalised tokens ``x/|x|``."""
_KEYS = ("result", "model", "H", "beta", "p", "eps", "tau", "tokens", "z", "late_entry", "prec", "derived")


@final
@dataclass(frozen=True)
class DepthCertificate:
    result: str
    model: str
    H: int
    beta: str
    p: Fraction
    eps: Fraction
    tau: Fraction | None
    tokens: tuple[tuple[Fraction, ...], ...]
    z: tuple[Fraction, ...] | None
    late_entry: Mapping[str, Any] | None
    derived: Mapping[str, Any]
    invariance: Any = None
    prec: int = B.PREC
    label: str = ""

    @property
    def mask(self) -> str:
        return "full" if self.result == "3.2" else "causal"

    @property
    def claim(self) -> str:
        N, d = len(self.tokens), len(self.tokens[0])
        metric = "max_ij (1 - <x_i, x_j>)" if self.mask == "full" else "max_i (1 - <x_1, x_i>)"
        model = "eq. 5 (ODE)" if self.model == "ode" else f"eq. 4 (layer map, tau = {self.tau})"
        when = f"t >= {self.derived.get('bound')}" if self.model == "ode" else f"every layer k >= {self.derived.get('bound')}"
        P = ("the stored constant P^h" if self.late_entry else
             "every P^h(t) continuous in t" if self.model == "ode" else "any P^h at each layer")
        return (f"{model}, {self.mask} attention, U^h = I, H = {self.H}, beta = {self.beta}, {P} with "
                f"||P^h||_2 <= {self.p} throughout, the {N} stored tokens in R^{d} (normalised): "
                f"{metric} <= {self.eps} for {when}")

    def compute(self) -> dict[str, Any]:
        """Every derived value, recomputed from the inputs (raises ArithmeticError when impossible)."""
        return derive(self.result, self.model, self.H, self.beta, self.p, self.eps, self.tau, self.tokens, self.z,
                      self.late_entry)

    def recheck(self) -> Verdict:
        if self.prec != B.PREC:
            return fails("depth", f"precision {self.prec} differs from this version's {B.PREC} bits")
        try:
            again = self.compute()
        except (ArithmeticError, InvalidInput, ValueError) as exc:
            return fails("depth", f"the bound cannot be re-derived from the stored data: {exc}")
        for key, value in again.items():
            if self.derived.get(key) != value:
                return fails("depth", f"derived.{key}: stored {self.derived.get(key)!r}, recomputed {value!r}")
        if set(self.derived) != set(again):
            return fails("depth", f"derived keys {sorted(self.derived)} differ from {sorted(again)}")
        if self.model == "ode":
            if self.invariance is None:
                return fails("depth", "the ODE bound needs the hemisphere-invariance certificate")
            if not _is_invariance_statement(self.invariance):
                return fails("depth", "the nested certificate does not prove the hemisphere-invariance inequality "
                                      "-m*g + b_j >= 0 on {b_j - m >= 0, m >= 0, 1 - g >= 0, 1 + g >= 0}")
            inv = self.invariance.recheck()
            if not inv.holds:
                return fails("depth", f"the nested hemisphere-invariance certificate fails: {inv.reason}")
        return holds("depth", f"re-derived exactly: bound {again['bound']}, rate {again['rate']}", {"claim": self.claim})

    def to_json(self) -> dict[str, Any]:
        q = lambda v: None if v is None else str(v)  # noqa: E731
        return {"format": FORMAT, "version": VERSION, "kind": KIND, "label": self.label, "claim": self.claim,
                "result": self.result, "model": self.model, "H": self.H, "beta": self.beta, "p": str(self.p),
                "eps": str(self.eps), "tau": q(self.tau), "tokens": [[str(c) for c in row] for row in self.tokens],
                "z": None if self.z is None else [str(c) for c in self.z],
                "late_entry": None if self.late_entry is None else
                {"L0": self.late_entry["L0"], "P": [[[str(c) for c in row] for row in Ph] for Ph in self.late_entry["P"]]},
                "prec": self.prec, "derived": dict(self.derived),
                "invariance": None if self.invariance is None else self.invariance.to_json()}

    @staticmethod
    def from_json(data: Mapping[str, Any], field: str = "certificate") -> "DepthCertificate":
        from verify._sos.certificate import Certificate

        d = S.header(data, field, FORMAT, VERSION, KIND, _KEYS + ("invariance",))
        result = d["result"]
        if result not in ("3.2", "4.2"):
            raise InvalidInput(f"{field}.result", "'3.2' or '4.2'", result)
        model = d["model"]
        if model not in ("ode", "layers"):
            raise InvalidInput(f"{field}.model", "'ode' or 'layers'", model)
        rows = S.lst(d["tokens"], f"{field}.tokens", MAX_TOKENS, "tokens")
        if not rows:
            raise InvalidInput(f"{field}.tokens", "at least one token", rows)
        dim = len(rows[0]) if isinstance(rows[0], list) else 0
        if not 1 <= dim <= MAX_DIM:
            raise InvalidInput(f"{field}.tokens[0]", f"a list of 1..{MAX_DIM} rationals", rows[0])
        budget = S.Budget()
        budget.take(len(rows) * dim, f"{field}.tokens")
        tokens = tuple(_vector(r, dim, f"{field}.tokens[{i}]") for i, r in enumerate(rows))
        z = None if d["z"] is None else _vector(d["z"], dim, f"{field}.z")
        late = d["late_entry"]
        if late is not None:
            le = S.obj(late, f"{field}.late_entry", ("L0", "P"))
            heads = S.lst(le["P"], f"{field}.late_entry.P", 64, "heads")
            budget.take(len(heads) * dim * dim, f"{field}.late_entry.P")
            P = tuple(tuple(_vector(r, dim, f"{field}.late_entry.P[{h}][{i}]")
                            for i, r in enumerate(S.lst(Ph, f"{field}.late_entry.P[{h}]", dim, "rows")))
                      for h, Ph in enumerate(heads))
            if any(len(Ph) != dim for Ph in P):
                raise InvalidInput(f"{field}.late_entry.P", f"{dim}x{dim} matrices", "another shape")
            late = {"L0": S.integer(le["L0"], f"{field}.late_entry.L0", 0, MAX_LAYERS), "P": P}
        derived = S.obj(d["derived"], f"{field}.derived", (), ("e_lo", "k", "chart", "bound", "rate", "m0", "L0", "layers_after"))
        tau = None if d["tau"] is None else S.rational(d["tau"], f"{field}.tau")
        beta = S.text(d["beta"], f"{field}.beta", 200)
        inv = None if d["invariance"] is None else Certificate.from_json(d["invariance"], f"{field}.invariance")
        return DepthCertificate(result, model, S.integer(d["H"], f"{field}.H", 1, 4096), beta,
                                S.rational(d["p"], f"{field}.p"), S.rational(d["eps"], f"{field}.eps"), tau, tokens, z,
                                late, dict(derived), inv, S.integer(d["prec"], f"{field}.prec", 2, 100000),
                                d.get("label", ""))


def _vector(row: Any, dim: int, field: str) -> tuple[Fraction, ...]:
    items = S.lst(row, field, dim, "rationals")
    if len(items) != dim:
        raise InvalidInput(field, f"{dim} rationals", f"{len(items)} entries")
    return tuple(S.rational(c, f"{field}[{k}]") for k, c in enumerate(items))


def exp_lower(beta: str, p: Fraction) -> Fraction:
    """A rational ``e_lo <= exp(-2 beta p)`` (the weights lemma's factor): the arb enclosure of the
    project's engine (:mod:`theorems.enclosure`), its lower end shortened downwards to 12 digits.
    ``beta`` is parsed with the instance grammar (no free variables)."""
    from theorems.enclosure import constant_interval
    from theorems.parsing import Grammar, parse

    b = parse(beta, Grammar(variables={}), "beta").expr
    if not b.is_number or b.has(sympy.Float):
        raise ArithmeticError("beta must be an exact constant")
    x = 2 * b * sympy.Rational(p.numerator, p.denominator)
    if not (b > 0 and p >= 0) or float(x) > MAX_EXPONENT:
        raise ArithmeticError(f"need beta > 0, p >= 0 and 2 beta p <= {MAX_EXPONENT}")
    box = constant_interval(sympy.exp(-x), prec=80)
    if box is None:
        raise ArithmeticError("exp(-2 beta p) could not be enclosed")
    lo, _ = box.fractions()
    if lo is None or lo <= 0:
        raise ArithmeticError("no positive lower bound for exp(-2 beta p)")
    short = B.short_down(lo, 12)
    return short if short > 0 else lo


def beta_p_z(beta: str, p: Fraction, Z2: Fraction) -> Fraction:
    """A rational ``k >= beta p |z|`` (``|z| = sqrt(Z2)``) for the sharp 3.2 bound
    (:func:`.bounds.ode_full_sharp`): arb enclosures, upper ends, shortened upwards."""
    from theorems.enclosure import constant_interval
    from theorems.parsing import Grammar, parse

    b = parse(beta, Grammar(variables={}), "beta").expr
    box = constant_interval(b, prec=80)
    _, hi = box.fractions() if box is not None else (None, None)
    if hi is None or hi <= 0:
        raise ArithmeticError("beta could not be enclosed")
    with flint.ctx.workprec(B.PREC):
        return B.short_up(B.upper(B.ball(hi) * B.ball(p) * B.ball(Z2).sqrt()))


def derive(result: str, model: str, H: int, beta: str, p: Fraction, eps: Fraction, tau: Fraction | None,
           tokens, z, late_entry) -> dict[str, Any]:
    """The derived values of a depth certificate (the one computation shared by search and re-check)."""
    if not 0 < eps < 1:
        raise ArithmeticError("eps must lie in (0, 1)")
    if model == "layers" and (tau is None or tau <= 0):
        raise ArithmeticError("the layer map needs tau > 0")
    if any(abs(B.dot(row, row) - 1) > NORM_TOL for row in tokens):
        raise ArithmeticError(f"a token is not a unit vector (| |x|^2 - 1 | > {NORM_TOL}, the instance reader's tolerance)")
    e_lo = exp_lower(beta, p)
    N = len(tokens)
    out: dict[str, Any] = {"e_lo": str(e_lo)}
    L0 = 0
    if late_entry is not None:
        if result != "3.2" or model != "layers" or z is None:
            raise ArithmeticError("late entry is certified for the layer map of 3.2 only")
        if len(late_entry["P"]) != H:
            raise ArithmeticError(f"H = {H} but the late entry stores {len(late_entry['P'])} head(s)")
        _check_norms(late_entry["P"], p)
        from .late_entry import find_entry

        found = find_entry(tokens, late_entry["P"], Fraction(beta), tau, late_entry["L0"], z_fixed=z)
        if found is None:
            raise ArithmeticError(f"the balls do not prove <z, x_i> > 0 after {late_entry['L0']} layers")
        L0, _, chart = found
        out["L0"] = L0
    elif result == "3.2":
        chart = B.chart_full(z, tokens) if z is not None else None
    else:
        chart = B.chart_causal(tokens)
    if chart is None:
        raise ArithmeticError("some token is not in the open hemisphere of z" + (" (z = x_1)" if result == "4.2" else ""))
    out["chart"] = chart.to_json()
    if model == "ode" and result == "3.2":
        k = beta_p_z(beta, p, chart.Z2)
        out["k"] = str(k)
        bound = B.ode_full_sharp(chart, H, e_lo, k, eps)
        out["bound"] = str(bound.value)
    elif model == "ode":
        bound = B.ode_causal(chart.r_lo, H, N, e_lo, eps)
        out["bound"] = str(bound.value)
    else:
        bound = (B.layers_full(chart, H, e_lo, tau, eps) if result == "3.2"
                 else B.layers_causal(chart, H, N, e_lo, tau, eps))
        out["layers_after"] = bound.value
        out["bound"] = L0 + bound.value
    if result == "4.2" and model == "ode":
        out["m0"] = str(chart.r_lo)
    out["rate"] = str(bound.rate)
    return out


def _check_norms(P, p: Fraction) -> None:
    """``p^2 I - P^T P`` positive semidefinite in exact arithmetic, for every head: ``||P||_2 <= p``."""
    from verify._sos.exact_psd import check_psd

    for h, Ph in enumerate(P):
        d = len(Ph)
        M = [[(p * p if i == j else 0) - sum((Ph[k][i] * Ph[k][j] for k in range(d)), Fraction(0)) for j in range(d)]
             for i in range(d)]
        if not check_psd(M).ok:
            raise ArithmeticError(f"||P^{h}||_2 <= {p} does not hold exactly")


def _is_invariance_statement(cert) -> bool:
    """The nested SOS certificate proves exactly the stored invariance inequality (same variables,
    polynomial, constraints): a valid certificate of another statement proves nothing here."""
    from verify._sos.certificate import Certificate

    from .invariance_data import DATA

    canon = Certificate.from_json(DATA)
    # Fewer constraints prove the inequality on a larger set, which implies the stated one.
    return (tuple(cert.variables) == tuple(canon.variables) and cert.polynomial == canon.polynomial
            and set(cert.ineqs) <= set(canon.ineqs) and set(cert.eqs) <= set(canon.eqs))
