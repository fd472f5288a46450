"""The paper's results as data: attention systems, three-valued hypotheses and the catalogue.

Base package of consensus-verify; it imports neither ``verify``, ``numerics`` nor ``llm_checks``.
The names below are loaded on first use (PEP 562), so that ``theorems.errors`` or
``theorems.verdict`` (what the CLI needs for ``verify --help``) do not import SymPy and NumPy.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "ConsensusVerifyError": "errors", "InvalidInput": "errors", "MissingDependency": "errors",
    "UnknownName": "errors", "AttentionSystem": "system", "Head": "system", "load_system": "system_json",
    "simple_system": "system_build", "system_from_dict": "system_json", "system_to_dict": "system_json",
    "Status": "verdict", "Verdict": "verdict",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'theorems' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
