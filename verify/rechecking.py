"""Re-checking saved certificates in exact arithmetic: one file, a saved report, or a whole ``--save`` directory.

The library behind ``verify recheck`` (:mod:`verify.api.recheck` is its option table).  Only the
certificate modules of :data:`verify.certificate_kinds.KINDS` are used: rational arithmetic and arb
balls, the SDP solver is never imported.

* a certificate file: its kind's ``from_json`` (every field validated) and ``recheck()``;
* a report a ``--save`` wrote (``theorem``, ``depth``, ``fate``; its JSON has ``schema_version`` and
  ``kind``): every certificate embedded in it, each re-checked from its JSON;
* a directory: every certificate file in it (``*.json``, sorted by name); the reports beside them are
  listed, not re-read (their certificates are those files).

A re-check that fails makes the certificate *invalid* (it proves nothing, and refutes nothing); a
file that is not well formed is bad input (:class:`InvalidInput` naming the file and the field).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, final

from theorems.errors import InvalidInput
from theorems.verdict import Verdict

MAX_BYTES = 50 * 1024 * 1024
MAX_FILES = 1000
NOTE = "the certificate fails its exact re-check: it proves nothing about its claim (not a refutation)"


@final
@dataclass(frozen=True)
class Recheck:
    """The certificate as read back from its JSON, the verdict of its exact re-check and where it came from."""

    certificate: Any
    verdict: Verdict
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        from verify._sos.cert_schema import escape_label

        out = {"file": self.source, "claim": escape_label(str(self.certificate.claim)),
               "label": escape_label(str(getattr(self.certificate, "label", "") or "")), "result": self.verdict.to_json()}
        return out | ({} if self.verdict.holds else {"note": NOTE})

    def render(self) -> str:
        """The console text: the verdict, the label and claim, the reason (escaped: they come from a file)."""
        from verify._sos.cert_schema import escape_label

        j = self.to_json()
        lines = [f"recheck: {'HOLDS' if self.verdict.holds else 'CERTIFICATE INVALID'}"] + ([f"label: {j['label']}"] if j["label"] else [])
        lines += [f"claim: {j['claim']}", f"reason: {escape_label(self.verdict.reason)}"]
        return "\n".join(lines + ([] if self.verdict.holds else [f"note: {NOTE}"]))


@final
@dataclass(frozen=True)
class Rechecks:
    """Several certificates re-checked (a directory, or a report's embedded certificates); ``reports``:
    the saved reports found beside them, not re-read."""

    where: str
    checks: tuple[Recheck, ...]
    reports: tuple[str, ...] = ()

    @property
    def holds(self) -> bool:
        return all(c.verdict.holds for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        valid = sum(c.verdict.holds for c in self.checks)
        return {"file": self.where, "claim": f"every certificate in {self.where} re-checks ({len(self.checks)})",
                "label": "", "result": {"name": "recheck", "verdict": "holds" if self.holds else "fails",
                                        "reason": f"{valid} of {len(self.checks)} certificates re-check exactly",
                                        "exact": True, "witness": {}},
                "certificates": [c.to_json() for c in self.checks], "reports": list(self.reports)} \
            | ({} if self.holds else {"note": NOTE})

    def render(self) -> str:
        lines = [f"recheck: {'HOLDS' if self.holds else 'CERTIFICATE INVALID'} "
                 f"({sum(c.verdict.holds for c in self.checks)} of {len(self.checks)} certificates in {self.where})"]
        for c in self.checks:
            j = c.to_json()
            lines.append(f"  [{'holds' if c.verdict.holds else 'INVALID'}] {Path(c.source).name if c.source else j['label']}: "
                         f"{j['claim']}")
        lines += [f"  [report ] {Path(r).name}: a saved report (its certificates are the files above)" for r in self.reports]
        return "\n".join(lines + ([] if self.holds else [f"note: {NOTE}"]))


def recheck_source(source: Any) -> Recheck | Rechecks:
    """Re-check ``source``: a path (file, saved report or directory), a certificate's JSON (a dict) or a
    certificate record (re-checked from its ``to_json()``, never from the object in memory)."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            return _directory(path)
        data = _read(path)
        if _is_report(data):
            return _report(data, str(path))
        return _checked(from_json(data, "FILE", f"FILE {path}", str(path)), str(path))
    if isinstance(source, Mapping):
        return _checked(from_json(source, "certificate", "certificate", "a dict"), None)
    if callable(getattr(source, "to_json", None)) and callable(getattr(source, "recheck", None)):
        return _checked(from_json(source.to_json(), "certificate", "certificate", type(source).__name__), None)
    raise InvalidInput("certificate", "a path to a certificate file, a saved report or a directory, a certificate's "
                       "JSON (a dict) or a certificate record", type(source).__name__)


def load(path: str) -> Any:
    """Read and validate the certificate file ``path``; :class:`InvalidInput` names the file and the field."""
    return from_json(_read(Path(path)), "FILE", f"FILE {path}", path)


def from_json(data: Any, field: str, where: str, got: Any) -> Any:
    """The certificate record of ``data``; errors name ``where`` and the certificate's field."""
    from verify.certificate_kinds import certificate_from_json

    try:
        return certificate_from_json(data)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc.field}", exc.expected, exc.got, exc.hint) from None
    except (ValueError, TypeError) as exc:
        raise InvalidInput(field, "a consensus-verify certificate", got, str(exc)) from None


def _checked(cert: Any, source: str | None) -> Recheck:
    return Recheck(cert, cert.recheck(), source)


def _read(path: Path) -> Any:
    from theorems.safe_json import read_json

    return read_json(str(path), "FILE", max_bytes=MAX_BYTES)


def _is_report(data: Any) -> bool:
    return isinstance(data, Mapping) and "schema_version" in data and isinstance(data.get("kind"), str)


def _embedded(value: Any) -> list[Mapping[str, Any]]:
    """Every certificate JSON inside a report: the objects under a ``certificate`` key."""
    if isinstance(value, Mapping):
        found = [value["certificate"]] if isinstance(value.get("certificate"), Mapping) else []
        return found + [c for k, v in value.items() if k != "certificate" for c in _embedded(v)]
    if isinstance(value, list):
        return [c for v in value for c in _embedded(v)]
    return []


def _report(data: Mapping[str, Any], where: str) -> Rechecks:
    certs = _embedded(data)
    if not certs:
        raise InvalidInput("FILE", "a certificate, or a saved report holding certificates",
                           f"a {data.get('kind')} report without certificates ({where})")
    return Rechecks(where, tuple(_checked(from_json(c, "FILE", f"FILE {where}: certificate {i + 1}", where),
                                          f"{where}#certificate {i + 1}") for i, c in enumerate(certs)))


def _directory(path: Path) -> Rechecks:
    files = sorted(p for p in path.iterdir() if p.suffix == ".json" and p.is_file())
    if len(files) > MAX_FILES:
        raise InvalidInput("FILE", f"a directory of at most {MAX_FILES} JSON files", len(files))
    checks, reports = [], []
    for f in files:
        data = _read(f)
        if _is_report(data):
            reports.append(str(f))
        else:
            checks.append(_checked(from_json(data, "FILE", f"FILE {f}", str(f)), str(f)))
    if not checks:
        raise InvalidInput("FILE", "a directory holding at least one certificate written by --save",
                           f"{path} ({len(reports)} report(s), no certificate)")
    return Rechecks(str(path), tuple(checks), tuple(reports))


__all__ = ["MAX_BYTES", "NOTE", "Recheck", "Rechecks", "from_json", "load", "recheck_source"]
