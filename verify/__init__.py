"""consensus-verify's Python API: the library calls behind every ``verify`` command.

Each call returns a frozen :class:`verify.report.Report` (``.verdict``, ``.status``, ``.text``,
``.to_json()``, ``.plot()`` returning a matplotlib Figure, and Jupyter display), the same record
the CLI renders::

    import verify
    r = verify.theorem("4.2")          # the built-in instance; instance="examples/x.json" for a file
    r.verdict                          # 'holds'
    verify.assumptions("3.2", instance="examples/hemisphere_full.json").to_json()

Documented, with runnable examples, in docs/api.md. Everything is imported lazily: ``import
verify`` loads nothing heavy, and only ``verify.audit`` / ``verify.consensus`` import torch.
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

_API = {
    "list_results": "verify.api.listing",
    "assumptions": "verify.api.assumptions",
    "theorem": "verify.api.theorem",
    "sos": "verify.api.sos",
    "lyapunov": "verify.api.lyapunov",
    "recheck": "verify.api.recheck",
    "depth": "verify.api.depth",
    "simulate": "verify.api.simulate",
    "audit": "verify.api.audit",
    "consensus": "verify.api.consensus",
    "fate": "verify.api.fate",
    "reproduce": "verify.api.reproduce",
    "examples": "verify.api.examples",
    "docs": "verify.api.docs",
}

__all__ = sorted([*_API, "Report", "SCHEMA_VERSION", "__version__"])


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    if name in ("Report", "SCHEMA_VERSION"):
        return getattr(importlib.import_module("verify.report"), name)
    raise AttributeError(f"module 'verify' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
