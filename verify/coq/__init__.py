"""Kernel-checked proofs: a theorem's certificates and symbolic steps as a Coq file (docs/coq.md).

``export_theorem(ID, DIR)`` writes ``DIR/theorem_<id>.v``; ``check_coq(PATH)`` compiles it with ``coqc`` and
says, per file, whether the kernel accepted it and which axioms its final theorem rests on.
"""
from __future__ import annotations

from .check import INSTALL, check_coq
from .compose import build, module_name
from .export import export_report, export_theorem
from .records import CoqCheck, CoqSource, ExportRecord, FileCheck, StepExport

__all__ = ["INSTALL", "CoqCheck", "CoqSource", "ExportRecord", "FileCheck", "StepExport", "build", "check_coq",
           "export_report", "export_theorem", "module_name"]
