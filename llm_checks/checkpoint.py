"""Checkpoints of a consensus run: a directory that grows by one file per pass (never rewritten),
checked before a resumed run computes or reports anything.

Format ``consensus-verify/consensus-checkpoint``, version 3 (plain ``.npz`` arrays, no pickles), in
the directory :data:`NAME`:

- ``state.npz``, replaced atomically after every pass: ``meta``, uint8 bytes of a UTF-8 JSON object
  ``{"format": FORMAT, "version": 3, "fingerprint": str (sha256 hex of the run's options, weights
  identity and prompt ids), "batch": int, "next_pass": int, "dtype": str (the torch dtype of the run,
  e.g. "torch.float32")}``, and ``x``, present exactly when ``next_pass > 0``: the residual stream
  entering pass ``next_pass`` of batch ``batch``, ``(batch rows, tokens, D)``, float32 (exact for
  float16 / bfloat16 / float32 runs) or float64 for a float64 run.  The resume point: prompt batch
  ``batch`` (``0 <= batch <= number of batches``; equal when every batch is done) continues with pass
  ``next_pass`` (``0 <= next_pass < passes``; 0 when ``batch`` is the number of batches).
- ``pass-BBBBB-PPPPPP.npz``, one per pass ``P`` of prompt batch ``B`` measured, written once:
  ``E_first``, ``E_first_abs``, ``E_pair``, float64 ``(batch rows, n_blocks)``, the metric after
  every block of that pass, and ``done``, bool of the same shape, the cells measured (all of them).

So a checkpoint costs one pass's cells and one state, whatever the depth reached (O(pass), not
O(run)).  Every file is written to a temporary sibling and moved into place with ``os.replace``, the
pass file before the state that counts it: an interrupt leaves the previous checkpoint intact (the
last pass file, when it is at the resume point itself, was written just before an interrupt: it is
ignored and rewritten).

:func:`load_checkpoint` reads the directory on its own (readable, format, version, every entry
present with its type, no other entry or file); :func:`check_checkpoint` assembles the pass files
into ``E`` and ``done`` arrays ``(prompts, passes * n_blocks)`` and checks them against the run to be
resumed (:class:`RunShape`): fingerprint, shapes, dtypes, the done mask against the resume point, a
measured cell finite and in its metric's range (:data:`RANGES`, with :data:`SLACK` for rounding) or
NaN as a measurement gives it (a zero or non-finite state makes ``E_first`` and ``E_first_abs`` NaN
together, ``E_pair`` only with them), an unmeasured cell 0, ``x`` finite except in rows whose last
measured ``E_first`` is NaN.  A failure is an :class:`InvalidInput` naming the field
(``checkpoint.E_first``, ``checkpoint.next_pass``, ...).

Not guaranteed: the checks refuse what no run can have written; an edit to a value a run could
have produced (0.41 for 0.40) is not detected (a checkpoint carries no signature).
"""
from __future__ import annotations

import json
import os
import re
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from theorems.errors import InvalidInput

from .metrics import METRICS

NAME = "checkpoint"
STATE = "state.npz"
FORMAT = "consensus-verify/consensus-checkpoint"
VERSION = 3
RANGES = {"E_first": (0.0, 2.0), "E_first_abs": (0.0, 1.0), "E_pair": (0.0, 1.0)}
"""True ranges: ``1 - mean cos`` lies in [0, 2]; ``1 - mean |cos|`` and ``1 - |sum_i u_i|^2 / N^2`` in [0, 1]."""
SLACK = 1e-9
"""Rounding allowance at the ends of :data:`RANGES` (float64 cosines of unit vectors err by ~D * 1e-16)."""
META = {"fingerprint": str, "batch": int, "next_pass": int, "dtype": str}
KINDS = {str: "a string", int: "an integer"}
HINT = "refusing to resume: start afresh with --force (it replaces the checkpoint)"
_PASS = re.compile(r"pass-(\d{5})-(\d{6})\.npz")


def pass_file(batch: int, p: int) -> str:
    """The name of the file of pass ``p`` of prompt batch ``batch``."""
    return f"pass-{batch:05d}-{p:06d}.npz"


