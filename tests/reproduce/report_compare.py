"""Comparing two reproduce reports: everything but timings and provenance must agree exactly."""
from __future__ import annotations

TIMING_KEYS = {"provenance", "wall_time_s", "load_s", "measure_s", "seconds"}


def without_timings(data):
    """The report without timings and provenance (the only parts that may differ between runs)."""
    if isinstance(data, dict):
        return {k: without_timings(v) for k, v in data.items() if k not in TIMING_KEYS}
    if isinstance(data, list):
        return [without_timings(v) for v in data]
    return data
