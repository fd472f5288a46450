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

from pathlib import Path
from typing import Any

import sympy

from .errors import InvalidInput
from .safe_json import read_json
from .expressions import all_float, parse_positive_constant, parse_scalar, t
from .schedule_reading import check_keys as _check_keys, read_schedule as _matrix
from .system import AttentionSystem, Head, LayerNormSpec
from .token_reading import read_tokens

TOP_KEYS = {"name", "description", "d", "N", "beta", "mask", "heads", "tokens", "normalize_tokens", "layer_norm"}
REQUIRED = ("d", "beta", "mask", "heads", "tokens")
HEAD_KEYS = {"P", "U"}
MAX_DIM = 1024
"""Largest dimension d: ``verify theorem`` takes ~17 s at d = 1024 and ~70 s at d = 2048 (identity P)."""
MAX_TOKENS = 20_000
"""Largest number of tokens N (``verify theorem`` skips its simulation above a cost limit instead)."""
MAX_HEADS = 64
MAX_LAYERS = 1024
MAX_SCALARS = 300_000
"""Most numbers in all matrices, tokens and the layer norm of one file (dense d = 512: ~16 s)."""


def _layer_norm(value: Any, d: int) -> LayerNormSpec:
    if not isinstance(value, dict):
        raise InvalidInput("layer_norm", "an object with 'scale' and 'shift'", value)
    _check_keys(value, {"scale", "shift"}, "layer_norm")
    out = {}
    for key in ("scale", "shift"):
        vec = value.get(key, [0] * d if key == "shift" else None)
        if not isinstance(vec, list) or len(vec) != d:
            raise InvalidInput(f"layer_norm.{key}", f"a list of d={d} numbers", vec)
        exact = not all_float(vec)
        values = tuple(parse_scalar(v, f"layer_norm.{key}[{i}]", exact_floats=exact) for i, v in enumerate(vec))
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
    read = read_tokens(data["tokens"], d, normalize)
    if "N" in data and data["N"] != read.array.shape[0]:
        raise InvalidInput("N", f"the number of tokens ({read.array.shape[0]})", data["N"])
    ln = _layer_norm(data["layer_norm"], d) if "layer_norm" in data else None
    name = data.get("name", "instance")
    if not isinstance(name, str) or len(name) > 200 or not name.isprintable():
        raise InvalidInput("name", "a string of at most 200 printable characters (it is shown in reports)", name)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise InvalidInput("description", "a string", description)
    return AttentionSystem(d=d, beta=beta, mask=mask, heads=tuple(heads), tokens=read.array,
                           tokens_exact=read.exact, layer_norm=ln, name=name, description=description,
                           tokens_rescaled=read.rescaled)


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


__all__ = ["system_from_dict", "load_system", "system_to_dict", "t"]

