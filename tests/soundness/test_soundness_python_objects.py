"""The domain-condition families of the soundness suite, entered as Python objects (issue 20, item 4).

Each false instance of :mod:`soundness_families` (and the hard and more families) is built the way
a notebook user would build it: ``SymbolicMatrix`` / ``ConstantMatrix`` / ``LayerStack`` objects
holding SymPy expressions made by ``sympify`` (``evaluate=False``: the object holds the text as
written, ``rational=True``: a decimal is the rational it spells), exact tokens as a SymPy matrix,
then ``AttentionSystem(...)`` directly, never the JSON reader.  The contract is the file
contract: ``InvalidInput`` at construction, or ``fails`` / ``unknown`` for every hypothesis the
case proves false; never "holds".  An object that skipped the reader's domain checks (such as
``(t^2 - 1)/(t - 1) - t``, which SymPy does not simplify) must be re-read or refused.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import sympy

from soundness_families import CASES as BASIC_CASES
from soundness_families_hard import HARD_CASES
from soundness_families_more import MORE_CASES
from soundness_helpers import evaluate_case, record_problems

CASES = BASIC_CASES + HARD_CASES + MORE_CASES
_RECORDS: dict[str, dict] = {}


def _number(value, t):
    if isinstance(value, bool) or value is None:
        raise TypeError(value)
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, float):
        return sympy.Float(value)
    names = {"t": t, "E": sympy.E, "pi": sympy.pi, "abs": sympy.Abs}
    return sympy.sympify(value.replace("^", "**"), locals=names, rational=True, evaluate=False)


def _matrix(value, d, t):
    from theorems.matrices import ConstantMatrix, LayerStack, SymbolicMatrix

    if value == "identity":
        return ConstantMatrix(np.eye(d), sympy.ImmutableMatrix(sympy.eye(d)))
    if value == "zero":
        return ConstantMatrix(np.zeros((d, d)), sympy.ImmutableMatrix(sympy.zeros(d, d)))
    if isinstance(value, dict) and value.get("kind") == "stack":
        layers = tuple(_matrix(layer, d, t) for layer in value["layers"])
        return LayerStack(layers, float(value.get("dt", 1.0)), value.get("periodic", True),
                          value.get("interpolation", "constant"))
    if isinstance(value, dict):
        value = value["entries"]
    m = sympy.ImmutableMatrix([[_number(v, t) for v in row] for row in value])
    if m.free_symbols:
        return SymbolicMatrix(m)
    return ConstantMatrix(_floats(m), m)


def _floats(m: sympy.ImmutableMatrix) -> np.ndarray:
    """The float view a user would attach (zeros when the entries are not real numbers: the exact
    entries are what the tool must judge)."""
    try:
        return np.array(m.evalf(20).tolist(), dtype=float)
    except TypeError:
        return np.zeros(m.shape)


def as_python_objects(data: dict):
    """The instance built from Python objects, bypassing :func:`theorems.system_from_dict`."""
    from theorems.enclosure import T
    from theorems.system import AttentionSystem, Head, LayerNormSpec

    d = data["d"]
    heads = tuple(Head(_matrix(h["P"], d, T), _matrix(h["U"], d, T)) for h in data["heads"])
    tokens_exact = sympy.ImmutableMatrix([[_number(v, T) for v in row] for row in data["tokens"]])
    tokens = _floats(tokens_exact)
    ln = None
    if "layer_norm" in data:
        ln = LayerNormSpec(tuple(_number(v, T) for v in data["layer_norm"]["scale"]),
                           tuple(_number(v, T) for v in data["layer_norm"].get("shift", [0] * d)))
    return AttentionSystem(d=d, beta=_number(data["beta"], T), mask=data["mask"], heads=heads, tokens=tokens,
                           tokens_exact=tokens_exact, layer_norm=ln, name="python-objects")


def _record(case) -> dict:
    if case.id not in _RECORDS:
        _RECORDS[case.id] = evaluate_case(case, 20, load=as_python_objects)
    return _RECORDS[case.id]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_false_instance_as_python_objects_never_holds(case):
    truth = case.witness()
    record = _record(case)
    problems = record_problems(case, record)
    assert not problems, f"[{case.cls}] {case.id}: {problems}\n  truth: {truth}\n  tool: {record}"


def test_removable_singularity_object_is_refused():
    """The issue's example: SymPy keeps ``(t^2-1)/(t-1) - t`` (the hole at t = 1) unsimplified."""
    from theorems import InvalidInput
    from theorems.enclosure import T
    from theorems.matrices import SymbolicMatrix
    from theorems.system import AttentionSystem, Head

    entry = (T ** 2 - 1) / (T - 1) - T
    U = SymbolicMatrix(sympy.ImmutableMatrix([[1 + entry, 0], [0, 1]]))
    with pytest.raises(InvalidInput, match=r"heads\[0\]\.U.*t = 1"):
        AttentionSystem(d=2, beta=sympy.Integer(1), mask="causal", heads=(Head(SymbolicMatrix(sympy.ImmutableMatrix(
            sympy.eye(2))), U),), tokens=np.eye(2), tokens_exact=sympy.ImmutableMatrix(sympy.eye(2)))


def test_object_summary():
    """Counts (``pytest -s``): every family case tried through Python objects, 0 false holds."""
    counts = Counter()
    for case in CASES:
        record = _record(case)
        counts["tried"] += 1
        counts["rejected" if record["load"] == "rejected" else "loaded"] += 1
        for status in record["verdicts"].values():
            counts[status.split(":")[0]] += 1
        if any(p.startswith("FALSE HOLDS") for p in record_problems(case, record)):
            counts["FALSE_HOLDS"] += 1
    print("\nsoundness families as Python objects:", dict(counts))
    assert counts["tried"] >= 200 and counts["FALSE_HOLDS"] == 0
