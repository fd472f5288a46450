"""The predicate interface: an inert hypothesis, evaluated separately, answered three-valued.

Like SymPy's ``ask(Q.positive(x))``: a :class:`Predicate` is a statement about an
:class:`~theorems.system.AttentionSystem`; :meth:`Predicate.evaluate` returns a
:class:`~theorems.verdict.Verdict` (holds / fails / unknown) whose witness can be re-checked.
Concrete predicates are final; they never raise for a hypothesis that fails.
"""
from __future__ import annotations

import abc
from typing import ClassVar

from ..system import AttentionSystem
from ..verdict import Verdict


class Predicate(abc.ABC):
    """A checkable hypothesis. ``id`` is stable (used in JSON); ``statement`` is for people."""

    id: ClassVar[str]
    statement: ClassVar[str]

    @abc.abstractmethod
    def evaluate(self, system: AttentionSystem) -> Verdict:
        """Decide the hypothesis for ``system``; never mutates it."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
