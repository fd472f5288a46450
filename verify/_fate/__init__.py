"""Certified fate of one constant instance of eq. 5: consensus, non-consensus, or unknown.

:func:`certify_fate` encloses the trajectory (:mod:`verify.validated`, arb balls) until the
enclosure lies in a certified basin: an open hemisphere or cap (every ``U^h = I``, Theorems 3.2 and
4.2), the half-space of a projective contraction (one head, :mod:`.projective`), a cap on which the
flow contracts in a block max-norm around a consensus point (any ``U^h``, :mod:`.cap`), or a
Lyapunov basin around a Krawczyk-certified stable equilibrium (:mod:`.basin`), which is a consensus
point ``x*`` or a configuration with distinct directions; or, full mask, a diameter small enough for
the moving-consensus lemma (:mod:`.moving`: ``|x_i - x_j| -> 0`` while the common point may rotate).  The result is a frozen
:class:`FateReport` with a :class:`FateCertificate` (kind ``"fate"``) that ``verify recheck``
re-proves.  docs/fate.md explains what a fate means and what it does not.

Trust base: :mod:`.basin`, :mod:`.cap`, :mod:`.projective`, :mod:`.moving` with :mod:`.contraction`'s checks,
:mod:`.limits`, :mod:`.flow`, :mod:`.certificate` (arb balls and exact rationals); :mod:`.hints` and
:mod:`.cap_hints`, :mod:`.moving_hints` (SciPy, floats) only propose.
"""
from __future__ import annotations

import importlib

_LAZY = {"KIND": ".certificate", "FateCertificate": ".certificate", "certify_fate": ".driver",
         "fate_from_file": ".driver", "FateProblem": ".problem", "problem_from_system": ".problem",
         "Fate": ".report", "FateReport": ".report"}
"""Loaded on first use: ``verify recheck`` imports :mod:`.certificate` only, never the float proposals
of :mod:`.hints` or the equilibrium search."""

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
