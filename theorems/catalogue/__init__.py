"""The catalogue of results (SPEC §2) as data; see :mod:`theorems.catalogue.registry`."""
from .base import HypothesisReport, Theorem
from .registry import all_theorems, get

__all__ = ["HypothesisReport", "Theorem", "all_theorems", "get"]
