"""Exact SOS certificates of nonnegativity on a basic semialgebraic set, and their re-check.

A :class:`Certificate` proves ``p >= 0`` on ``K = {x : g_k(x) >= 0, h_l(x) = 0}`` through the
polynomial identity (Putinar / Schmuedgen form)

    p  =  sum_S  g_S(x) * m_S(x)^T Q_S m_S(x)  +  sum_l  lambda_l(x) h_l(x)

where ``S`` runs over the stored terms, ``g_S`` is the product of the constraints ``g_k`` with
``k`` in ``S`` (the empty product is 1, i.e. ``sigma_0``), ``m_S`` is a vector of monomials and
``Q_S`` a rational positive semidefinite Gram matrix.  Each ``m^T Q m`` is then a sum of squares,
so on ``K`` every term is ``>= 0`` (the ``h_l`` vanish) and so is ``p``.

:meth:`Certificate.recheck` verifies exactly this and nothing else, with
:class:`fractions.Fraction` arithmetic: symmetry and PSD of every Gram matrix (exact LDL^T), and
equality of the two sides on every monomial.  It never imports the solver (this module imports
only the standard library and :mod:`theorems.verdict`).  Not guaranteed: that ``K`` is the set
the user had in mind — the certificate proves the statement it carries, as it is printed.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence, final

from theorems.verdict import Verdict, fails, holds

from . import poly as P
from .exact_psd import check_psd

FORMAT = "consensus-verify/sos-certificate"
VERSION = 1
FrozenPoly = tuple[tuple[P.Monomial, Fraction], ...]


def freeze(p: Mapping[P.Monomial, Fraction]) -> FrozenPoly:
    return tuple(sorted((m, Fraction(c)) for m, c in p.items() if c))


def thaw(p: FrozenPoly) -> P.Poly:
    return {m: c for m, c in p if c}


@final
@dataclass(frozen=True)
class SOSTerm:
    """One term ``g_S * m^T Q m``: ``multiplier`` lists the constraint indices in ``S``."""

    multiplier: tuple[int, ...]
    basis: tuple[P.Monomial, ...]
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
        text = f"{P.to_text(thaw(self.polynomial), names)} >= 0"
        conds = [f"{P.to_text(thaw(g), names)} >= 0" for g in self.ineqs]
        conds += [f"{P.to_text(thaw(h), names)} == 0" for h in self.eqs]
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
        rhs: P.Poly = {}
        for k, term in enumerate(self.sos_terms):
            where = f"Gram block {k} (multiplier {self._mult_name(term.multiplier)})"
            if list(term.multiplier) != sorted(set(term.multiplier)) or \
                    any(not 0 <= i < len(self.ineqs) for i in term.multiplier):
                return fails(name, f"{where}: multiplier indices must be distinct, sorted and refer to ineqs")
            if len(set(term.basis)) != len(term.basis) or any(len(m) != n for m in term.basis):
                return fails(name, f"{where}: basis monomials must be distinct {n}-tuples")
            if len(term.gram) != len(term.basis):
                return fails(name, f"{where}: Gram matrix has {len(term.gram)} rows for {len(term.basis)} monomials")
            psd = check_psd(term.gram)
            if not psd.ok:
                return fails(name, f"{where} is not positive semidefinite: {psd.reason}",
                             {"block": k, "reason": psd.reason})
            weight = P.product((thaw(self.ineqs[i]) for i in term.multiplier), n)
            P.add_into(rhs, P.gram_poly(weight, term.basis, term.gram))
        for k, term in enumerate(self.eq_terms):
            if not 0 <= term.constraint < len(self.eqs):
                return fails(name, f"equality term {k} refers to eqs[{term.constraint}], which does not exist")
            if any(len(m) != n for m, _ in term.multiplier):
                return fails(name, f"equality term {k}: multiplier has a monomial of the wrong length")
            P.add_into(rhs, P.mul(thaw(term.multiplier), thaw(self.eqs[term.constraint])))
        residual = P.sub(thaw(self.polynomial), rhs)
        if residual:
            mono = min(residual, key=lambda m: (sum(m), m))
            lhs = thaw(self.polynomial).get(mono, Fraction(0))
            shown = P.to_text({mono: Fraction(1)}, self.variables)
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
            "polynomial": P.to_json(thaw(self.polynomial)),
            "ineqs": [P.to_json(thaw(g)) for g in self.ineqs],
            "eqs": [P.to_json(thaw(h)) for h in self.eqs],
            "sos_terms": [{"multiplier": list(t.multiplier), "basis": [list(m) for m in t.basis],
                           "gram": [[str(x) for x in row] for row in t.gram]} for t in self.sos_terms],
            "eq_terms": [{"constraint": t.constraint, "multiplier": P.to_json(thaw(t.multiplier))}
                         for t in self.eq_terms],
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Certificate":
        """Rebuild from :meth:`to_json` output; ``ValueError`` names the malformed field."""
        if not isinstance(data, Mapping):
            raise ValueError("certificate: expected a JSON object")
        if data.get("format") != FORMAT or data.get("kind") != "nonnegativity":
            raise ValueError(f"certificate: expected format {FORMAT!r} and kind 'nonnegativity'")
        if data.get("version") != VERSION:
            raise ValueError(f"certificate.version: expected {VERSION}, got {data.get('version')!r}")
        variables = data.get("variables")
        if not (isinstance(variables, list) and all(isinstance(v, str) and v for v in variables)):
            raise ValueError("certificate.variables: expected a list of names")
        n = len(variables)
        label = data.get("label", "")
        if not isinstance(label, str):
            raise ValueError("certificate.label: expected a string")
        terms = []
        for k, t in enumerate(_list(data, "sos_terms")):
            where = f"certificate.sos_terms[{k}]"
            if not isinstance(t, Mapping):
                raise ValueError(f"{where}: expected an object")
            mult = t.get("multiplier")
            if not (isinstance(mult, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in mult)):
                raise ValueError(f"{where}.multiplier: expected a list of constraint indices")
            basis = t.get("basis")
            if not isinstance(basis, list):
                raise ValueError(f"{where}.basis: expected a list of exponent lists")
            basis_t = tuple(P.parse_monomial(m, n, f"{where}.basis[{i}]") for i, m in enumerate(basis))
            gram = t.get("gram")
            if not (isinstance(gram, list) and all(isinstance(r, list) for r in gram)):
                raise ValueError(f"{where}.gram: expected a matrix (list of rows)")
            gram_t = tuple(tuple(P.parse_rational(x, f"{where}.gram[{i}][{j}]") for j, x in enumerate(row))
                           for i, row in enumerate(gram))
            terms.append(SOSTerm(tuple(mult), basis_t, gram_t))
        eq_terms = []
        for k, t in enumerate(_list(data, "eq_terms")):
            where = f"certificate.eq_terms[{k}]"
            if not isinstance(t, Mapping) or not isinstance(t.get("constraint"), int) \
                    or isinstance(t.get("constraint"), bool):
                raise ValueError(f"{where}: expected an object with an integer 'constraint'")
            eq_terms.append(EqTerm(t["constraint"], freeze(P.from_json(t.get("multiplier"), n, f"{where}.multiplier"))))
        return Certificate(
            variables=tuple(variables),
            polynomial=freeze(P.from_json(data.get("polynomial"), n, "certificate.polynomial")),
            ineqs=tuple(freeze(P.from_json(g, n, f"certificate.ineqs[{k}]")) for k, g in enumerate(_list(data, "ineqs"))),
            eqs=tuple(freeze(P.from_json(h, n, f"certificate.eqs[{k}]")) for k, h in enumerate(_list(data, "eqs"))),
            sos_terms=tuple(terms),
            eq_terms=tuple(eq_terms),
            label=label,
        )


def _list(data: Mapping[str, Any], key: str) -> list:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise ValueError(f"certificate.{key}: expected a list")
    return value
