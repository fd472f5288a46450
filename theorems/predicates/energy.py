"""Hypotheses of the project's gradient-energy proposition: ``P`` symmetric, constant, ``U = P``.

Exact for exact data (SymPy); for float data the deviation is measured and a nonzero deviation
is a failure, never rounded into "holds".
"""
from __future__ import annotations

import numpy as np
import sympy

from ..errors import InvalidType
from ..matrices import ConstantMatrix, LayerStack, MatrixSchedule, SymbolicMatrix, exact_entries
from ..system import AttentionSystem
from ..verdict import Status, Verdict, fails, holds, unknown
from .base import Predicate
from ._zero import scan_zero
from .value_map import constant_value


def _symbolic(m: MatrixSchedule) -> sympy.Matrix | None:
    if isinstance(m, ConstantMatrix):
        return m.exact
    if isinstance(m, SymbolicMatrix):
        return sympy.Matrix(m.expr)
    return None


def _constant_of(m: MatrixSchedule) -> MatrixSchedule:
    """A stack proven constant (every layer equal exactly) is its first layer."""
    return m.layers[0] if isinstance(m, LayerStack) and m.time_invariant else m


def _same_layout(a: MatrixSchedule, b: MatrixSchedule) -> bool:
    return (isinstance(a, LayerStack) and isinstance(b, LayerStack) and len(a.layers) == len(b.layers)
            and a.dt == b.dt and a.periodic == b.periodic and a.interpolation == b.interpolation)


def _exact_pair(a: MatrixSchedule, b: MatrixSchedule) -> tuple[sympy.Matrix | None, sympy.Matrix | None]:
    """Exact forms of both sides when either is exact: float data next to exact data are compared
    as the binary rationals they hold, never after rounding the exact side to float64."""
    ea, eb = _symbolic(a), _symbolic(b)
    if ea is not None and eb is None and isinstance(b, ConstantMatrix):
        eb = exact_entries(b)
    if eb is not None and ea is None and isinstance(a, ConstantMatrix):
        ea = exact_entries(a)
    return ea, eb


def _difference_verdict(name: str, label: str, pairs, what: str) -> Verdict:
    """``pairs``: per head (A, B) schedules whose difference should vanish identically.

    Exact data: an entry that SymPy simplifies to 0 is zero; a nonzero entry must be *proved*
    nonzero by an enclosure at some time (the witness), otherwise the verdict is unknown.  Float
    data: IEEE equality decides (no norm, which could underflow); the relative size is reported.
    """
    per_head = []
    for h, (a, b) in enumerate(pairs):
        if _same_layout(a, b):  # two stacks on the same layers: the difference vanishes iff it does on each layer
            layer_pairs = list(zip(a.layers, b.layers))
            sub = _difference_verdict(name, label, layer_pairs, what)
            if not sub.holds:
                k = sub.witness.get("head", 0)
                witness = {key: v for key, v in sub.witness.items() if key != "head"}
                builder = fails if sub.status is Status.FAILS else unknown
                return builder(name, f"head {h}, layer {k}: " + sub.reason.split(": ", 1)[-1],
                               {"head": h, "layer": k, **witness}, sub.exact)
            per_head.append("0 on every layer")
            continue
        open_conditions = [c for m in (a, b) if isinstance(m, SymbolicMatrix) for c in m.open_conditions]
        if open_conditions:
            return unknown(name, f"head {h}: domain conditions of the entries are not proven",
                           {"head": h, "open_domain_conditions": open_conditions})
        a, b = _constant_of(a), _constant_of(b)
        ea, eb = _exact_pair(a, b)
        if ea is not None and eb is not None:
            nonzero, undecided = scan_zero(ea - eb)
            if nonzero is not None:
                i, j, info = nonzero
                return fails(name, f"head {h}: {what} is nonzero at entry ({i}, {j})",
                             {"head": h, "entry": [i, j], "t": info["t"], "value": info["value_at_t"]})
            undecided = [[i, j] for i, j in undecided]
            if undecided:
                return unknown(name, f"head {h}: could not decide whether {what} vanishes at entries {undecided}",
                               {"head": h, "entries": undecided})
            per_head.append("0")
            continue
        if isinstance(a, ConstantMatrix) and isinstance(b, ConstantMatrix):  # both float data
            da, db = a.array, b.array
            dev = float(np.linalg.norm(da - db)) / max(float(np.linalg.norm(da)), 1e-300)
            per_head.append(dev)
            if not np.array_equal(da, db):
                i, j = (int(v) for v in np.argwhere(da != db)[0])
                return fails(name, f"head {h}: {what} is nonzero (float data; relative size {dev:.3e})",
                             {"head": h, "entry": [i, j], "entry_value": float(da[i, j] - db[i, j]),
                              "relative_deviation": dev}, exact=False)
            continue
        return unknown(name, f"head {h}: {label} is a time-varying layer stack; not decided", {"head": h})
    return holds(name, f"{what} is exactly zero for every head", {"per_head": per_head})


def _transpose(m: MatrixSchedule) -> MatrixSchedule:
    if isinstance(m, ConstantMatrix):
        return ConstantMatrix(array=m.array.T.copy(), exact=None if m.exact is None else m.exact.T)
    if isinstance(m, SymbolicMatrix):
        return SymbolicMatrix(m.expr.T, m.open_conditions)
    if isinstance(m, LayerStack):
        return LayerStack(tuple(_transpose(layer) for layer in m.layers), m.dt, m.periodic, m.interpolation)
    raise InvalidType("matrix", "a ConstantMatrix, SymbolicMatrix or LayerStack", type(m).__name__)


class PSymmetric(Predicate):
    reads = ("P",)
    id = "P_symmetric"
    statement = "each P^h(t) is symmetric"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        return _difference_verdict(self.id, "P", [(h.P, _transpose(h.P)) for h in system.heads], "P - P^T")


class PTimeInvariant(Predicate):
    reads = ("P",)
    id = "P_time_invariant"
    statement = "each P^h is constant in t"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        for h, head in enumerate(system.heads):
            status, _, witness = constant_value(head.P)
            if status is Status.FAILS:
                return fails(self.id, f"head {h}: P depends on t", {"head": h, **witness})
            if status is Status.UNKNOWN:
                return unknown(self.id, f"head {h}: could not decide whether P depends on t", {"head": h, **witness})
        return holds(self.id, "every P^h is constant in t", {"heads": system.H})


class UEqualsP(Predicate):
    reads = ("U", "P")
    id = "U_equals_P"
    statement = "U^h = P^h for each head"

    def evaluate(self, system: AttentionSystem) -> Verdict:
        return _difference_verdict(self.id, "U", [(h.U, h.P) for h in system.heads], "U - P")
