"""The one report record every ``verify`` command returns, and the JSON contract it serialises to.

The CLI is a thin renderer over the same call a notebook makes (STYLE.md §8): each command's
library function (:mod:`verify.api`) returns a :class:`Report`, the CLI prints ``report.text`` or
``report.to_json()`` and exits with ``report.exit_code``.

The JSON contract (``--format json`` and :meth:`Report.to_json`), version :data:`SCHEMA_VERSION`:

* a top-level ``schema_version`` (this module's constant, a string) and ``kind`` (the command);
* ``verdict`` (``holds`` / ``fails`` / ``unknown``, or ``certificate_invalid`` for ``recheck``) for
  every command that decides something, and ``status`` (``ok``, ``completed``, ...) for the
  others (``list``, ``simulate``, ``consensus``, ``reproduce``);
* one published JSON Schema per kind, ``verify/schemas/<kind>.schema.json``
  (:func:`schema_path`), checked in the tests by running each command;
* errors under ``--format json``: ``{"schema_version", "kind": "error", "error": {"field",
  "expected", "got", "message"}}`` on stdout, exit 2 (:func:`error_payload`).

A report's payload is frozen all the way down (read-only dicts and lists), and
``to_json()`` returns a fresh plain copy: nothing a caller does to it changes the report.
"""
from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from theorems.verdict import VERDICT_EXIT as _VERDICT_EXIT

from .frozen import freeze as _freeze, thaw as _thaw

SCHEMA_VERSION = "1"
KINDS = ("list", "assumptions", "theorem", "sos", "lyapunov", "recheck", "simulate", "audit", "consensus",
         "reproduce", "depth", "fate", "examples", "docs", "error")
VERDICTS = ("holds", "fails", "unknown", "certificate_invalid", "not_applicable")
VERDICT_EXIT = {verdict: int(code) for verdict, code in _VERDICT_EXIT.items()}
"""The CLI exit code each verdict carries (the one table: theorems.verdict.ExitCode)."""


def schema_path(kind: str) -> Path:
    """The published JSON Schema of one report kind."""
    if kind not in KINDS:
        raise KeyError(f"no report kind {kind!r}; known: {', '.join(KINDS)}")
    return Path(__file__).with_name("schemas") / f"{kind}.schema.json"


def envelope(kind: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """``body`` with the contract's header first: ``schema_version`` and ``kind``.

    Raises ``ValueError`` (a programming error, not user input) when ``body`` has neither a
    ``verdict`` nor a ``status``, or a verdict outside :data:`VERDICTS`.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown report kind {kind!r}")
    if "verdict" not in body and "status" not in body and kind != "error":
        raise ValueError(f"a {kind} report needs a 'verdict' or a 'status'")
    if "verdict" in body and body["verdict"] not in VERDICTS:
        raise ValueError(f"verdict {body['verdict']!r} is not one of {VERDICTS}")
    out: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "kind": kind}
    out.update((k, v) for k, v in body.items() if k not in ("schema_version", "kind"))
    return out


def _json_value(value: Any) -> Any:
    """``value`` as strict JSON can carry it: a finite number, a string, a bool or null, else its repr."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)  # NaN / Infinity are not JSON
    return repr(value)


def error_payload(exc: BaseException) -> dict[str, Any]:
    """The JSON form of a usage or input error: field, expected and got when the error names them."""
    err = {"field": getattr(exc, "field", None), "expected": getattr(exc, "expected", None),
           "got": None, "message": str(exc)}
    if hasattr(exc, "got"):
        err["got"] = _json_value(exc.got)
    if hasattr(exc, "known") and hasattr(exc, "name"):  # theorems.errors.UnknownName
        err.update(field=getattr(exc, "kind", None), expected="one of: " + ", ".join(map(str, exc.known)),
                   got=_json_value(exc.name))
    err = {k: (v if k == "got" or v is None or isinstance(v, str) else str(v)) for k, v in err.items()}
    if getattr(exc, "hint", ""):
        err["hint"] = exc.hint
    return envelope("error", {"error": err})


@dataclass(frozen=True)
class Report:
    """What one ``verify`` command (or :mod:`verify.api` call) produced.

    ``payload`` is the JSON body (with :func:`envelope`'s header), ``text`` the console rendering,
    ``exit_code`` the CLI exit code carried by the verdict (derived from it when not given; one that
    contradicts it is refused), ``files`` the paths written, and
    ``record`` the typed library record behind it when there is one (a theorem report, an
    ``SOSResult``, a trajectory); it is not serialised.
    """

    kind: str
    payload: Mapping[str, Any]
    text: str
    exit_code: int | None = None
    files: tuple[str, ...] = ()
    record: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "payload", _freeze(envelope(self.kind, _thaw(self.payload))))
        object.__setattr__(self, "files", tuple(str(f) for f in self.files))
        verdict = self.payload.get("verdict")
        if self.exit_code is None:  # the code the verdict carries (0 for a report that decides nothing)
            object.__setattr__(self, "exit_code", VERDICT_EXIT.get(verdict, 0))
        if isinstance(self.exit_code, bool) or not isinstance(self.exit_code, int):
            raise ValueError(f"exit_code must be an int, got {self.exit_code!r}")
        if verdict is not None and self.exit_code != VERDICT_EXIT[verdict]:
            raise ValueError(f"exit code {self.exit_code!r} contradicts the verdict {verdict!r} "
                             f"(which exits {VERDICT_EXIT[verdict]})")

    def __deepcopy__(self, memo: dict) -> "Report":
        return self  # immutable all the way down (the record is shared, as a frozen record may be)

    def __reduce__(self):
        return (Report, (self.kind, _thaw(self.payload), self.text, self.exit_code, self.files, self.record))

    @property
    def verdict(self) -> str | None:
        """``holds`` / ``fails`` / ``unknown`` (``certificate_invalid``), or None for a report that decides nothing."""
        return self.payload.get("verdict")

    @property
    def status(self) -> str:
        """The verdict when there is one, else the report's ``status`` (``ok``, ``completed``, ...)."""
        return self.payload.get("verdict") or self.payload.get("status", "")

    def to_json(self) -> dict[str, Any]:
        """A plain, fresh copy of the JSON payload (what ``--format json`` prints)."""
        return _thaw(self.payload)

    def dumps(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_json(), indent=indent, allow_nan=False)

    def __str__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        head = f"**verify {self.kind}**: `{self.status}`" if self.status else f"**verify {self.kind}**"
        return head + "\n\n```text\n" + self.text.replace("```", "'''") + "\n```\n"

    def _repr_html_(self) -> str:
        colour = {"holds": "#1a7f37", "fails": "#cf222e", "unknown": "#9a6700"}.get(self.verdict or "", "#57606a")
        badge = (f'<span style="color:{colour};font-weight:bold">{html.escape(self.status)}</span>'
                 if self.status else "")
        return (f"<div><b>verify {html.escape(self.kind)}</b> {badge}"
                f"<pre style=\"white-space:pre-wrap\">{html.escape(self.text)}</pre></div>")

    def plot(self, ax: Any = None, **options: Any):
        """The matplotlib ``Figure`` its record draws (``record.figure(ax=None)``, :mod:`verify.api.plots`);
        ``ax``: draw into an existing Axes.  ``InvalidInput`` when the kind has nothing to draw (``list``,
        ``sos``, ...) or the report lacks its record."""
        from verify.api.plots import figure_for

        return figure_for(self, ax, **options)
