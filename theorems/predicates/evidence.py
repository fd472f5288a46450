"""Typed payloads of the predicate verdicts that proofs consume (``Verdict.evidence``).

The witness of a verdict is JSON for the reader and for re-checking; these frozen records are what
code reads (:meth:`theorems.catalogue.base.HypothesisReport.evidence`), so a proof never depends on
the spelling of a witness key.  They carry the same values as the witness, exactly.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, final


@final
@dataclass(frozen=True)
class PBound:
    """``P_bounded``: the proven bound ``p >= sup_t ||P^h(t)||_2`` over every head (exact rational)."""

    p: Fraction


@final
@dataclass(frozen=True)
class TopEigen:
    """``U_simple_top_eigenvalue`` on one head: the spectrum facts the 4.4 proofs use.

    ``lambda_1``, ``lambda_2`` are exact SymPy strings (``lambda_2`` is None in d = 1);
    ``gap_lower_bound`` a proven rational lower bound of ``lambda_1 - lambda_2`` (None in d = 1);
    ``v`` the exact eigenvector as strings, or None when only ``v_float`` is known.
    """

    lambda_1: str
    lambda_2: str | None
    gap_lower_bound: Fraction | None
    v: tuple[str, ...] | None
    v_float: tuple[float, ...] | None

    @classmethod
    def from_witness(cls, w: Mapping[str, Any]) -> "TopEigen":
        """The record of one head's witness (as built by :func:`theorems.predicates._eigen.top_eigen`)."""
        gap = w.get("gap_lower_bound")
        v = w.get("v") if w.get("v_exact") else None
        v_float = w.get("v_float")
        return cls(str(w.get("lambda_1", "")), None if w.get("lambda_2") is None else str(w["lambda_2"]),
                   None if gap is None else Fraction(str(gap)), None if v is None else tuple(str(c) for c in v),
                   None if v_float is None else tuple(float(c) for c in v_float))


__all__ = ["PBound", "TopEigen"]
