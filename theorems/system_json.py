"""JSON reading and writing of attention systems (the format is documented in docs/format.md).

Every error names the offending field by its JSON path.  Nothing is normalised or coerced
silently: tokens that are not unit vectors are rejected unless ``"normalize_tokens": true``.

Sizes are bounded so that every command on an instance finishes in bounded time (measured on 2
CPU cores, docs/format.md): ``d <= MAX_DIM``, ``N <= MAX_TOKENS``, at most ``MAX_SCALARS``
numbers in matrices, tokens and layer norm together, at most ``MAX_LAYERS`` layers per stack;
files of at most 50 MB, JSON nested at most 64 deep, integers of at most 4000 digits
(:mod:`theorems.safe_json`).
"""
from __future__ import annotations

import difflib
import math
from pathlib import Path
from typing import Any

import numpy as np
import sympy

from .errors import InvalidInput
from .safe_json import read_json
from .expressions import is_exact, parse_entry, parse_positive_constant, parse_scalar, t
from .matrices import ConstantMatrix, LayerStack, MatrixSchedule, SymbolicMatrix
from .system import AttentionSystem, Head, LayerNormSpec, Mask

TOP_KEYS = {"name", "description", "d", "N", "beta", "mask", "heads", "tokens", "normalize_tokens", "layer_norm"}
REQUIRED = ("d", "beta", "mask", "heads", "tokens")
HEAD_KEYS = {"P", "U"}
STACK_KEYS = {"kind", "layers", "dt", "periodic", "interpolation"}
EXPR_KEYS = {"kind", "entries"}
MAX_DIM = 1024
"""Largest dimension d: ``verify theorem`` takes ~17 s at d = 1024 and ~70 s at d = 2048 (identity P)."""
MAX_TOKENS = 20_000
"""Largest number of tokens N (``verify theorem`` skips its simulation above a cost limit instead)."""
MAX_HEADS = 64
MAX_LAYERS = 1024
MAX_SCALARS = 300_000
"""Most numbers in all matrices, tokens and the layer norm of one file (dense d = 512: ~16 s)."""


def _check_keys(obj: dict, allowed: set[str], field: str) -> None:
    for key in obj:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
            hint = f"Did you mean {close[0]!r}?" if close else f"Allowed keys: {', '.join(sorted(allowed))}"
            raise InvalidInput(f"{field}{'.' if field else ''}{key}", "a known key", key, hint)


def _matrix(value: Any, d: int, field: str) -> MatrixSchedule:
    if isinstance(value, str):
        if value == "identity":
            return ConstantMatrix.identity(d)
        if value == "zero":
            return ConstantMatrix.from_sympy(sympy.zeros(d, d))
        raise InvalidInput(field, "a matrix, 'identity', 'zero' or an object with \"kind\"", value)
    if isinstance(value, dict):
        kind = value.get("kind")
        if kind == "stack":
            return _stack(value, d, field)
        if kind in ("expression", "constant"):
            _check_keys(value, EXPR_KEYS, field)
            if "entries" not in value:
                raise InvalidInput(f"{field}.entries", "a d x d list of entries", None)
            return _entries(value["entries"], d, f"{field}.entries")
        raise InvalidInput(f"{field}.kind", "'constant', 'expression' or 'stack'", kind)
    return _entries(value, d, field)


def _entries(value: Any, d: int, field: str) -> MatrixSchedule:
    if not isinstance(value, list) or len(value) != d:
        got = f"{len(value)} rows" if isinstance(value, list) else value
        raise InvalidInput(field, f"a {d}x{d} matrix (list of {d} rows)", got)
    rows = []
    for i, row in enumerate(value):
        if not isinstance(row, list) or len(row) != d:
            got = f"{len(row)} entries" if isinstance(row, list) else row
            raise InvalidInput(f"{field}[{i}]", f"a row of {d} entries", got)
        rows.append([parse_entry(v, f"{field}[{i}][{j}]") for j, v in enumerate(row)])
    m = sympy.ImmutableMatrix([[e for e, _ in row] for row in rows])
    open_conditions = tuple(f"[{i}][{j}]: {c}" for i, row in enumerate(rows) for j, (_, cs) in enumerate(row) for c in cs)
    if m.free_symbols or open_conditions:
        return SymbolicMatrix(m, open_conditions)
    return ConstantMatrix.from_sympy(m)


def _stack(value: dict, d: int, field: str) -> LayerStack:
    _check_keys(value, STACK_KEYS, field)
    layers = value.get("layers")
    if not isinstance(layers, list) or not layers:
        raise InvalidInput(f"{field}.layers", "a non-empty list of d x d matrices", layers)
    mats = []
    for k, layer in enumerate(layers):
        m = _entries(layer, d, f"{field}.layers[{k}]")
        if not isinstance(m, ConstantMatrix):
            raise InvalidInput(f"{field}.layers[{k}]", "a constant matrix (no t in a layer)", layer)
        mats.append(m)
    dt = value.get("dt", 1.0)
    if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not math.isfinite(dt) or dt <= 0:
        raise InvalidInput(f"{field}.dt", "a positive finite number (layer duration)", dt)
    periodic = value.get("periodic", True)
    if not isinstance(periodic, bool):
        raise InvalidInput(f"{field}.periodic", "true or false", periodic)
    interp = value.get("interpolation", "constant")
    if interp not in ("constant", "linear"):
        raise InvalidInput(f"{field}.interpolation", "'constant' or 'linear'", interp)
    return LayerStack(tuple(mats), float(dt), periodic, interp)


