"""Theorem checks: proof plans, steps and the composed verdict (:func:`verify.theorem.check.check_theorem`).

``verify.theorem`` is also the façade call ``verify.theorem("4.2")`` (:mod:`verify.api.theorem`;
see :mod:`verify._callable`).
"""
from verify._callable import make_callable

make_callable(__name__, "verify.api.theorem", "theorem")