@dataclass(frozen=True)
class RunShape:
    """What a checkpoint of one run must match; ``batches[b] = (lo, hi)`` prompts, ``widths[b]`` tokens."""

    fingerprint: str
    dtype: str
    passes: int
    n_blocks: int
    batches: tuple[tuple[int, int], ...]
    widths: tuple[int, ...]
    d_model: int

    @property
    def prompts(self) -> int:
        return self.batches[-1][1]

    @property
    def depth(self) -> int:
        return self.passes * self.n_blocks

    @property
    def state_dtype(self) -> np.dtype:
        return np.dtype(np.float64 if self.dtype == "torch.float64" else np.float32)


def _write(target: Path, arrays: dict) -> int:
    """``np.savez`` to a temporary sibling, then ``os.replace``; the bytes written."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".npz", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, **arrays)
        size = os.path.getsize(tmp)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return size


def save_checkpoint(path: str | Path, state: dict) -> int:
    """Add one pass to the checkpoint directory ``path``; returns the bytes written (one pass file and
    the state: independent of the depth reached).

    ``state``: the keys of :data:`META`, ``x`` (or ``None``) and ``segment = {"batch", "pass", "E":
    {metric: (rows, n_blocks)}, "done": (rows, n_blocks)}``, the cells of the pass just measured.
    The first pass of a run (batch 0, pass 0) clears the pass files of an earlier run."""
    target = Path(path)
    target.mkdir(parents=True, exist_ok=True)
    seg = state["segment"]
    if (seg["batch"], seg["pass"]) == (0, 0):
        for old in target.glob("pass-*.npz"):
            old.unlink()
    arrays = {name: np.asarray(seg["E"][name], dtype=np.float64) for name in METRICS}
    arrays["done"] = np.asarray(seg["done"], dtype=bool)
    written = _write(target / pass_file(seg["batch"], seg["pass"]), arrays)
    meta = {"format": FORMAT, "version": VERSION, **{k: state[k] for k in META}}
    head = {"meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)}
    if state.get("x") is not None:
        head["x"] = np.asarray(state["x"])
    return written + _write(target / STATE, head)


def _read_npz(path: Path, label: str) -> dict:
    with open(path, "rb") as handle:
        head = handle.read(4)
    if head != b"PK\x03\x04":  # an .npz is a zip archive; anything else numpy would take for a pickle
        raise InvalidInput("checkpoint", f"a readable {label} (an .npz archive)", f"{path.name}: starts with {head!r}",
                           hint=HINT)
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("a single .npy array, not an .npz archive")
        with data:
            return {key: data[key] for key in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise InvalidInput("checkpoint", f"a readable {label} (an .npz archive)", f"{path.name}: {type(exc).__name__}: {exc}",
                           hint=HINT) from None


def load_checkpoint(path: str | Path) -> dict:
    """The state in the directory ``path``, checked on its own (:func:`check_structure`); not yet
    against a run.  ``state["passes"]`` maps ``(batch, pass)`` to that pass's ``{"E", "done"}``."""
    target = Path(path)
    if not (target / STATE).is_file():
        raise InvalidInput("--resume", f"a checkpoint directory {NAME}/ with {STATE} in the --out directory", str(target),
                           hint="run once with --out DIR; --resume continues that run")
    entries = _read_npz(target / STATE, f"{NAME}/{STATE}")
    raw = entries.pop("meta", None)
    if raw is None or raw.dtype != np.uint8 or raw.ndim != 1:
        raise InvalidInput("checkpoint.meta", "uint8 bytes of a JSON header", "missing" if raw is None else str(raw.dtype),
                           hint=HINT)
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise InvalidInput("checkpoint.meta", "a UTF-8 JSON object", f"{type(exc).__name__}: {exc}", hint=HINT) from None
    if not isinstance(meta, dict):
        raise InvalidInput("checkpoint.meta", "a JSON object", type(meta).__name__, hint=HINT)
    _check_version(meta)  # before the entries: another version may have other ones
    for key in ("E", "done", "x", "passes"):
        if key in meta:
            raise InvalidInput(f"checkpoint.meta.{key}", "no such header field", meta[key], hint=HINT)
    state = dict(meta, x=entries.pop("x", None), passes={})
    if entries:
        raise InvalidInput(f"checkpoint.{sorted(entries)[0]}", f"no such entry in a version-{VERSION} {STATE}",
                           "an array", hint=HINT)
    for file in sorted(target.iterdir()):
        m = _PASS.fullmatch(file.name)
        if file.name == STATE:
            continue
        if m is None or not file.is_file():
            raise InvalidInput(f"checkpoint.{file.name}", f"no such file in a version-{VERSION} checkpoint "
                               "(state.npz and pass-BBBBB-PPPPPP.npz only)", "a file" if file.is_file() else "a directory",
                               hint=HINT)
        arrays = _read_npz(file, f"{NAME}/{file.name}")
        state["passes"][(int(m.group(1)), int(m.group(2)))] = {
            "E": {name: arrays.pop(name) for name in METRICS if name in arrays}, "done": arrays.pop("done", None),
            "extra": sorted(arrays), "file": file.name}
    return check_structure(state)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _array(name: str, value, dtypes: tuple, ndim: int, what: str) -> None:
    if value is None:
        raise InvalidInput(f"checkpoint.{name}", what, "missing", hint=HINT)
    if not isinstance(value, np.ndarray) or value.dtype not in [np.dtype(d) for d in dtypes] or value.ndim != ndim:
        got = f"{value.dtype} array of shape {value.shape}" if isinstance(value, np.ndarray) else type(value).__name__
        raise InvalidInput(f"checkpoint.{name}", what, got, hint=HINT)


