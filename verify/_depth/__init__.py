"""Certified depth: after which time (eq. 5) or how many layers (eq. 4) every token is within eps of consensus.

:func:`certify_depth` returns a :class:`DepthReport`; its certificate (:class:`DepthCertificate`, kind
``"depth"``) re-checks with exact rationals and arb balls only.  See docs/depth.md.  Names are
imported on first use, so ``verify recheck`` loads only :mod:`.certificate` and :mod:`.bounds`.
"""
from __future__ import annotations

import importlib

_NAMES = {"DepthCertificate": ".certificate", "DepthReport": ".certify", "certify_depth": ".certify"}
__all__ = sorted(_NAMES)


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

