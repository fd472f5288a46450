"""JSON form of :class:`~verify.equilibrium.certificate.EquilibriumCertificate`, validated field by field.

Every rational is a string ``"p"`` or ``"p/q"`` (no floats, at most :data:`MAX_DIGITS` digits);
integers (sizes, pivots, signs, token indices, precision) are JSON integers in stated ranges.
Anything else raises :class:`theorems.errors.InvalidInput` naming the field.  ``claim`` is
derived from the data and ignored on load (it is printed, never trusted).
"""
from __future__ import annotations

KIND = "equilibrium"
FORMAT = "consensus-verify/equilibrium-certificate"

from fractions import Fraction
from typing import Any, Mapping

from theorems.errors import InvalidInput
from verify.certificate_fields import MAX_DIGITS, json_int as _int, json_matrix as _matrix
from verify.certificate_fields import json_object, json_rational as _rational, json_vector as _vector

from .chart_field import FieldData
from .claims import CLAIMS
from .stability import token_blocks

LIMITS = {"d": (2, 8), "N": (1, 32), "heads": (1, 4), "precision_bits": (64, 2048), "n_full": 16}


def _q(x: Fraction) -> str:
    return str(x)


def _mat(M) -> list[list[str]]:
    return [[_q(v) for v in row] for row in M]


def to_json(cert: Any) -> dict[str, Any]:
    data = cert.data
    return {
        "format": FORMAT, "version": 1, "kind": KIND, "label": cert.label, "claim": cert.claim,
        "refutes": cert.refutes, "witness": list(cert.witness),
        "system": {"d": data.d, "N": data.N, "mask": data.mask, "beta": _q(data.beta),
                   "heads": [{"P": _mat(P), "U": _mat(U)} for P, U in data.heads],
                   "instance_tokens": cert.instance_tokens},
        "precision_bits": cert.precision,
        "charts": [{"pivot": k, "sign": s} for k, s in data.charts],
        "box": {"mid": [_q(v) for v in cert.mid], "rad": [_q(v) for v in cert.rad]},
        "stability": [{"A": _mat(A), "S": _mat(S)} for A, S in cert.blocks],
    }


def fields_from_json(data: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of :class:`~verify.equilibrium.certificate.EquilibriumCertificate`, validated."""
    top = _obj(data, "certificate", {"format", "version", "kind", "label", "claim", "refutes", "witness", "system",
                                     "precision_bits", "charts", "box", "stability"})
    if top["format"] != FORMAT or top["kind"] != KIND or top["version"] != 1:
        raise InvalidInput("certificate", f"format {FORMAT!r}, kind {KIND!r}, version 1",
                           [top["format"], top["kind"], top["version"]])
    label = top.get("label", "")
    if not isinstance(label, str) or len(label) > 500:
        raise InvalidInput("certificate.label", "a string of at most 500 characters", type(label).__name__)
    if top["refutes"] not in CLAIMS:
        raise InvalidInput("certificate.refutes", f"one of {sorted(CLAIMS)}", top["refutes"])
    sysd = _obj(top["system"], "certificate.system", {"d", "N", "mask", "beta", "heads", "instance_tokens"})
    d = _int(sysd["d"], "certificate.system.d", *LIMITS["d"])
    N = _int(sysd["N"], "certificate.system.N", *LIMITS["N"])
    mask = sysd["mask"]
    if mask not in ("causal", "full"):
        raise InvalidInput("certificate.system.mask", "'causal' or 'full'", mask)
    n = N * (d - 1)
    if mask == "full" and n > LIMITS["n_full"]:
        raise InvalidInput("certificate.system", f"N (d - 1) <= {LIMITS['n_full']} for the full mask", n)
    heads_raw = sysd["heads"]
    if not isinstance(heads_raw, list) or not LIMITS["heads"][0] <= len(heads_raw) <= LIMITS["heads"][1]:
        raise InvalidInput("certificate.system.heads", f"a list of {LIMITS['heads']} heads", heads_raw)
    heads = []
    for h, head in enumerate(heads_raw):
        obj = _obj(head, f"certificate.system.heads[{h}]", {"P", "U"})
        heads.append((_matrix(obj["P"], f"certificate.system.heads[{h}].P", d),
                      _matrix(obj["U"], f"certificate.system.heads[{h}].U", d)))
    charts_raw = top["charts"]
    if not isinstance(charts_raw, list) or len(charts_raw) != N:
        raise InvalidInput("certificate.charts", f"a list of {N} charts", charts_raw)
    charts = []
    for i, ch in enumerate(charts_raw):
        obj = _obj(ch, f"certificate.charts[{i}]", {"pivot", "sign"})
        sign = _int(obj["sign"], f"certificate.charts[{i}].sign", -1, 1)
        if sign == 0:
            raise InvalidInput(f"certificate.charts[{i}].sign", "1 or -1", 0)
        charts.append((_int(obj["pivot"], f"certificate.charts[{i}].pivot", 0, d - 1), sign))
    box = _obj(top["box"], "certificate.box", {"mid", "rad"})
    blocks = token_blocks(N, d - 1, mask)
    stab = top["stability"]
    if not isinstance(stab, list) or len(stab) != len(blocks):
        raise InvalidInput("certificate.stability", f"a list of {len(blocks)} blocks", stab if not isinstance(stab, list) else len(stab))
    pairs = []
    for b, (entry, rows) in enumerate(zip(stab, blocks)):
        obj = _obj(entry, f"certificate.stability[{b}]", {"A", "S"})
        pairs.append((_matrix(obj["A"], f"certificate.stability[{b}].A", len(rows)),
                      _matrix(obj["S"], f"certificate.stability[{b}].S", len(rows))))
    witness = top["witness"]
    wanted = 1 if top["refutes"] == "later-token-alignment" else 2
    if not isinstance(witness, list) or len(witness) != wanted:
        raise InvalidInput("certificate.witness", f"a list of {wanted} token index(es)", witness)
    witness_t = tuple(_int(w, f"certificate.witness[{k}]", 0, N - 1) for k, w in enumerate(witness))
    field = FieldData(d=d, beta=_rational(sysd["beta"], "certificate.system.beta"), mask=mask, heads=tuple(heads),
                      charts=tuple(charts))
    return dict(
        refutes=top["refutes"], witness=witness_t, data=field,
        mid=_vector(box["mid"], "certificate.box.mid", n), rad=_vector(box["rad"], "certificate.box.rad", n),
        blocks=tuple(pairs), precision=_int(top["precision_bits"], "certificate.precision_bits", *LIMITS["precision_bits"]),
        instance_tokens=_int(sysd["instance_tokens"], "certificate.system.instance_tokens", N, 10**6), label=label)


def _obj(value: Any, field: str, keys: set[str]) -> Mapping[str, Any]:
    return json_object(value, field, keys, optional=("label", "claim"))