def _tokens(value: Any, d: int, normalize: bool) -> tuple[np.ndarray, sympy.ImmutableMatrix | None]:
    if not isinstance(value, list) or not value:
        raise InvalidInput("tokens", "a non-empty list of vectors", value)
    rows = []
    for i, x in enumerate(value):
        if not isinstance(x, list) or len(x) != d:
            got = f"{len(x)} entries" if isinstance(x, list) else x
            raise InvalidInput(f"tokens[{i}]", f"a vector of length d={d}", got)
        row = [parse_scalar(v, f"tokens[{i}][{j}]") for j, v in enumerate(x)]
        for j, v in enumerate(row):
            if v.free_symbols:
                raise InvalidInput(f"tokens[{i}][{j}]", "a number (tokens do not depend on t)", x[j])
        rows.append(row)
    m = sympy.Matrix(rows)
    for i in range(m.rows):
        if all(v == 0 for v in m.row(i)):
            raise InvalidInput(f"tokens[{i}]", "a nonzero vector", value[i])
    exact = all(is_exact(v) for v in m)
    if normalize:
        if exact:
            for i in range(m.rows):
                norm = sympy.sqrt(sum(v ** 2 for v in m.row(i)))
                m[i, :] = sympy.Matrix([[sympy.radsimp(v / norm) for v in m.row(i)]])
        else:
            arr = np.array(m.evalf(20).tolist(), dtype=float)
            arr /= np.linalg.norm(arr, axis=1, keepdims=True)
            return arr, None
    arr = np.array(m.evalf(20).tolist(), dtype=float)
    return arr, (sympy.ImmutableMatrix(m) if exact else None)


def _layer_norm(value: Any, d: int) -> LayerNormSpec:
    if not isinstance(value, dict):
        raise InvalidInput("layer_norm", "an object with 'scale' and 'shift'", value)
    _check_keys(value, {"scale", "shift"}, "layer_norm")
    out = {}
    for key in ("scale", "shift"):
        vec = value.get(key, [0] * d if key == "shift" else None)
        if not isinstance(vec, list) or len(vec) != d:
            raise InvalidInput(f"layer_norm.{key}", f"a list of d={d} numbers", vec)
        values = tuple(parse_scalar(v, f"layer_norm.{key}[{i}]") for i, v in enumerate(vec))
        for i, v in enumerate(values):
            if v.free_symbols:
                raise InvalidInput(f"layer_norm.{key}[{i}]", "a constant (layer norms do not depend on t)", vec[i])
        out[key] = values
    return LayerNormSpec(out["scale"], out["shift"])


