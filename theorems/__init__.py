"""The paper's results as data: attention systems, three-valued hypotheses and the catalogue.

Base package of consensus-verify; it imports neither ``verify``, ``numerics`` nor ``llm_checks``.
"""
from .errors import ConsensusVerifyError, InvalidInput, MissingDependency, UnknownName
from .system import AttentionSystem, Head
from .system_json import load_system, simple_system, system_from_dict, system_to_dict
from .verdict import Status, Verdict

__all__ = [
    "AttentionSystem", "ConsensusVerifyError", "Head", "InvalidInput", "MissingDependency", "Status",
    "UnknownName", "Verdict", "load_system", "simple_system", "system_from_dict", "system_to_dict",
]
