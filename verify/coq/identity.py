"""Symbolic steps as Coq ``ring`` / ``field`` goals, with their side conditions as hypotheses.

An :class:`Identity` is ``lhs = rhs`` for all real values of its variables, under hypotheses ``z = 0`` (for
example ``|x|^2 - 1 = 0``: a point of the unit sphere) and side conditions ``e <> 0`` (denominators).  With
hypotheses, SymPy's division (:func:`sympy.reduced`) proposes cofactors ``c_k`` and the kernel checks
``lhs - rhs = sum_k c_k z_k`` by ``ring`` (or ``field``), then rewrites every ``z_k`` to ``0``.  SymPy only
*proposes*: a wrong cofactor or a false identity makes ``coqc`` reject the file.  When division leaves a
remainder the proof falls back to ``nsatz`` (Groebner bases in Coq, its certificate checked by ``ring``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, final

import sympy

from . import text


@final
@dataclass(frozen=True)
class Identity:
    """``lhs = rhs`` for every real value of ``variables`` with each ``zero`` = 0 and each ``nonzero`` != 0."""

    variables: tuple[sympy.Symbol, ...]
    lhs: sympy.Expr
    rhs: sympy.Expr
    zero: tuple[sympy.Expr, ...] = ()
    nonzero: tuple[sympy.Expr, ...] = ()


def identity(variables: Sequence[sympy.Symbol], lhs, rhs, zero: Sequence = (), nonzero: Sequence = ()) -> Identity:
    used = set().union(*(sympy.sympify(e).free_symbols for e in [lhs, rhs, *zero, *nonzero]))
    ordered = tuple(v for v in variables if v in used) + tuple(sorted(used - set(variables), key=str))
    return Identity(ordered, sympy.sympify(lhs), sympy.sympify(rhs), tuple(map(sympy.sympify, zero)),
                    tuple(map(sympy.sympify, nonzero)))


def _is_integral(e: sympy.Expr) -> bool:
    return all(a.is_integer for a in e.atoms(sympy.Rational)) and not any(
        isinstance(p, sympy.Pow) and p.exp.is_negative for p in e.atoms(sympy.Pow))


def lemma(name: str, goal: Identity) -> str:
    """``Definition S_name`` and ``Lemma name`` for one identity."""
    names = [text.var(v.name) for v in goal.variables]
    zs = [text.expr(z) for z in goal.zero]
    nzs = [text.expr(n) for n in goal.nonzero]
    lhs, rhs = text.expr(goal.lhs), text.expr(goal.rhs)
    premises = [f"{z} = 0" for z in zs] + [f"{n} <> 0" for n in nzs]
    quant = f"forall {' '.join(names)} : R, " if names else ""
    statement = f"{quant}{' -> '.join(premises + [f'{lhs} = {rhs}'])}"
    hz = [f"Hz{k}" for k in range(len(zs))]
    hn = [f"Hn{k}" for k in range(len(nzs))]
    intros = " ".join(names + hz + hn)
    cofactors = _cofactors(goal) if goal.zero else []
    pieces = [goal.lhs, goal.rhs, *goal.zero, *(cofactors or [])]
    exact_ring = "ring" if all(_is_integral(sympy.sympify(e)) for e in pieces) else "field"
    close = exact_ring if not goal.nonzero else "field; repeat split; assumption"
    lines = [f"Definition S_{name} : Prop := {statement}.", f"Lemma {name} : S_{name}.", "Proof.",
             f"  unfold S_{name}; intros {intros}." if intros else f"  unfold S_{name}."]
    if not goal.zero:
        lines += [f"  {close}.", "Qed."]
        return "\n".join(lines)
    if cofactors is None:
        lines += ["  nsatz.", "Qed."]
        return "\n".join(lines)
    combo = " + ".join(f"({text.expr(c)}) * {z}" for c, z in zip(cofactors, zs) if c != 0) or "0"
    used = [h for c, h in zip(cofactors, hz) if c != 0]
    lines += ["  apply Rminus_diag_uniq.", f"  transitivity ({combo}).", f"  - {close}."]
    lines += [f"  - rewrite {', '.join(used)}; ring.", "Qed."] if used else ["  - ring.", "Qed."]
    return "\n".join(lines)


def _cofactors(goal: Identity) -> list[sympy.Expr] | None:
    """Cofactors ``c_k`` with ``lhs - rhs = sum c_k z_k`` exactly, or None (then ``nsatz`` searches)."""
    diff = sympy.expand(goal.lhs - goal.rhs)
    num, den = sympy.fraction(sympy.together(diff))
    if den.free_symbols or not goal.variables:
        return None
    quotients, remainder = sympy.reduced(sympy.expand(num), [sympy.expand(z) for z in goal.zero], *goal.variables)
    if sympy.expand(remainder) != 0:
        return None
    return [sympy.expand(q / den) for q in quotients]
