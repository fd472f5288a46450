"""Tasks: the independent units of a reproduction, their cache keys and their stored form.

A case is split into :class:`Task` s (simulation cells, seed families, theorem checks, model
variants); each is a module-level function of plain, picklable arguments, so the same task runs in
this process or on a Dask worker (:mod:`.executor`) and gives the same numbers.  A task returns a
*part*: ``{"measurements", "hypotheses", "figures", "details", "raw"}`` (all optional); the case's
``finish`` merges the parts in task order, whatever order they finished in.

Every part is stored as JSON (:func:`encode` / :func:`decode`: floats by ``repr``, which
round-trips exactly; arrays and bytes as base64), never as a pickle, so a cache file in an output
directory cannot run code when read back.  Serial and distributed runs both pass every part through
this codec, so a resumed run and a fresh one combine byte-identical inputs.
"""
from __future__ import annotations

import base64
import hashlib
import inspect
import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .records import Measurement


@dataclass(frozen=True)
class Task:
    """``fn(*args)`` computes one part of a case; ``key`` is unique within the case."""

    key: str
    fn: Callable[..., Mapping[str, Any]]
    args: tuple = ()


def merge(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The parts of a case as one case result: measurements and details updated in order,
    hypotheses and figures concatenated (``raw`` is left for the case's own ``finish``)."""
    out: dict[str, Any] = {"measurements": {}, "hypotheses": [], "figures": [], "details": {}}
    for part in parts:
        out["measurements"].update(part.get("measurements", {}))
        out["hypotheses"] += list(part.get("hypotheses", ()))
        out["figures"] += list(part.get("figures", ()))
        for k, v in dict(part.get("details", {})).items():
            if isinstance(v, list) and isinstance(out["details"].get(k), list):
                out["details"][k] = out["details"][k] + v
            else:
                out["details"][k] = v
        for k in ("provenance", "skipped"):
            if part.get(k):
                out[k] = part[k]
    return out


def _enc(x: Any) -> Any:
    if isinstance(x, Measurement):
        return {"__measurement__": x.to_json()}
    if isinstance(x, np.ndarray):
        arr = np.ascontiguousarray(x)
        return {"__ndarray__": base64.b64encode(arr.tobytes()).decode(), "dtype": arr.dtype.str, "shape": list(arr.shape)}
    if isinstance(x, (bytes, bytearray)):
        return {"__bytes__": base64.b64encode(bytes(x)).decode()}
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, Mapping):
        return {str(k): _enc(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_enc(v) for v in x]
    return x


def _dec(x: Any) -> Any:
    if isinstance(x, dict):
        if "__measurement__" in x:
            return Measurement.from_json(x["__measurement__"])
        if "__ndarray__" in x:
            return np.frombuffer(base64.b64decode(x["__ndarray__"]), dtype=np.dtype(x["dtype"])).reshape(x["shape"]).copy()
        if "__bytes__" in x:
            return base64.b64decode(x["__bytes__"])
        return {k: _dec(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_dec(v) for v in x]
    return x


def encode(part: Mapping[str, Any]) -> str:
    return json.dumps(_enc(part), sort_keys=True)


def decode(text: str) -> dict[str, Any]:
    return _dec(json.loads(text))


def _source_digest(fn: Callable) -> str:
    """A digest of the source file that defines ``fn`` (a code change invalidates its cache)."""
    try:
        path = inspect.getsourcefile(fn)
        with open(path, "rb") as fh:  # type: ignore[arg-type]
            return hashlib.sha256(fh.read()).hexdigest()[:16]
    except (TypeError, OSError):
        return "unknown-source"


def task_hash(case_id: str, task: Task, extra: Mapping[str, Any] | None = None) -> str:
    """The cache key of ``task``: a hash of the case, the task key, the function, its arguments
    (their ``repr``: scales and sizes are frozen records of plain values) and its source file."""
    fn = task.fn
    payload = {"case": case_id, "task": task.key, "fn": f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}",
               "args": repr(task.args), "source": _source_digest(fn), "extra": dict(extra or {})}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]
