"""Provenance of a reproduction: versions, machine, seeds, arithmetic, options.

Versions are read from package metadata (no heavy import: torch's version is read, torch is not
imported).  The LLM cases add their own provenance (dtype, device, model source) to the report.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from theorems.provenance import Provenance

from .scale import Scale

PACKAGES = ("consensus-verify", "numpy", "scipy", "sympy", "mpmath", "python-flint", "matplotlib", "torch", "transformers")

SEEDS = {
    "sim-3.2": "preset seeds 1000 + run; hemisphere tokens from numpy default_rng([32, k]) (k = 0 constant P, 1 periodic P)",
    "sim-3.2-late": "tokens from numpy default_rng(321); preset seeds 3000 + draw",
    "sim-4.2": "preset seeds 4000 + run",
    "sim-4.4": "preset seeds from 5001 (random U kept only where the simple-top-eigenvalue predicate holds)",
    "sim-grid": "preset seeds 2000 + run for every cell; P random in depth: default_rng([7000, run, interval]) per unit interval",
    "theorems": "built-in examples of the catalogue (deterministic)",
    "llm": "prompts and random init with seed 0 (llm_checks.prompts.random_prompts, transformers init under torch.manual_seed); "
           "re-drawn random weights (random-fresh): seed 42 + i for pass i >= 1 (the re-draw after pass i - 1)",
}


def base_provenance(scale: Scale, options: Mapping[str, Any]) -> Provenance:
    """The reproduction's provenance before it runs (the runner adds the executor and the wall times)."""
    return Provenance.collect(
        PACKAGES, stamp=True, options=dict(options),
        arithmetic={"simulations": "float64, DOP853 rtol 1e-10 atol 1e-12, tokens renormalised after each step",
                    "llm": "recorded per case (default float32 on cpu)"},
        details={"scale": scale.to_json(), "seeds": dict(SEEDS), "device": {"simulations": "cpu (numpy)"}},
        layout=("machine", "packages", "scale", "options", "seeds", "arithmetic", "device"))


_ABSOLUTE = re.compile(r"(?<![\w.:/-])/(?:[^\s/\"',;()]+/)*[^\s/\"',;()]*")
"""An absolute POSIX path inside a string (not the ``//`` of a URL, not a relative path)."""


def _portable_path(path: str) -> str:
    """``.../site-packages/pkg/file`` -> ``pkg/file`` (where an installed package keeps it); any
    other absolute path -> its last component, marked ``<...>/``."""
    if "/site-packages/" in path:
        return path.split("/site-packages/", 1)[1]
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return f"<...>/{name}" if name else "<...>"


def portable(value: Any) -> Any:
    """``value`` (JSON-like) with every absolute path rewritten by :func:`_portable_path`: a report
    states which files it read, not where this machine keeps them (a committed report must not
    carry a user's directories)."""
    if isinstance(value, str):
        return _ABSOLUTE.sub(lambda m: _portable_path(m.group(0)) if len(m.group(0)) > 1 else m.group(0), value)
    if isinstance(value, Mapping):
        return {k: portable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [portable(v) for v in value]
    return value
