"""Read-only JSON containers: a report's payload is frozen all the way down (:func:`freeze`), and
:func:`thaw` returns a fresh plain copy, so nothing a caller does to a copy changes the report."""
from __future__ import annotations

import json
from typing import Any, Mapping


def _readonly(self, *args: Any, **kwargs: Any):
    raise TypeError("a report's payload is read-only; use report.to_json() for a mutable copy")


class FrozenDict(dict):
    """A read-only ``dict`` (still a ``dict``, so ``json.dumps(report.payload)`` works).

    Built only by :func:`freeze` (``dict.__init__`` fills it once); every mutating method,
    ``__init__`` included, refuses afterwards."""

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = __init__ = _readonly

    def __hash__(self) -> int:
        return hash(json.dumps(self, sort_keys=True, default=repr))

    def __deepcopy__(self, memo: dict) -> dict:
        return thaw(self)

    def __reduce__(self):
        return (dict, (thaw(self),))


class FrozenList(list):
    """A read-only ``list`` (equal to the plain list it copies; serialises as a JSON array)."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = extend = insert = pop = remove = clear = \
        sort = reverse = __init__ = _readonly

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __deepcopy__(self, memo: dict) -> list:
        return thaw(self)

    def __reduce__(self):
        return (list, (thaw(self),))


def freeze(value: Any) -> Any:
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, Mapping):
        out = dict.__new__(FrozenDict)
        dict.__init__(out, {k: freeze(v) for k, v in value.items()})
        return out
    if isinstance(value, (list, tuple)):
        out = list.__new__(FrozenList)
        list.__init__(out, [freeze(v) for v in value])
        return out
    return value


def thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


__all__ = ["FrozenDict", "FrozenList", "freeze", "thaw"]
