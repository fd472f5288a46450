"""Tampered SOS certificates for the Coq soundness tests: a changed rational, a dropped term, a flipped
inequality.  Each tampering is kept only when the exact Python re-check says the result is *not* a valid
certificate (the independent truth); the test then requires ``coqc`` to reject the file made from it."""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterator

from theorems.errors import InvalidInput
from verify._sos import poly
from verify._sos.certificate import Certificate

CERT_DIR = Path(__file__).resolve().parents[2] / "verify" / "_sos" / "shipped"


def load_certificates() -> dict[str, dict[str, Any]]:
    """The shipped certificates (package data), by a short key; fresh copies on every call."""
    out = {}
    for path in sorted(CERT_DIR.glob("*.json")):
        key = "4_2__token2_decrease" if path.name.startswith("01_") else path.name[:2]
        out[key] = json.loads(path.read_text())["certificate"]
    return out


def certificate_payload(step_id: str, cert: dict[str, Any]) -> dict[str, Any]:
    """A one-step theorem report carrying ``cert``: what :func:`verify.coq.build` reads."""
    return {"theorem": {"id": f"tamper_{step_id}"}, "instance": {"name": "tampered"}, "verdict": "holds",
            "steps": [{"id": step_id, "kind": "certificate", "statement": "tampered", "certificate": cert}]}


def _bump(s: str, by: Fraction = Fraction(1, 1000)) -> str:
    return str(Fraction(s) + by)


def _neg_poly(p: list) -> list:
    return [[m, str(-Fraction(c))] for m, c in p]


def _changes(cert: dict[str, Any]) -> Iterator[tuple[str, Callable[[dict], None]]]:
    yield "rational: polynomial coefficient", lambda c: c["polynomial"][0].__setitem__(1, _bump(c["polynomial"][0][1]))
    yield "rational: last polynomial coefficient", lambda c: c["polynomial"][-1].__setitem__(
        1, _bump(c["polynomial"][-1][1], Fraction(-1, 7)))
    if not cert["sos_terms"]:
        return
    yield "rational: Gram diagonal", lambda c: c["sos_terms"][0]["gram"][0].__setitem__(
        0, _bump(c["sos_terms"][0]["gram"][0][0], Fraction(-1, 3)))
    big = [k for k, t in enumerate(cert["sos_terms"]) if len(t["basis"]) >= 2]
    if big:
        k = big[0]

        def off_diagonal(c: dict, k: int = k) -> None:
            g = c["sos_terms"][k]["gram"]
            g[0][1] = g[1][0] = _bump(g[0][1], Fraction(1, 5))
        yield "rational: Gram off-diagonal pair", off_diagonal
        yield "rational: Gram one-sided (not symmetric)", lambda c, k=k: c["sos_terms"][k]["gram"][0].__setitem__(
            1, _bump(c["sos_terms"][k]["gram"][0][1], Fraction(1, 5)))
    if cert["ineqs"]:
        yield "rational: constraint coefficient", lambda c: c["ineqs"][-1][0].__setitem__(
            1, _bump(c["ineqs"][-1][0][1], Fraction(1, 2)))
    yield "rational: Gram pivot made negative, identity kept (only positivity fails)", _indefinite
    yield "dropped: polynomial term", lambda c: c["polynomial"].pop(0)
    yield "dropped: SOS term", lambda c: c["sos_terms"].pop()
    if cert["eq_terms"]:
        yield "dropped: equality multiplier", lambda c: c["eq_terms"].pop()
    used = sorted({i for t in cert["sos_terms"] for i in t["multiplier"]})
    if used:
        yield "swapped: constraint g >= 0 read as g <= 0", lambda c, i=used[0]: c["ineqs"].__setitem__(
            i, _neg_poly(c["ineqs"][i]))
    yield "swapped: claim p >= 0 read as p <= 0", lambda c: c.__setitem__("polynomial", _neg_poly(c["polynomial"]))


def _indefinite(c: dict) -> None:
    """Set ``Q[0][0] = -1`` in the first Gram block and change the claimed polynomial by the same amount, so the
    polynomial identity still holds exactly and only the positivity of the Gram factor is wrong."""
    n = len(c["variables"])
    term = c["sos_terms"][0]
    delta = Fraction(-1) - Fraction(term["gram"][0][0])
    term["gram"][0][0] = "-1"
    weight = poly.product((poly.from_json(c["ineqs"][i], n, "ineq") for i in term["multiplier"]), n)
    square = poly.mul(weight, poly.monomial([2 * e for e in term["basis"][0]]))
    target = poly.from_json(c["polynomial"], n, "polynomial")
    poly.add_into(target, square, delta)
    c["polynomial"] = poly.to_json(target)


def tamperings() -> list[tuple[str, dict[str, Any]]]:
    """``(label, tampered certificate JSON)`` for every change the exact re-check rejects."""
    out = []
    for key, cert in load_certificates().items():
        for label, change in _changes(cert):
            data = copy.deepcopy(cert)
            change(data)
            try:
                valid = Certificate.from_json(data).recheck().holds
            except InvalidInput:
                continue  # malformed: refused by the schema before any arithmetic, not a certificate question
            if not valid:
                out.append((f"{key}: {label}", data))
    return out
