"""Exact sum-of-squares certificates (docs/model.md §3): search with CVXPY, proof in rational arithmetic.

Public API (imported lazily so that loading a certificate never imports the solver):

* :func:`prove_nonnegative` -> :class:`SOSResult` — certify ``p >= 0`` on ``{g >= 0, h = 0}``;
* :func:`find_lyapunov` -> :class:`LyapunovResult` — search and certify a polynomial Lyapunov
  function for ``dx/dt = f(x)``;
* :class:`Certificate`, :class:`LyapunovCertificate` — exact records
  whose ``recheck()`` uses only rational arithmetic (no solver import).
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "prove_nonnegative": "prove",
    "prove_exact": "prove",
    "find_lyapunov": "lyapunov",
    "SOSResult": "result",
    "LyapunovResult": "result",
    "Certificate": "certificate",
    "SOSTerm": "certificate",
    "EqTerm": "certificate",
    "LyapunovCertificate": "lyapunov_certificate",
    "SearchStats": "stats",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verify._sos' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

