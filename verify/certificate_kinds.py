"""Every kind of certificate ``verify recheck`` reads: ``kind -> class`` (each with ``from_json`` and
``recheck``), held by the layer that imports them all, so no package names another by a string.
"""
from __future__ import annotations

from typing import Any, Mapping

from theorems.errors import InvalidInput

from ._depth.certificate import DepthCertificate
from ._depth.window_certificate import KIND as DEPTH_WINDOW, WindowCertificate
from ._sos.certificate import Certificate
from ._theorem.entry_certificate import KIND as HEMISPHERE_ENTRY, EntryCertificate
from ._sos.lyapunov_certificate import KIND as LYAPUNOV, LyapunovCertificate
from .equilibrium.certificate import EquilibriumCertificate
from ._fate.certificate import KIND as FATE, FateCertificate

KINDS: dict[str, Any] = {
    "nonnegativity": Certificate,
    LYAPUNOV: LyapunovCertificate,
    "equilibrium": EquilibriumCertificate,
    "depth": DepthCertificate,
    DEPTH_WINDOW: WindowCertificate,
    HEMISPHERE_ENTRY: EntryCertificate,
    FATE: FateCertificate,
}


def certificate_from_json(data: Mapping[str, Any]) -> Any:
    """Load any known kind of certificate (:data:`KINDS`); ``InvalidInput`` (a ``ValueError``)
    naming the field for anything malformed."""
    if not isinstance(data, Mapping):
        raise InvalidInput("certificate", "a JSON object", type(data).__name__)
    kind = data.get("kind")
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InvalidInput("certificate.kind", f"one of {', '.join(repr(k) for k in KINDS)}", kind)
    return cls.from_json(data)


__all__ = ["KINDS", "certificate_from_json"]
