"""The predicate interface: an inert hypothesis, evaluated separately, answered three-valued.

Like SymPy's ``ask(Q.positive(x))``: a :class:`Predicate` is a statement about an
:class:`~theorems.system.AttentionSystem`; :meth:`Predicate.evaluate` returns a
:class:`~theorems.verdict.Verdict` (holds / fails / unknown) whose witness can be re-checked.
Concrete predicates are final; they never raise for a hypothesis that fails.
"""
from __future__ import annotations

import abc
import dataclasses
import functools
from typing import ClassVar

import sympy

from ..matrices import ConstantMatrix, LayerStack
from ..system import AttentionSystem
from ..verdict import Verdict


class Predicate(abc.ABC):
    """A checkable hypothesis. ``id`` is stable (used in JSON); ``statement`` is for people.

    ``reads`` names the data the predicate decides on (``"tokens"``, ``"P"``, ``"U"``,
    ``"layer_norm"``).  When any of it is *float data* (docs/format.md: every entry a JSON float),
    the verdict is decided on the binary rationals the floats hold, but its witness is never
    labelled exact: :meth:`evaluate` of every concrete predicate is wrapped to say so."""

    id: ClassVar[str]
    statement: ClassVar[str]
    reads: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        inner = cls.__dict__.get("evaluate")
        if inner is None or getattr(inner, "_labels_float_data", False):
            return

        @functools.wraps(inner)
        def evaluate(self, system: AttentionSystem) -> Verdict:
            verdict = inner(self, system)
            if verdict.exact and reads_float_data(system, self.reads):
                verdict = dataclasses.replace(verdict, exact=False)
            return verdict

        evaluate._labels_float_data = True
        cls.evaluate = evaluate

    @abc.abstractmethod
    def evaluate(self, system: AttentionSystem) -> Verdict:
        """Decide the hypothesis for ``system``; never mutates it."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _float_schedule(m) -> bool:
    if isinstance(m, ConstantMatrix):
        return m.exact is None
    if isinstance(m, LayerStack):
        return all(layer.exact is None for layer in m.layers)
    return False


def reads_float_data(system: AttentionSystem, reads: tuple[str, ...]) -> bool:
    """Whether any of the data named by ``reads`` is float data (every entry a JSON float)."""
    if "tokens" in reads and system.tokens_exact is None:
        return True
    for key in ("P", "U"):
        if key in reads and any(_float_schedule(getattr(h, key)) for h in system.heads):
            return True
    if "layer_norm" in reads and system.layer_norm is not None:
        if all(isinstance(v, sympy.Float) for v in system.layer_norm.scale):
            return True
    return False
