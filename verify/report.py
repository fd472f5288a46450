"""The report every ``verify`` command returns, and the JSON contract it serialises to.

Each library call (:mod:`verify.api`) returns a :class:`Report` wrapping its typed record (which owns
``to_json()``, ``render()`` and ``figure()``); the CLI prints ``report.text`` or ``report.to_json()`` and
exits with ``report.exit_code`` (``theorems.verdict.ExitCode``).  The JSON contract, version :data:`SCHEMA_VERSION`: a
top-level ``schema_version`` and ``kind`` (the command); a ``verdict`` (:data:`VERDICTS`) for every
command that decides something, a ``status`` (``ok``, ``completed``, ...) for the others; one published
JSON Schema per kind (:func:`schema_path`); errors under ``--format json`` are ``{"schema_version",
"kind": "error", "error": {"field", "expected", "got", "message"}}`` on stdout, exit 2
(:func:`error_payload`).  A payload is frozen all the way down; ``to_json()`` returns a fresh plain copy.
"""
from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from theorems.errors import InvalidInput
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
    """``body`` with the contract's header first (``schema_version``, ``kind``); ``ValueError`` (a programming
    error) when it has neither a ``verdict`` nor a ``status``, or a verdict outside :data:`VERDICTS`."""
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
           "got": _json_value(getattr(exc, "got", None)), "message": str(exc)}
    if hasattr(exc, "known") and hasattr(exc, "name"):  # theorems.errors.UnknownName
        err.update(field=getattr(exc, "kind", None), expected="one of: " + ", ".join(map(str, exc.known)),
                   got=_json_value(exc.name))
    err = {k: (v if k == "got" or v is None or isinstance(v, str) else str(v)) for k, v in err.items()}
    if getattr(exc, "hint", ""):
        err["hint"] = exc.hint
    return envelope("error", {"error": err})


@dataclass(frozen=True)
class Report:
    """What one ``verify`` command (or :mod:`verify.api` call) produced: ``payload`` the JSON body (with
    :func:`envelope`'s header), ``text`` the console rendering, ``exit_code`` the one the verdict carries
    (derived when not given; a contradicting one is refused), ``files`` the paths written, ``record`` the
    typed library record behind it (not serialised; it draws :meth:`plot`)."""

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
        """The matplotlib ``Figure`` its record draws (:func:`figure_for`); ``ax``: draw into an existing Axes."""
        return figure_for(self, ax, **options)


FIGURES = {"simulate": ("Simulation", ("title", "variant")), "consensus": ("ConsensusResult", ("title",)),
           "audit": ("AuditReport", ("title",)), "depth": ("DepthReport", ("title", "label")),
           "theorem": ("TheoremReport", ("title",))}
"""Each plottable kind: the record its figure comes from (a record of another kind is not drawn as this one)
and the options of that figure."""
NOTHING_TO_DRAW = {
    "list": "a simulate, consensus, audit, depth or theorem report (a list of results has nothing to draw)",
    "assumptions": "a theorem report with numerical evidence (an assumptions report holds verdicts only)",
    "sos": "a report with series to draw (an SOS certificate is exact data, not a curve)",
    "lyapunov": "a report with series to draw (a Lyapunov certificate is exact data, not a curve)",
    "recheck": "a report with series to draw (a re-check returns a verdict only)",
    "error": "a report of a command that ran (this one is an error)",
    "reproduce": "a simulate, consensus, audit, depth or theorem report (reproduce writes its figures as PNG files: "
                 "report.files)",
}
VARIANTS = ("cos", "abs")


def figure_for(report: Any, ax: Any = None, **options: Any) -> Any:
    """The matplotlib ``Figure`` of ``report``, drawn by its typed record (never from the JSON payload): the
    record's ``figure(ax=None, **options)`` (:data:`FIGURES`; a theorem report re-integrates its evidence:
    evidence, not proof), ``ax`` an existing Axes (``audit``: three, one per heatmap).  ``options``: ``title``
    (every kind), ``variant`` (``simulate``: ``"cos"`` or ``"abs"``), ``label`` (``depth``).  Kinds with nothing
    to draw (:data:`NOTHING_TO_DRAW`) and reports without their record raise ``InvalidInput``."""
    if not isinstance(report, Report):
        raise InvalidInput("report", "a verify.report.Report", type(report).__name__)
    if report.kind in NOTHING_TO_DRAW:
        raise InvalidInput("plot", NOTHING_TO_DRAW[report.kind], report.kind)
    if report.kind not in FIGURES:
        raise InvalidInput("plot", f"a report of kind {', '.join(FIGURES)}", report.kind)
    owner, known = FIGURES[report.kind]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise InvalidInput("plot options", f"options of a {report.kind} figure: {', '.join(known)}", unknown)
    if ax is not None and not callable(getattr(ax, "plot", None)) and report.kind != "audit":  # audit: one Axes per panel
        raise InvalidInput("ax", "a matplotlib Axes, or None for a new Figure", type(ax).__name__)
    options = _checked_options(options)
    record = report.record
    if type(record).__name__ == owner and callable(getattr(record, "figure", None)):
        own = json.loads(json.dumps(record.to_json(), default=str))
        if any(json.loads(json.dumps(report.payload[k], default=str)) != v for k, v in own.items() if k in report.payload):
            raise InvalidInput("plot", f"a report whose payload is its record's JSON (the {owner} draws the figure)",
                               "a payload of another record", hint="plot the report the library call returned")
        return record.figure(ax=ax, **options)
    raise InvalidInput("plot", f"the {report.kind} report of the library call (its record, a {owner}, draws the figure)",
                       "a report without its record", hint="figures are drawn from the typed record, not the payload")


def _checked_options(options: dict[str, Any]) -> dict[str, Any]:
    """``title`` and ``label`` are text, ``variant`` is ``"cos"`` or ``"abs"``; ``None`` means not given."""
    given = {k: v for k, v in options.items() if v is not None}
    for key in ("title", "label"):
        if key in given and not isinstance(given[key], str):
            raise InvalidInput(f"plot {key}", "text (a str)", type(given[key]).__name__)
    if "variant" in given and (not isinstance(given["variant"], str) or given["variant"] not in VARIANTS):
        raise InvalidInput("plot variant", "'cos' or 'abs'", given["variant"])
    return given
