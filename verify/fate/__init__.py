"""Certified fate of one constant instance of eq. 5: consensus, non-consensus, or unknown.

:func:`certify_fate` encloses the trajectory (:mod:`verify.validated`, arb balls) until the
enclosure lies in a certified basin: an open hemisphere or cap (every ``U^h = I``, Theorems 3.2 and
4.2), or a Lyapunov basin around a Krawczyk-certified stable equilibrium (:mod:`.basin`), which is
a consensus point ``x*`` or a configuration with distinct directions.  The result is a frozen
:class:`FateReport` with a :class:`FateCertificate` (kind ``"fate"``) that ``verify recheck``
re-proves.  docs/fate.md explains what a fate means and what it does not.

Trust base: :mod:`.basin`, :mod:`.limits`, :mod:`.flow`, :mod:`.certificate` (arb balls and exact
rationals); :mod:`.hints` (SciPy, floats) only proposes.
"""
from .certificate import KIND, FateCertificate
from .driver import certify_fate, fate_from_file
from .problem import FateProblem, problem_from_system
from .report import Fate, FateReport

__all__ = ["KIND", "Fate", "FateCertificate", "FateProblem", "FateReport", "certify_fate", "fate_from_file",
           "problem_from_system"]
