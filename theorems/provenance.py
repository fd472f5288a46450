"""Provenance of a result: the one record every report's ``provenance`` comes from.

A :class:`Provenance` says what produced a result: the versions of the packages involved (read
from metadata; nothing heavy is imported: torch's version is read, torch is not), optionally the
machine (Python, platform; a reproduction adds the CPU count and a UTC stamp), the options, the
arithmetic, the wall time and command-specific ``details`` (seeds, the scale of a reproduction,
the arb precision of a depth bound).  :meth:`Provenance.to_json` is the JSON object the reports
carry; ``layout`` fixes the order of its keys and ``packages_key`` the name of the version table
(``versions``, or ``packages`` in the ``sos`` / ``depth`` reports), so every report's JSON keeps
its published shape.
"""
from __future__ import annotations

import datetime
import os
import platform
import time
from dataclasses import dataclass, field, replace
from importlib import metadata
from typing import Any, Iterable, Mapping

SECTIONS = ("machine", "packages", "options", "arithmetic", "wall_time_s")
"""The named parts of a provenance; any other entry of ``layout`` is a key of ``details``."""


def package_versions(packages: Iterable[str]) -> dict[str, str | None]:
    """``{package: version}``; ``None`` for a package that is not installed."""
    out: dict[str, str | None] = {}
    for pkg in packages:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def machine(stamp: bool = False) -> dict[str, Any]:
    """Python and platform; with ``stamp`` also the UTC time first and the CPU count last."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    out = {"generated_utc": now} if stamp else {}
    out.update(python=platform.python_version(), platform=platform.platform())
    return out | ({"cpu_count": os.cpu_count()} if stamp else {})


@dataclass(frozen=True)
class Provenance:
    """What produced a result (module docstring).  Frozen; :meth:`to_json` returns a fresh dict.

    ``options`` / ``arithmetic`` / ``machine`` / ``wall_time_s`` are left out of the JSON when
    ``None``; ``details`` entries named in ``layout`` take their place there, the others follow."""

    packages: Mapping[str, str | None]
    options: Mapping[str, Any] | None = None
    arithmetic: Any = None
    machine: Mapping[str, Any] | None = None
    wall_time_s: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    layout: tuple[str, ...] = SECTIONS
    packages_key: str = "versions"

    @classmethod
    def collect(cls, packages: Iterable[str], *, with_machine: bool = False, stamp: bool = False,
                started: float | None = None, **fields: Any) -> "Provenance":
        """The versions of ``packages`` now; ``with_machine`` / ``stamp``: :func:`machine`; ``started``:
        a ``time.perf_counter()`` reading, the wall time being measured from it (3 decimals)."""
        if started is not None:
            fields["wall_time_s"] = round(time.perf_counter() - started, 3)
        return cls(package_versions(packages), machine=machine(stamp) if with_machine or stamp else None, **fields)

    def with_details(self, **details: Any) -> "Provenance":
        """A copy with ``details`` added (after the existing ones)."""
        return replace(self, details={**self.details, **details})

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for part in self.layout:
            if part == "machine":
                out.update(self.machine or {})
            elif part == "packages":
                out[self.packages_key] = dict(self.packages)
            elif part in SECTIONS:
                value = getattr(self, part)
                if value is not None:
                    out[part] = dict(value) if isinstance(value, Mapping) else value
            elif part in self.details:
                out[part] = self.details[part]
        out.update((k, v) for k, v in self.details.items() if k not in self.layout)
        return out
