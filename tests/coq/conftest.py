"""``coqc`` for the Coq tests: skipped with the install command when absent, except in CI (``CI`` set), where a
missing ``coqc`` is a failure (``.ci/run`` installs it)."""
from __future__ import annotations

import os
import shutil

import pytest

from verify.coq import INSTALL


@pytest.fixture
def coqc() -> str:
    path = shutil.which("coqc")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"coqc is missing in CI; .ci/run installs it with: {INSTALL}")
        pytest.skip(f"coqc is not installed ({INSTALL})")
    return path
