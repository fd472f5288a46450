"""Shared utilities of the toolkit, not numerics: the progress protocol and its text renderer
(:mod:`.progress`), BLAS thread limits (:mod:`.blas`), PNG output of matplotlib figures
(:mod:`.png`) and the figures of per-layer curves and audit heatmaps (:mod:`.plot_layers`).

They live under :mod:`numerics` because both :mod:`verify` and :mod:`llm_checks` build on it and
neither may import the other; :mod:`theorems`, the base, stays free of plotting and BLAS control.
"""

__all__: list[str] = []  # modules only
