"""Theorem checks: proof plans, steps and the composed verdict (:func:`verify._theorem.check.check_theorem`).

The implementation behind the public call ``verify.theorem("4.2")`` (:mod:`verify.api.theorem`).
"""

__all__: list[str] = []  # modules only