def _count_scalars(value: Any, field: str, limit: int) -> int:
    """Leaves (numbers and strings) of a JSON value, counted iteratively; refused above ``limit``."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        else:
            count += 1
            if count > limit:
                raise InvalidInput(field, f"an instance with at most {limit} numbers in its matrices, tokens and "
                                   "layer norm", f"more than {limit}", "Use \"identity\" or \"zero\" where they apply")
    return count


def _check_sizes(data: dict) -> None:
    """Size limits (module docstring), checked before any entry is parsed."""
    tokens, heads = data.get("tokens"), data.get("heads")
    if isinstance(tokens, list) and len(tokens) > MAX_TOKENS:
        raise InvalidInput("tokens", f"at most {MAX_TOKENS} tokens (N)", f"{len(tokens)} tokens")
    if isinstance(heads, list) and len(heads) > MAX_HEADS:
        raise InvalidInput("heads", f"at most {MAX_HEADS} heads", f"{len(heads)} heads")
    for h, head in enumerate(heads if isinstance(heads, list) else []):
        for key in ("P", "U"):
            m = head.get(key) if isinstance(head, dict) else None
            layers = m.get("layers") if isinstance(m, dict) else None
            if isinstance(layers, list) and len(layers) > MAX_LAYERS:
                raise InvalidInput(f"heads[{h}].{key}.layers", f"at most {MAX_LAYERS} layers", f"{len(layers)} layers")
    _count_scalars([data.get("tokens"), data.get("heads"), data.get("layer_norm")], "(instance)", MAX_SCALARS)


def system_from_dict(data: Any) -> AttentionSystem:
    """Validate a decoded JSON object and build the :class:`AttentionSystem`."""
    if not isinstance(data, dict):
        raise InvalidInput("(top level)", "a JSON object", type(data).__name__)
    _check_keys(data, TOP_KEYS, "")
    for key in REQUIRED:
        if key not in data:
            raise InvalidInput(key, "a required key", None, f"Required keys: {', '.join(REQUIRED)}")
    d = data["d"]
    if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= MAX_DIM:
        raise InvalidInput("d", f"an integer between 1 and {MAX_DIM}", d)
    _check_sizes(data)
    beta = parse_positive_constant(data["beta"], "beta")
    mask = data["mask"]
    if mask not in ("full", "causal"):
        raise InvalidInput("mask", "'full' or 'causal'", mask)
    heads_in = data["heads"]
    if not isinstance(heads_in, list) or not heads_in:
        raise InvalidInput("heads", "a non-empty list of {\"P\": ..., \"U\": ...}", heads_in)
    heads = []
    for h, head in enumerate(heads_in):
        if not isinstance(head, dict):
            raise InvalidInput(f"heads[{h}]", "an object with keys P and U", head)
        _check_keys(head, HEAD_KEYS, f"heads[{h}]")
        for key in ("P", "U"):
            if key not in head:
                raise InvalidInput(f"heads[{h}].{key}", "a required key", None)
        heads.append(Head(_matrix(head["P"], d, f"heads[{h}].P"), _matrix(head["U"], d, f"heads[{h}].U")))
    normalize = data.get("normalize_tokens", False)
    if not isinstance(normalize, bool):
        raise InvalidInput("normalize_tokens", "true or false", normalize)
    tokens, exact = _tokens(data["tokens"], d, normalize)
    if "N" in data and data["N"] != tokens.shape[0]:
        raise InvalidInput("N", f"the number of tokens ({tokens.shape[0]})", data["N"])
    ln = _layer_norm(data["layer_norm"], d) if "layer_norm" in data else None
    name = data.get("name", "instance")
    if not isinstance(name, str) or len(name) > 200 or not name.isprintable():
        raise InvalidInput("name", "a string of at most 200 printable characters (it is shown in reports)", name)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise InvalidInput("description", "a string", description)
    return AttentionSystem(d=d, beta=beta, mask=mask, heads=tuple(heads), tokens=tokens,
                           tokens_exact=exact, layer_norm=ln, name=name, description=description)


def load_system(path: str | Path) -> AttentionSystem:
    """Read an instance file. Raises :class:`InvalidInput` for a missing file or bad content."""
    return system_from_dict(read_json(path, "--instance"))


def system_to_dict(system: AttentionSystem) -> dict[str, Any]:
    """The JSON form of a system (exact data as strings); ``system_from_dict`` reads it back."""
    if system.tokens_exact is not None:
        tokens = [[int(v) if isinstance(v, sympy.Integer) else str(v) for v in system.tokens_exact.row(i)]
                  for i in range(system.N)]
    else:
        tokens = system.tokens.tolist()
    out: dict[str, Any] = {
        "name": system.name, "d": system.d,
        "beta": int(system.beta) if isinstance(system.beta, sympy.Integer) else
        (float(system.beta) if isinstance(system.beta, sympy.Float) else str(system.beta)),
        "mask": system.mask,
        "heads": [{"P": h.P.to_json(), "U": h.U.to_json()} for h in system.heads],
        "tokens": tokens,
    }
    if system.description:
        out["description"] = system.description
    if system.layer_norm is not None:
        out["layer_norm"] = {"scale": [str(v) for v in system.layer_norm.scale],
                             "shift": [str(v) for v in system.layer_norm.shift]}
    return out


def simple_system(P, U, tokens, *, beta=1, mask: Mask = "full", name: str = "instance") -> AttentionSystem:
    """Build a one-or-more-head system from plain Python data (exact where the data are exact).

    ``P`` and ``U`` are a matrix (nested lists / SymPy) for one head or a list of them for
    several heads; ``"identity"`` is accepted for ``U``.
    """
    heads_P = P if _is_list_of_matrices(P) else [P]
    heads_U = U if _is_list_of_matrices(U) else [U] * len(heads_P)
    data = {
        "name": name, "d": len(tokens[0]), "beta": _plain(beta), "mask": mask,
        "heads": [{"P": _plain(p), "U": _plain(u)} for p, u in zip(heads_P, heads_U)],
        "tokens": _plain(tokens),
    }
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


def _plain(x):
    """Convert SymPy / numpy data to the JSON-like form the reader accepts."""
    if isinstance(x, (str, int, float, dict)) or x is None:
        return x
    if isinstance(x, sympy.MatrixBase):
        return [[_plain(v) for v in x.row(i)] for i in range(x.rows)]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, sympy.Integer):
        return int(x)
    if isinstance(x, sympy.Float):
        return float(x)
    if isinstance(x, sympy.Basic):
        return str(x)
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, ConstantMatrix):
        return x.to_json()
    return x


__all__ = ["system_from_dict", "load_system", "simple_system", "system_to_dict", "t"]
