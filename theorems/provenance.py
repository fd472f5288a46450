"""Package versions for the provenance of reports, read from metadata (nothing heavy is imported)."""
from __future__ import annotations

from importlib import metadata
from typing import Iterable


def package_versions(packages: Iterable[str]) -> dict[str, str | None]:
    """``{package: version}``; ``None`` for a package that is not installed."""
    out: dict[str, str | None] = {}
    for pkg in packages:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    return out
