"""Audit real transformer weights against the paper's hypotheses and measure consensus in depth.

The only package of the toolkit that uses torch/transformers, and only lazily: importing
``llm_checks`` needs neither; calling a function that does raises
:class:`theorems.errors.MissingDependency` with ``pip install 'consensus-verify[llm]'``.

Public API (loaded on first access)::

    load_model(name, weights=None, random_init=False, seed=0, dtype="float32", device="cpu")
    resolve_model(model, ...) -> LoadedModel   # name, path, hub id, PreTrainedModel, HookedTransformer
    adapt(model) -> ModelLayout                       # canonical per-head W_Q, W_K, W_V, W_O, ...
    audit(loaded, theorems=None, prompts=None) -> AuditReport
    measure_consensus(loaded, ConsensusOptions(...), progress=None) -> ConsensusResult
    consensus_png(result) -> bytes;  render_audit(report) / render_consensus(result) -> str
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "load_model": "loaders",
    "resolve_model": "sources",
    "is_model_object": "sources",
    "LoadedModel": "loaders",
    "MODELS": "registry",
    "adapt": "adapters",
    "ModelLayout": "layout",
    "LayerAttention": "layout",
    "audit": "audit",
    "AuditReport": "audit",
    "THEOREMS": "audit",
    "measure_consensus": "consensus",
    "ConsensusOptions": "consensus",
    "ConsensusResult": "consensus",
    "consensus_metrics": "metrics",
    "measured_hemisphere": "measured_hemisphere",
    "random_prompts": "prompts",
    "consensus_png": "plot",
    "render_audit": "render",
    "render_consensus": "render",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        module = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
