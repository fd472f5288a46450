"""Lazy access to the heavy optional dependencies (torch, transformers).

Only :mod:`llm_checks` imports them, and only inside functions, so ``import llm_checks`` works on
an installation without the ``llm`` extra.  A missing dependency raises
:class:`theorems.errors.MissingDependency` with the install command.
"""
from __future__ import annotations

import os

from theorems.errors import MissingDependency

INSTALL = "pip install 'consensus-verify[llm]'"


def require_torch():
    """Return the ``torch`` module or raise :class:`MissingDependency`."""
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependency("torch", INSTALL) from exc
    return torch


def require_transformers():
    """Return the ``transformers`` module, offline (no model hub is reachable), or raise."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    require_torch()
    try:
        import transformers
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependency("transformers", INSTALL) from exc
    return transformers
