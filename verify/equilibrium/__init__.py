"""Certified equilibria of the attention flow (paper eq. 5) as counterexample certificates.

The trust base is :mod:`.certificate` (with :mod:`.chart_field`, :mod:`.dual`, :mod:`.krawczyk`,
:mod:`.stability`, :mod:`.claims`): python-flint arb balls and exact rationals only.
:mod:`.search` produces hints in float and hands them to the re-check; it proves nothing itself.
"""
from .certificate import KIND, EquilibriumCertificate

__all__ = ["KIND", "EquilibriumCertificate"]
