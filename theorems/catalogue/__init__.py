"""The catalogue of results (docs/model.md §2) as data; see :mod:`theorems.catalogue.registry`."""
from .base import HypothesisReport, Theorem
from .registry import CATALOGUE, Registry, all_theorems, get, using

__all__ = ["CATALOGUE", "HypothesisReport", "Registry", "Theorem", "all_theorems", "get", "using"]
