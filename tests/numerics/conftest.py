"""Fixtures of the numerics tests."""
from __future__ import annotations

import pytest

from num_helpers import build_system


@pytest.fixture
def make_system():
    return build_system
