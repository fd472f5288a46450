"""How the API calls name their options in errors, and the error for an option that has no effect.

The CLI and the API share the checks: the API names an option by its keyword (``t_end``), the
CLI by its flag (``--t-end``), so each check takes the naming function.
"""
from __future__ import annotations

from theorems.errors import InvalidInput


class OptionConflict(InvalidInput):
    """An option that cannot be combined with another, or that would have no effect in this mode."""

    def __init__(self, field: str, message: str, got: object = None) -> None:
        super().__init__(field, f"{field} left out", got)
        self.args = (f"{field}: {message}",)  # the message says why; field, expected and got feed the JSON error


def keyword(name: str) -> str:
    """How the API names an option in its errors: the keyword argument."""
    return name


def flag(name: str) -> str:
    """How the CLI names an option in its errors: ``--t-end``, ``--json``."""
    return "--json" if name == "json_out" else "--" + name.replace("_", "-")
