"""Exact Lyapunov certificates for polynomial vector fields ``dx/dt = f(x)`` with ``f(0) = 0``.

A :class:`LyapunovCertificate` carries a rational polynomial ``V`` and two SOS certificates:

* ``positivity``:  ``V(x) - eps * |x|^2 >= 0`` for all ``x``   (so ``V`` is positive definite and
  radially unbounded, ``eps > 0`` rational), and
* ``decrease``:    ``-<grad V(x), f(x)> - decay * |x|^2 >= 0`` for all ``x`` (``decay >= 0``).

With ``V(0) = 0`` this proves the origin Lyapunov stable (``decay = 0``) or globally
asymptotically stable (``decay > 0``: ``dV/dt <= -decay |x|^2`` and ``V`` is radially
unbounded).  :meth:`recheck` recomputes both target polynomials from ``V`` and ``f`` exactly and
re-checks the two SOS certificates; no solver is imported.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, final

from theorems.errors import InvalidInput
from theorems.verdict import Verdict, fails, holds

from . import cert_schema as S
from . import poly
from .certificate import FORMAT, VERSION, Certificate, FrozenPoly, freeze, thaw

KIND = "lyapunov"


def squared_norm(n: int) -> poly.Poly:
    return {tuple(2 if i == k else 0 for i in range(n)): Fraction(1) for k in range(n)}


def lie_derivative(v: poly.Poly, field: tuple[poly.Poly, ...]) -> poly.Poly:
    """``<grad V, f>`` exactly."""
    out: poly.Poly = {}
    for k, fk in enumerate(field):
        poly.add_into(out, poly.mul(poly.derivative(v, k), fk))
    return out


def positivity_target(v: poly.Poly, eps: Fraction, n: int) -> poly.Poly:
    return poly.sub(v, poly.scale(squared_norm(n), eps))


def decrease_target(v: poly.Poly, field: tuple[poly.Poly, ...], decay: Fraction, n: int) -> poly.Poly:
    return poly.sub(poly.scale(lie_derivative(v, field), -1), poly.scale(squared_norm(n), decay))


@final
@dataclass(frozen=True)
class LyapunovCertificate:
    """``V`` with exact certificates of ``V - eps|x|^2 >= 0`` and ``-dV/dt - decay|x|^2 >= 0``."""

    variables: tuple[str, ...]
    field: tuple[FrozenPoly, ...]
    V: FrozenPoly
    eps: Fraction
    decay: Fraction
    positivity: Certificate
    decrease: Certificate
    label: str = ""

    @property
    def claim(self) -> str:
        names = self.variables
        rhs = ", ".join(poly.to_text(thaw(f), names) for f in self.field)
        kind = "globally asymptotically stable" if self.decay > 0 else "Lyapunov stable"
        return (f"origin of d({', '.join(names)})/dt = ({rhs}) is {kind}: V = "
                f"{poly.to_text(thaw(self.V), names)}, V >= {self.eps}*|x|^2, dV/dt <= "
                + (f"-{self.decay}*|x|^2" if self.decay else "0"))

    def recheck(self) -> Verdict:
        """Exact re-check: hypotheses on ``eps``, ``decay``, ``V(0)``, ``f(0)``, both targets, both SOS."""
        name = "lyapunov_certificate"
        n = len(self.variables)
        if len(self.field) != n:
            return fails(name, f"the field has {len(self.field)} components for {n} variables")
        if self.eps <= 0:
            return fails(name, f"eps must be > 0, got {self.eps}")
        if self.decay < 0:
            return fails(name, f"decay must be >= 0, got {self.decay}")
        origin = (0,) * n
        field = tuple(thaw(f) for f in self.field)
        v = thaw(self.V)
        if any(len(m) != n for m in v) or any(len(m) != n for f in field for m in f):
            return fails(name, "V or the field has a monomial with the wrong number of exponents")
        if v.get(origin):
            return fails(name, f"V(0) = {v[origin]} must be 0")
        for k, f in enumerate(field):
            if f.get(origin):
                return fails(name, f"f_{k}(0) = {f[origin]}: the origin is not an equilibrium")
        for part, cert, target in (("positivity", self.positivity, positivity_target(v, self.eps, n)),
                                   ("decrease", self.decrease, decrease_target(v, field, self.decay, n))):
            if cert.variables != self.variables or cert.ineqs or cert.eqs:
                return fails(name, f"{part} certificate must be global (no constraints) over {list(self.variables)}")
            if thaw(cert.polynomial) != target:
                return fails(name, f"{part} certificate proves a different polynomial than the one "
                                   f"computed from V and f")
            verdict = cert.recheck()
            if not verdict.holds:
                return fails(name, f"{part} certificate: {verdict.reason}", dict(verdict.witness))
        return holds(name, f"exact re-check passed: {self.claim}",
                     {"V": poly.to_text(v, self.variables), "eps": str(self.eps), "decay": str(self.decay)})

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "kind": KIND,
            "label": self.label,
            "claim": self.claim,
            "variables": list(self.variables),
            "field": [poly.to_json(thaw(f)) for f in self.field],
            "V": poly.to_json(thaw(self.V)),
            "eps": str(self.eps),
            "decay": str(self.decay),
            "positivity": self.positivity.to_json(),
            "decrease": self.decrease.to_json(),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any], field: str = "certificate") -> "LyapunovCertificate":
        """Rebuild from :meth:`to_json` output, validating every field (:mod:`.cert_schema`)."""
        d = S.header(data, field, FORMAT, VERSION, KIND,
                     ("variables", "field", "V", "eps", "decay", "positivity", "decrease"))
        variables = S.variables(d["variables"], f"{field}.variables")
        n = len(variables)
        budget = S.Budget()
        components = S.lst(d["field"], f"{field}.field", S.MAX_VARIABLES, "polynomials")
        if len(components) != n:
            raise InvalidInput(f"{field}.field", f"{n} components (one per variable)", f"{len(components)} components")
        return LyapunovCertificate(
            variables=variables,
            field=tuple(freeze(S.polynomial(f, n, f"{field}.field[{k}]", budget)) for k, f in enumerate(components)),
            V=freeze(S.polynomial(d["V"], n, f"{field}.V", budget)),
            eps=S.rational(d["eps"], f"{field}.eps"),
            decay=S.rational(d["decay"], f"{field}.decay"),
            positivity=Certificate.from_json(d["positivity"], f"{field}.positivity"),
            decrease=Certificate.from_json(d["decrease"], f"{field}.decrease"),
            label=d.get("label", ""),
        )
