"""``verify reproduce`` shows one statistic in its claim table, its JSON and its figures: the median of
the runs with their 10-90% quantile band, clipped to the quantity's range (numerics.spread), the
statistic of ``verify consensus`` and ``verify simulate``.  The committed quick report is checked row
by row: every band lies inside its quantity's range, and the markdown table prints the JSON's numbers."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from numerics.spread import METRIC_RANGES, QUANTILES
from verify._reproduce.figures import grid_figure, rates_figure
from verify._reproduce.records import Measurement, _fmt
from verify._reproduce.stats import QUANTILE_BAND, UNBOUNDED, median_band

DOC = Path(__file__).resolve().parents[2] / "docs" / "reproduce-quick"
BANDS = {QUANTILE_BAND, "clopper-pearson 95%", "extreme", "single run (no band)", "single check"}
RANGES = [  # (what a quantity's name contains, its range): the table the committed report is checked against
    ("final_E_pair", METRIC_RANGES["E_pair"]), ("final_E_abs", METRIC_RANGES["E_first_abs"]),
    ("E_first_block1", METRIC_RANGES["E_first"]), ("E_first_last", METRIC_RANGES["E_first"]),
    ("final_alignment", (0.0, 1.0)), ("share", (0.0, 1.0)), ("final_V", (0.0, math.inf)),
    ("time_to_consensus", (0.0, math.inf)), ("entry_time", (0.0, math.inf)), ("evidence_", METRIC_RANGES["E_first"]),
    ("max_x1_drift", (0.0, math.inf)),
]


def _range(name: str) -> tuple[float, float]:
    return next((rng for key, rng in RANGES if key in name), UNBOUNDED)


def test_the_quantile_band_is_the_consensus_band():
    assert QUANTILE_BAND == f"{100 * QUANTILES[0]:g}-{100 * QUANTILES[1]:g}% quantiles" == "10-90% quantiles"


def test_committed_report_bands_lie_inside_their_ranges_and_the_table_prints_the_json():
    report = json.loads((DOC / "report.json").read_text())
    md = (DOC / "report.md").read_text()
    checked = 0
    for row in report["claims"]:
        for q, raw in row["measurements"].items():
            m = Measurement.from_json(raw)
            assert m.band in BANDS, (q, m.band)
            lo, hi = _range(q)
            assert lo <= m.low <= m.value <= m.high <= hi, (q, raw)  # every printed band inside the range
            if m.band == QUANTILE_BAND:
                assert m.value_range is not None and m.value_range[0] >= lo and m.value_range[1] <= hi, (q, raw)
            assert f"`{q}` = {m.short()}" in md, q  # text and JSON: the same numbers
            checked += 1
    assert checked >= 40


def test_grid_figure_draws_the_tables_median_and_band():
    rng = np.random.default_rng(3)
    t = np.linspace(0.0, 10.0, 6)
    E = np.abs(rng.normal(size=(6, 7))) * 1e-3 + 1e-6
    E[-1, 0] = -2.2e-16 + 1e-6  # a value near the floor: clipping to [0, 1] keeps it
    fig = grid_figure({"constant-identity-full": (t, E)})
    ax = fig.axes[0]
    line = next(ln for ln in ax.get_lines() if ln.get_label().startswith("P constant"))
    m = median_band(E[-1], "E_pair", METRIC_RANGES["E_pair"])
    assert line.get_ydata()[-1] == pytest.approx(m.value, rel=1e-12)
    ys = set()
    for coll in ax.collections:
        for path in coll.get_paths():
            v = path.vertices
            ys |= {round(float(y), 18) for x, y in v if x == pytest.approx(t[-1])}
    assert any(y == pytest.approx(m.low, rel=1e-9) for y in ys) and any(y == pytest.approx(m.high, rel=1e-9) for y in ys)


def test_rates_figure_plots_each_measurements_median_and_band():
    early = {"constant-identity-full": median_band([0.5, 0.7, 0.9, 1.4], "early", UNBOUNDED)}
    late = {"constant-identity-full": median_band([0.2, 0.25, 0.3], "late", UNBOUNDED)}
    fig = rates_figure(early, late)
    for ax, m in zip(fig.axes, (early["constant-identity-full"], late["constant-identity-full"])):
        point = next(ln for ln in ax.get_lines() if len(ln.get_ydata()) == 1)
        assert point.get_ydata()[0] == pytest.approx(m.value)
        segments = [seg for c in ax.collections for seg in c.get_segments()]
        assert any(seg[0][1] == pytest.approx(m.low) and seg[1][1] == pytest.approx(m.high) for seg in segments)
        assert "median" in ax.get_title()


def test_short_never_prints_round_off_as_a_negative_measurement():
    m = median_band([-2.220446049250313e-16, -1e-16, 0.0], "E_pair", METRIC_RANGES["E_pair"])
    assert (m.value, m.low, m.high) == (0.0, 0.0, 0.0)
    assert m.short().startswith("0 (round-off -2.2e-16)")
    assert _fmt(m.value) == "0"


def test_an_extreme_of_a_metric_is_clipped_to_its_range_too():
    from verify._reproduce.stats import extreme

    m = extreme([-2.220446049250313e-16], "E_first at the end", value_range=METRIC_RANGES["E_first"])
    assert (m.value, m.low, m.high, m.raw_min) == (0.0, 0.0, 0.0, -2.220446049250313e-16)
    assert m.short() == "0 (round-off -2.2e-16) (n=1, extreme)"
    assert extreme([0.5, 0.25], "drift").value == 0.5 and extreme([0.5, 0.25], "drift").raw_min is None
