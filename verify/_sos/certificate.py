"""Exact SOS certificates of nonnegativity on a basic semialgebraic set, and their re-check.

A :class:`Certificate` proves ``p >= 0`` on ``K = {x : g_k(x) >= 0, h_l(x) = 0}`` through the
polynomial identity (Putinar / Schmuedgen form)

    p  =  sum_S  g_S(x) * m_S(x)^T Q_S m_S(x)  +  sum_l  lambda_l(x) h_l(x)

where ``S`` runs over the stored terms, ``g_S`` is the product of the constraints ``g_k`` with
``k`` in ``S`` (the empty product is 1, i.e. ``sigma_0``), ``m_S`` is a vector of monomials and
``Q_S`` a rational positive semidefinite Gram matrix.  Each ``m^T Q m`` is then a sum of squares,
so on ``K`` every term is ``>= 0`` (the ``h_l`` vanish) and so is ``p``.

:meth:`Certificate.recheck` verifies exactly this and nothing else, with
:class:`fractions.Fraction` arithmetic: symmetry and PSD of every Gram matrix (exact LDL^T; blocks of
32 rows and more first try the exact congruence witnesses of :mod:`.psd_congruence`, integer
matrix products in python-flint), and equality of the two sides on every monomial.  It never
imports the solver (this module imports only the standard library, :mod:`theorems.verdict` and
:mod:`theorems.errors`; loading validates every field first, see :mod:`.cert_schema`).  Not guaranteed: that ``K`` is the set
the user had in mind — the certificate proves the statement it carries, as it is printed.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence, final

from theorems.errors import InvalidInput
from theorems.verdict import Verdict, fails, holds

from . import cert_schema as S
from . import poly
from .psd_congruence import decide_psd

FORMAT = "consensus-verify/sos-certificate"
VERSION = 1
FrozenPoly = tuple[tuple[poly.Monomial, Fraction], ...]


def freeze(p: Mapping[poly.Monomial, Fraction]) -> FrozenPoly:
    return tuple(sorted((m, Fraction(c)) for m, c in p.items() if c))


def thaw(p: FrozenPoly) -> poly.Poly:
    return {m: c for m, c in p if c}


@final
@dataclass(frozen=True)
class SOSTerm:
    """One term ``g_S * m^T Q m``: ``multiplier`` lists the constraint indices in ``S``."""

    multiplier: tuple[int, ...]
    basis: tuple[poly.Monomial, ...]
    gram: tuple[tuple[Fraction, ...], ...]


@final
@dataclass(frozen=True)
class EqTerm:
    """One term ``lambda * h_l`` with a free (sign-unconstrained) polynomial multiplier."""

    constraint: int
    multiplier: FrozenPoly


@final
@dataclass(frozen=True)
class Certificate:
    """An exact certificate that ``polynomial >= 0`` on ``{ineqs >= 0, eqs == 0}``.

    All polynomials are over ``variables`` (in that order) with exact rational coefficients.
    ``label`` is free text (for example the paper inequality it proves) and is not part of the
    mathematics.
    """

    variables: tuple[str, ...]
    polynomial: FrozenPoly
    ineqs: tuple[FrozenPoly, ...]
    eqs: tuple[FrozenPoly, ...]
    sos_terms: tuple[SOSTerm, ...]
    eq_terms: tuple[EqTerm, ...]
    label: str = ""

    @property
    def claim(self) -> str:
        names = self.variables
        text = f"{poly.to_text(thaw(self.polynomial), names)} >= 0"
        conds = [f"{poly.to_text(thaw(g), names)} >= 0" for g in self.ineqs]
        conds += [f"{poly.to_text(thaw(h), names)} == 0" for h in self.eqs]
        return text + (f" on {{{', '.join(conds)}}}" if conds else " for all real " + ", ".join(names))

    def gram_sizes(self) -> tuple[int, ...]:
        return tuple(len(t.basis) for t in self.sos_terms)

    def recheck(self) -> Verdict:
        """Re-verify the certificate with exact rational arithmetic only.

        Returns a ``holds`` verdict, or ``fails`` naming the first Gram block or monomial at
        which the certificate is wrong.  Never raises for a wrong certificate.
        """
        name = "sos_certificate"
        n = len(self.variables)
        if len(set(self.variables)) != n:
            return fails(name, f"variable names are not distinct: {list(self.variables)}")
        for field, p in [("polynomial", self.polynomial)] + \
                [(f"ineqs[{k}]", g) for k, g in enumerate(self.ineqs)] + \
                [(f"eqs[{k}]", h) for k, h in enumerate(self.eqs)]:
            if any(len(m) != n for m, _ in p):
                return fails(name, f"{field} has a monomial with the wrong number of exponents")
        rhs: poly.Poly = {}
        for k, term in enumerate(self.sos_terms):
            where = f"Gram block {k} (multiplier {self._mult_name(term.multiplier)})"
            if list(term.multiplier) != sorted(set(term.multiplier)) or \
                    any(not 0 <= i < len(self.ineqs) for i in term.multiplier):
                return fails(name, f"{where}: multiplier indices must be distinct, sorted and refer to ineqs")
            if len(set(term.basis)) != len(term.basis) or any(len(m) != n for m in term.basis):
                return fails(name, f"{where}: basis monomials must be distinct {n}-tuples")
            if len(term.gram) != len(term.basis):
                return fails(name, f"{where}: Gram matrix has {len(term.gram)} rows for {len(term.basis)} monomials")
            psd = decide_psd(term.gram)
            if not psd.ok:
                return fails(name, f"{where} is not positive semidefinite: {psd.reason}",
                             {"block": k, "reason": psd.reason})
            weight = poly.product((thaw(self.ineqs[i]) for i in term.multiplier), n)
            poly.add_into(rhs, poly.gram_poly(weight, term.basis, term.gram))
        for k, term in enumerate(self.eq_terms):
            if not 0 <= term.constraint < len(self.eqs):
                return fails(name, f"equality term {k} refers to eqs[{term.constraint}], which does not exist")
            if any(len(m) != n for m, _ in term.multiplier):
                return fails(name, f"equality term {k}: multiplier has a monomial of the wrong length")
            poly.add_into(rhs, poly.mul(thaw(term.multiplier), thaw(self.eqs[term.constraint])))
        residual = poly.sub(thaw(self.polynomial), rhs)
        if residual:
            mono = min(residual, key=lambda m: (sum(m), m))
            lhs = thaw(self.polynomial).get(mono, Fraction(0))
            shown = poly.to_text({mono: Fraction(1)}, self.variables)
            return fails(name, f"polynomial identity fails at monomial {shown}: the claimed polynomial has "
                               f"coefficient {lhs}, the certificate gives {rhs.get(mono, Fraction(0))} "
                               f"({len(residual)} monomials differ)",
                         {"monomial": list(mono), "lhs": str(lhs), "rhs": str(rhs.get(mono, Fraction(0)))})
        sizes = self.gram_sizes()
        return holds(name, f"exact re-check passed: {len(sizes)} PSD Gram blocks (sizes {list(sizes)}), "
                           f"{len(self.eq_terms)} equality multipliers, identity holds on all monomials",
                     {"claim": self.claim, "gram_sizes": list(sizes)})

    def _mult_name(self, multiplier: Sequence[int]) -> str:
        return "1" if not multiplier else "*".join(f"g{i}" for i in multiplier)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "kind": "nonnegativity",
            "label": self.label,
            "claim": self.claim,
            "variables": list(self.variables),
            "polynomial": poly.to_json(thaw(self.polynomial)),
            "ineqs": [poly.to_json(thaw(g)) for g in self.ineqs],
            "eqs": [poly.to_json(thaw(h)) for h in self.eqs],
            "sos_terms": [{"multiplier": list(t.multiplier), "basis": [list(m) for m in t.basis],
                           "gram": [[str(x) for x in row] for row in t.gram]} for t in self.sos_terms],
            "eq_terms": [{"constraint": t.constraint, "multiplier": poly.to_json(thaw(t.multiplier))}
                         for t in self.eq_terms],
        }

    @staticmethod
    def from_json(data: Mapping[str, Any], field: str = "certificate") -> "Certificate":
        """Rebuild from :meth:`to_json` output, validating every field (:mod:`.cert_schema`);
        :class:`~theorems.errors.InvalidInput` (a ``ValueError``) names the malformed field."""
        d = S.header(data, field, FORMAT, VERSION, "nonnegativity",
                     ("variables", "polynomial", "ineqs", "eqs", "sos_terms", "eq_terms"))
        variables = S.variables(d["variables"], f"{field}.variables")
        n = len(variables)
        budget = S.Budget()
        ineqs = tuple(freeze(S.polynomial(g, n, f"{field}.ineqs[{k}]", budget))
                      for k, g in enumerate(S.lst(d["ineqs"], f"{field}.ineqs", S.MAX_TERMS, "polynomials")))
        eqs = tuple(freeze(S.polynomial(h, n, f"{field}.eqs[{k}]", budget))
                    for k, h in enumerate(S.lst(d["eqs"], f"{field}.eqs", S.MAX_TERMS, "polynomials")))
        terms = tuple(SOSTerm(*S.sos_term(t, n, len(ineqs), f"{field}.sos_terms[{k}]", budget))
                      for k, t in enumerate(S.lst(d["sos_terms"], f"{field}.sos_terms", S.MAX_TERMS, "terms")))
        eq_terms = []
        for k, t in enumerate(S.lst(d["eq_terms"], f"{field}.eq_terms", S.MAX_TERMS, "terms")):
            where = f"{field}.eq_terms[{k}]"
            t = S.obj(t, where, ("constraint", "multiplier"))
            if not eqs:
                raise InvalidInput(f"{where}.constraint", "an index into eqs (the certificate has none)", t["constraint"])
            index = S.integer(t["constraint"], f"{where}.constraint", 0, len(eqs) - 1)
            eq_terms.append(EqTerm(index, freeze(S.polynomial(t["multiplier"], n, f"{where}.multiplier", budget))))
        return Certificate(
            variables=variables,
            polynomial=freeze(S.polynomial(d["polynomial"], n, f"{field}.polynomial", budget)),
            ineqs=ineqs,
            eqs=eqs,
            sos_terms=terms,
            eq_terms=tuple(eq_terms),
            label=d.get("label", ""),
        )