def _check_version(state: dict) -> None:
    if state.get("format") != FORMAT:
        old = "format" not in state and "version" not in state
        raise InvalidInput("checkpoint.format", repr(FORMAT), state.get("format"),
                           hint=("an unversioned checkpoint of an older release; " if old else "") + HINT)
    if not _is_int(state.get("version")) or state["version"] != VERSION:
        raise InvalidInput("checkpoint.version", f"{VERSION} (the checkpoint version this release reads)",
                           state.get("version", "missing"), hint=HINT)


def check_structure(state) -> dict:
    """Format, version, every field present with its type, no other field; returns ``state``."""
    if not isinstance(state, dict):
        raise InvalidInput("checkpoint", "a checkpoint state (a dict)", type(state).__name__, hint=HINT)
    _check_version(state)
    for key, kind in META.items():
        if key not in state:
            raise InvalidInput(f"checkpoint.{key}", KINDS[kind], "missing", hint=HINT)
        if not (_is_int(state[key]) if kind is int else isinstance(state[key], kind)):
            raise InvalidInput(f"checkpoint.{key}", KINDS[kind], state[key], hint=HINT)
    extra = sorted(set(state) - {"format", "version", "passes", "x", *META})
    if extra:
        raise InvalidInput(f"checkpoint.{extra[0]}", f"no such field in a version-{VERSION} checkpoint", state[extra[0]],
                           hint=HINT)
    if not isinstance(state.get("passes"), dict):
        raise InvalidInput("checkpoint.passes", "a dict (batch, pass) -> the cells of that pass",
                           type(state.get("passes")).__name__, hint=HINT)
    for (b, p), seg in sorted(state["passes"].items()):
        where = f" ({pass_file(b, p)})"
        if seg.get("extra"):
            raise InvalidInput(f"checkpoint.{seg['extra'][0]}", f"no such entry in a version-{VERSION} pass file{where}",
                               "an array", hint=HINT)
        E = seg.get("E")
        if not isinstance(E, dict):
            raise InvalidInput("checkpoint.E", "a dict of metric arrays" + where, type(E).__name__, hint=HINT)
        for name in METRICS:
            _array(name, E.get(name), (np.float64,), 2, "a float64 array (batch rows, blocks of one pass)" + where)
        if set(E) != set(METRICS):
            raise InvalidInput(f"checkpoint.{sorted(set(E) - set(METRICS))[0]}", f"only the metrics {METRICS}{where}",
                               "an array", hint=HINT)
        _array("done", seg.get("done"), (np.bool_,), 2, "a bool array (batch rows, blocks of one pass): the cells "
               "measured" + where)
    if state.get("x") is not None:
        _array("x", state["x"], (np.float32, np.float64), 3, "a float32 / float64 array (batch rows, tokens, D)")
    return state


