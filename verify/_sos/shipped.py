"""Certificates shipped with the package: re-checked (exact arithmetic only) instead of searched again.

The default instances of the catalogue always pose the same SOS problems, so their certificates
are package data (``verify/_sos/shipped/*.json``, written by ``python -m verify._theorem.ship``
from fresh searches).  When :func:`use_shipped` is active (``verify theorem`` turns it on),
:func:`verify._sos.prove.prove_exact` looks up the *request* (variables, polynomial, inequalities,
equalities, compared as exact rationals); a stored certificate is used only if

* the stored request is exactly the one asked for, and
* the certificate's own claim is that polynomial over the same variables on a subset of those
  constraints (so it proves the asked claim or a stronger one), and
* it passes :meth:`Certificate.recheck` now.

Otherwise the search runs as usual.  Trust: the file is untrusted input like any certificate (it is
loaded with the strict schema of :mod:`verify._sos.cert_schema`); the proof is the exact re-check, as
for a freshly searched certificate.  This module imports no solver.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Iterator

from theorems.errors import InvalidInput

from .certificate import Certificate, thaw

SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"
FORMAT = "consensus-verify/shipped-sos-certificate"

_ACTIVE: ContextVar[bool] = ContextVar("verify_sos_use_shipped", default=False)
_RECORD: ContextVar[list | None] = ContextVar("verify_sos_record_searched", default=None)


@contextmanager
def use_shipped(enabled: bool = True) -> Iterator[None]:
    """Within the block, :func:`verify._sos.prove.prove_exact` re-checks a shipped certificate of the
    same claim instead of searching (scoped: a context variable, no global setting)."""
    token = _ACTIVE.set(enabled)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active() -> bool:
    return _ACTIVE.get()


@contextmanager
def record_searched(into: list) -> Iterator[None]:
    """Within the block, every certificate found by a search is appended to ``into`` as
    ``(request draft, certificate)`` (how the package data is written)."""
    token = _RECORD.set(into)
    try:
        yield
    finally:
        _RECORD.reset(token)


def recording() -> bool:
    return _RECORD.get() is not None


def note_searched(draft: Certificate, cert: Certificate) -> None:
    into = _RECORD.get()
    if into is not None:
        into.append((draft, cert))


def request_key(draft: Certificate) -> dict[str, Any]:
    """The exact data of a request (what the claim says; no label, no certificate terms)."""
    data = draft.to_json()
    return {k: data[k] for k in ("variables", "polynomial", "ineqs", "eqs")}


def _proves(cert: Certificate, draft: Certificate) -> bool:
    """``cert`` states ``draft``'s claim, or the same inequality on a subset of its constraints."""
    if cert.variables != draft.variables or thaw(cert.polynomial) != thaw(draft.polynomial):
        return False
    asked_g = [thaw(g) for g in draft.ineqs]
    asked_h = [thaw(h) for h in draft.eqs]
    return all(thaw(g) in asked_g for g in cert.ineqs) and all(thaw(h) in asked_h for h in cert.eqs)


def lookup(draft: Certificate, directory: Path = SHIPPED_DIR) -> tuple[str, Certificate] | None:
    """``(file name, certificate)`` of a shipped certificate for exactly this request, or None.
    The caller re-checks it; a malformed shipped file is skipped (the search then runs)."""
    if not directory.is_dir():
        return None
    key = request_key(draft)
    for path in sorted(directory.glob("*.json")):
        try:
            entry = json.loads(path.read_text())
            if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("request") != key:
                continue
            cert = Certificate.from_json(entry["certificate"])
        except (OSError, ValueError, KeyError, InvalidInput):
            continue
        if _proves(cert, draft):
            return path.name, cert
    return None


def shipped_entry(draft: Certificate, cert: Certificate) -> dict[str, Any]:
    """The JSON record stored for one request (used to write the package data)."""
    return {"format": FORMAT, "request_claim": draft.claim, "request": request_key(draft),
            "certificate": cert.to_json()}


__all__ = ["SHIPPED_DIR", "active", "lookup", "note_searched", "record_searched", "recording", "request_key", "shipped_entry",
           "use_shipped"]
