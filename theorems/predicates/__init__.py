"""Checkable hypotheses of the paper's results (docs/model.md §6), each answering holds / fails / unknown
with re-checkable evidence.  Concrete predicates are final; see :mod:`.base` for the interface."""
from .base import Predicate
from .bounded import PBounded, schedule_bound
from .continuity import PUniformlyContinuous, schedule_uniform_continuity
from .open_hemisphere import OpenHemisphere, hemisphere_verdict
from .structure import DimensionAtLeast, EqualLNScales, MaskIs, OneHead
from .value_map import (UIdentity, USimpleTopEigenvalue, USymmetric, UTimeInvariant, antisymmetric_share,
                        identity_deviation)

__all__ = [
    "DimensionAtLeast", "EqualLNScales", "MaskIs", "OneHead", "OpenHemisphere", "PBounded", "PUniformlyContinuous", "Predicate",
    "UIdentity", "USimpleTopEigenvalue", "USymmetric", "UTimeInvariant", "antisymmetric_share",
    "hemisphere_verdict", "identity_deviation", "schedule_bound", "schedule_uniform_continuity",
]