def assemble(state: dict, run: RunShape) -> dict:
    """The pass files of ``state`` laid out as ``E`` and ``done`` arrays ``(prompts, passes * n_blocks)``
    (unmeasured cells 0 / False); a pass file of another shape or outside the run is refused."""
    E = {name: np.zeros((run.prompts, run.depth)) for name in METRICS}
    done = np.zeros((run.prompts, run.depth), dtype=bool)
    point = (state["batch"], state["next_pass"])
    for (b, p), seg in sorted(state["passes"].items()):
        if (b, p) == point == max(state["passes"]):
            continue  # the last file, written just before an interrupt, before the state that would count it
        if not (b < len(run.batches) and p < run.passes):
            raise InvalidInput("checkpoint.done", f"pass files of batches < {len(run.batches)} and passes < {run.passes}",
                               pass_file(b, p), hint=HINT)
        lo, hi = run.batches[b]
        cols = slice(p * run.n_blocks, (p + 1) * run.n_blocks)
        shape = (hi - lo, run.n_blocks)
        for name in (*METRICS, "done"):
            value = seg["done"] if name == "done" else seg["E"][name]
            if value.shape != shape:
                raise InvalidInput(f"checkpoint.{name}", f"shape {shape} (prompts of batch {b}, blocks of one pass) in "
                                   f"{pass_file(b, p)}", value.shape, hint=HINT)
            (done if name == "done" else E[name])[lo:hi, cols] = value
    out = {k: v for k, v in state.items() if k != "passes"}
    return dict(out, E=E, done=done)


def done_mask(run: RunShape, batch: int, next_pass: int) -> np.ndarray:
    """The cells measured before resume point ``(batch, next_pass)``."""
    mask = np.zeros((run.prompts, run.depth), dtype=bool)
    if batch < len(run.batches):
        mask[: run.batches[batch][0]] = True
        lo, hi = run.batches[batch]
        mask[lo:hi, : next_pass * run.n_blocks] = True
    else:
        mask[:] = True
    return mask


def _implied_point(done: np.ndarray, run: RunShape) -> tuple[int, int] | None:
    """The resume point whose measured cells are exactly ``done``, or ``None`` when there is none."""
    counts = done.sum(axis=1)
    if not np.array_equal(done, np.arange(run.depth)[None, :] < counts[:, None]):
        return None  # a row with a gap
    for b, (lo, hi) in enumerate(run.batches):
        rows = counts[lo:hi]
        if (rows == run.depth).all():
            continue
        m = int(rows[0])
        if (rows != m).any() or m % run.n_blocks or counts[hi:].any():
            return None
        return b, m // run.n_blocks
    return len(run.batches), 0


def _cell(mask: np.ndarray, values: np.ndarray) -> str:
    i, k = (int(v) for v in np.argwhere(mask)[0])
    return f"{float(values[i, k])!r} at prompt {i}, block {k}"


