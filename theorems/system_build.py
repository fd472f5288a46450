"""Building instances from Python data: :func:`simple_system` and :func:`plain`, the conversion of
SymPy / numpy values to the JSON-like form the one reader (:mod:`theorems.system_json`) takes.

A SymPy ``Float`` (53 bits) is float data; wider Floats and Floats inside expressions are the
exact binary rationals they hold.  Nothing here decides anything: every value goes through the
reader and its domain checks.
"""
from __future__ import annotations

import numpy as np
import sympy

from .schedule_reading import plain
from .system import AttentionSystem, Mask


def simple_system(P, U, tokens, *, beta=1, mask: Mask = "full", name: str = "instance") -> AttentionSystem:
    """Build a one-or-more-head system from plain Python data (exact where the data are exact).

    ``P`` and ``U`` are a matrix (nested lists / SymPy) for one head or a list of them for
    several heads; ``"identity"`` is accepted for ``U``.
    """
    heads_P = P if _is_list_of_matrices(P) else [P]
    heads_U = U if _is_list_of_matrices(U) else [U] * len(heads_P)
    data = {
        "name": name, "d": len(tokens[0]), "beta": plain(beta), "mask": mask,
        "heads": [{"P": plain(p), "U": plain(u)} for p, u in zip(heads_P, heads_U)],
        "tokens": plain(tokens),
    }
    from .system_json import system_from_dict

    return system_from_dict(data)


def _is_list_of_matrices(x) -> bool:
    if isinstance(x, (str, dict, sympy.MatrixBase, np.ndarray)):
        return False
    try:
        first = x[0]
        return not isinstance(first, str) and hasattr(first, "__len__") and hasattr(first[0], "__len__") \
            and not isinstance(first[0], str)
    except (TypeError, IndexError, KeyError):
        return False



__all__ = ["simple_system"]
