"""Checkpoints of a consensus run: one ``.npz`` file, replaced atomically after every pass.

The state (see :func:`llm_checks.consensus.measure_consensus`) holds the run's fingerprint, the
metric arrays filled so far, the batch and pass to continue with and the residual stream that
enters that pass (stored as float32: exact for float16 / bfloat16 / float32 states).  A float64
run stores float64.  Writing goes to a temporary sibling and ``os.replace``, so an interrupted
write leaves the previous checkpoint intact.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np

from theorems.errors import InvalidInput

from .metrics import METRICS

NAME = "checkpoint.npz"


def save_checkpoint(path: str | Path, state: dict) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    arrays = {f"E_{n}": state["E"][n] for n in METRICS}
    if state.get("x") is not None:
        arrays["x"] = np.asarray(state["x"])
    meta = {k: state[k] for k in ("fingerprint", "batch", "next_pass", "dtype")}
    fd, tmp = tempfile.mkstemp(prefix=".checkpoint-", suffix=".npz", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def load_checkpoint(path: str | Path) -> dict:
    target = Path(path)
    if not target.is_file():
        raise InvalidInput("--resume", f"a checkpoint {NAME} in the --out directory", str(target),
                           hint="run once with --out DIR; --resume continues that run")
    try:
        with np.load(target) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            state = dict(meta, E={n: data[f"E_{n}"].copy() for n in METRICS}, x=data["x"].copy() if "x" in data else None)
    except (OSError, ValueError, KeyError) as exc:
        raise InvalidInput("--resume", "a readable checkpoint", f"{target}: {type(exc).__name__}: {exc}") from None
    return state
