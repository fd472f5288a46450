"""Every name a package promises in ``__all__`` exists (a lazy export pointing at a missing module
or attribute would fail only when a user touches it)."""
from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(".".join(p.parent.relative_to(ROOT).parts)
                  for top in ("theorems", "numerics", "verify", "llm_checks") for p in (ROOT / top).rglob("__init__.py"))


def test_the_walk_found_the_packages():
    assert {"theorems", "numerics", "verify", "llm_checks", "theorems.predicates", "verify._sos"} <= set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_in_all_resolves(package):
    module = importlib.import_module(package)
    names = getattr(module, "__all__", None)
    assert names is not None, f"{package} declares no __all__"
    assert len(set(names)) == len(names), f"{package}.__all__ lists a name twice"
    missing = []
    for name in names:
        try:
            getattr(module, name)
        except (AttributeError, ImportError) as exc:
            missing.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not missing, f"{package}.__all__ names that do not resolve: {missing}"
