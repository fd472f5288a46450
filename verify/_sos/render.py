"""The console text of an :class:`~verify._sos.result.SOSResult` (``verify sos``) and of a
:class:`~verify._sos.result.LyapunovResult` (``verify lyapunov``), read from the records."""
from __future__ import annotations

from typing import Any


def _times(s: Any, blocks: bool) -> str:
    return (f"times: float solve {s.float_solve_s:.3f} s, margin solve {s.margin_solve_s:.3f} s, "
            f"exact rounding+check {s.rounding_s:.3f} s" + (f"; Gram blocks {list(s.gram_blocks)}" if blocks else ""))


def render_sos(result: Any, saved: str = "") -> str:
    """Status, claim, reason, the solver and rounding times (when a solve ran) and ``saved``."""
    lines = [f"sos: {result.status.value.upper()}", f"claim: {result.verdict.witness.get('claim', '')}",
             f"reason: {result.verdict.reason}"]
    if result.certificate is not None or result.stats.float_status:
        lines.append(_times(result.stats, True))
    return "\n".join(lines + ([saved] if saved else []))


def render_lyapunov(result: Any, saved: str = "") -> str:
    """Status, reason, the times (the plain solve is skipped after a positive margin) and ``saved``."""
    lines = [f"lyapunov: {result.status.value.upper()}", f"reason: {result.verdict.reason}"]
    if result.stats.float_status or result.stats.margin_status:
        lines.append(_times(result.stats, False))
    return "\n".join(lines + ([saved] if saved else []))