def check_checkpoint(state, run: RunShape) -> dict:
    """Check ``state`` (as :func:`load_checkpoint` gives it) against ``run``; returns the resume state:
    the header fields, ``x``, and ``E`` / ``done`` assembled from the pass files (:func:`assemble`)."""
    check_structure(state)
    if state["fingerprint"] != run.fingerprint:
        raise InvalidInput("checkpoint.fingerprint", "the fingerprint of this run (same options, weights and prompts)",
                           state["fingerprint"][:16] + "...", hint="the checkpoint is of another run: resume with the "
                           "original options, or start afresh with --force (it replaces the checkpoint)")
    if state["dtype"] != run.dtype:
        raise InvalidInput("checkpoint.dtype", f"{run.dtype!r} (this run's dtype)", state["dtype"], hint=HINT)
    n_batches = len(run.batches)
    batch, next_pass = state["batch"], state["next_pass"]
    if not 0 <= batch <= n_batches:
        raise InvalidInput("checkpoint.batch", f"a prompt batch in [0, {n_batches}] ({n_batches} batches)", batch, hint=HINT)
    if not 0 <= next_pass < run.passes:
        raise InvalidInput("checkpoint.next_pass", f"a pass in [0, {run.passes})", next_pass, hint=HINT)
    if batch == n_batches and next_pass:
        raise InvalidInput("checkpoint.next_pass", f"0 when every batch is done (batch = {batch})", next_pass, hint=HINT)
    state = assemble(state, run)
    done = state["done"]
    implied = _implied_point(done, run)
    if implied is None:
        i, k = (int(v) for v in np.argwhere(done != done_mask(run, batch, next_pass))[0])
        raise InvalidInput("checkpoint.done", "the cells of the batches and passes before a resume point",
                           f"{int(done.sum())} cells marked, prompt {i}, block {k} {'' if done[i, k] else 'not '}among "
                           f"them (resume point: batch {batch}, pass {next_pass})", hint=HINT)
    if implied[0] != batch:
        raise InvalidInput("checkpoint.batch", f"{implied[0]} (the batch the done mask stops in)", batch, hint=HINT)
    if implied[1] != next_pass:
        raise InvalidInput("checkpoint.next_pass", f"{implied[1]} (the passes of batch {batch} the done mask holds)",
                           next_pass, hint=HINT)
    _check_values(state["E"], done)
    _check_state(state.get("x"), state["E"]["E_first"], run, batch, next_pass)
    return state


def _check_values(E: dict, done: np.ndarray) -> None:
    nan = {name: np.isnan(E[name]) & done for name in METRICS}
    allowed = {"E_first": nan["E_first_abs"], "E_first_abs": nan["E_first"], "E_pair": nan["E_first"]}
    for name in METRICS:
        values = E[name]
        stray = ~done & (values != 0)
        if stray.any():
            raise InvalidInput(f"checkpoint.{name}", "0 in the cells not yet measured (see checkpoint.done)",
                               _cell(stray, values), hint=HINT)
        lo, hi = RANGES[name]
        with np.errstate(invalid="ignore"):
            bad = done & ~((values >= lo - SLACK) & (values <= hi + SLACK)) & ~(nan[name] & allowed[name])
        if bad.any():
            raise InvalidInput(f"checkpoint.{name}", f"a number in [{lo:g}, {hi:g}] where measured (NaN only as a "
                               "measurement gives it: E_first and E_first_abs NaN together, E_pair only with them)",
                               _cell(bad, values), hint=HINT)


def _check_state(x, E_first: np.ndarray, run: RunShape, batch: int, next_pass: int) -> None:
    if next_pass == 0:
        if x is not None:
            raise InvalidInput("checkpoint.x", "no state at the start of a batch (next_pass = 0)",
                               f"an array of shape {x.shape}", hint=HINT)
        return
    if x is None:
        raise InvalidInput("checkpoint.x", f"the residual stream entering pass {next_pass} of batch {batch}", "missing",
                           hint=HINT)
    lo, hi = run.batches[batch]
    shape = (hi - lo, run.widths[batch], run.d_model)
    if x.shape != shape:
        raise InvalidInput("checkpoint.x", f"shape {shape} (batch rows, tokens, D)", x.shape, hint=HINT)
    if x.dtype != run.state_dtype:
        raise InvalidInput("checkpoint.x", f"dtype {run.state_dtype} (the stored state of a {run.dtype} run)", str(x.dtype),
                           hint=HINT)
    broken = ~np.isfinite(x).reshape(len(x), -1).all(axis=1) & ~np.isnan(E_first[lo:hi, next_pass * run.n_blocks - 1])
    if broken.any():
        row = int(np.argmax(broken))
        raise InvalidInput("checkpoint.x", "finite values (a non-finite state gives NaN metrics)",
                           f"a non-finite value in row {row} (prompt {lo + row})", hint=HINT)


__all__ = ["FORMAT", "NAME", "RANGES", "RunShape", "STATE", "VERSION", "assemble", "check_checkpoint", "check_structure",
           "done_mask", "load_checkpoint", "pass_file", "save_checkpoint"]
