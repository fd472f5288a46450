"""``Report.plot()`` / :func:`verify.report.figure_for`: one Figure per plottable kind, drawn from
the record or from today's CLI payload keys, with the data it was given; the figure defects of
issue 15 stay fixed; non-plottable kinds raise InvalidInput; the PNG wrappers still return PNGs."""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
from scipy.stats import t as student
import pytest
from matplotlib.figure import Figure

from numerics.dop853 import DOP853
from numerics.evidence import batch_summary
from numerics.metrics import E_pair, V_first
from numerics.plotting import FLOOR, plot_trajectory, quantile_band, trajectory_figure
from numerics.presets import preset, with_random_tokens
from theorems.errors import InvalidInput
from verify.report import NOTHING_TO_DRAW, Report, figure_for
from verify.simulation import Simulation

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def causal_batch():
    system = preset("constant-identity-causal", N=5, d=3, seed=1)
    return DOP853().integrate(with_random_tokens(system, 6, 0), 6.0, samples=31)


def _lines(ax) -> dict[str, np.ndarray]:
    return {line.get_label(): np.asarray(line.get_ydata(), dtype=float) for line in ax.get_lines()}


def _band_edges(collection, x: np.ndarray) -> dict[float, set[float]]:
    """y values of a fill_between polygon at each x (the band's low and high edges)."""
    v = collection.get_paths()[0].vertices
    return {float(xi): {float(y) for xv, y in v if np.isclose(xv, xi, rtol=0, atol=1e-12)} for xi in x}


def _simulate_report(traj, mask: str, **payload) -> Report:
    body = {"status": "completed", "instance": "test", "mask": mask, **payload}
    if traj is None:
        return Report("simulate", body, "text")
    system = SimpleNamespace(name="test", mask=mask, N=5, d=3, H=1, beta=1)
    record = Simulation(system, {"kind": "instance", "file": None}, {}, traj, {})
    return Report("simulate", record.to_json() | payload, "text", record=record)


def test_simulate_record_draws_median_and_quantile_band_with_V_only_when_causal(causal_batch):
    X = causal_batch.states
    fig = _simulate_report(causal_batch, "causal").plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    lines = _lines(ax)
    assert set(lines) == {"E_first: median of 6", "E_pair: median of 6", "V (Thm 4.2): median of 6"}
    np.testing.assert_array_equal(lines["E_pair: median of 6"], np.maximum(np.median(E_pair(X), axis=1), FLOOR))
    np.testing.assert_array_equal(lines["V (Thm 4.2): median of 6"], np.maximum(np.median(V_first(X), axis=1), FLOOR))
    band = next(c for c in ax.collections if c.get_label() == "E_pair: 10-90% of runs")
    low, high = np.quantile(E_pair(X), [0.1, 0.9], axis=1)
    edges = _band_edges(band, causal_batch.times)
    for i, t in enumerate(causal_batch.times):
        got = sorted(edges[float(t)])
        np.testing.assert_allclose([got[0], got[-1]], [max(low[i], FLOOR), max(high[i], FLOOR)], rtol=1e-12)
    full = _simulate_report(causal_batch, "full").plot()
    assert not any("V" in label for label in _lines(full.axes[0]))
    assert len(fig.axes) == 2 and fig.axes[1].name == "3d"  # d = 3: token paths of run 0


def test_trajectory_legend_sits_outside_the_data(causal_batch):
    fig = trajectory_figure(causal_batch, variant="abs", title="4.4-sym", mask="causal")
    fig.canvas.draw()
    ax = fig.axes[0]
    legend, box = ax.get_legend().get_window_extent(), ax.get_window_extent()
    assert legend.y1 <= box.y0 + 1  # below the axes: it covers no data
    assert "E_first (|cos|): median of 6" in _lines(ax)


def test_a_payload_alone_is_never_drawn(causal_batch):
    batch = batch_summary(causal_batch).to_json()
    for report in (_simulate_report(None, "full", batch=batch), _simulate_report(None, "full", final={"t": 6.0}),
                   Report("audit", {"verdict": "fails", "layout": {"d_model": 16}, "heads": {"p": [[1.0]]}}, ""),
                   Report("consensus", {"status": "completed", "n_blocks": 1, "metrics": {}}, ""),
                   Report("depth", {"verdict": "holds", "bound": 3, "observed": 2.0}, "")):
        with pytest.raises(InvalidInput) as info:
            report.plot()
        assert info.value.field == "plot" and "record" in info.value.expected


def test_quantile_band_is_not_mean_plus_minus_t_and_never_reaches_the_floor_spuriously():
    values = np.array([[1e-10] * 9 + [1.0]] * 4)  # one outlier: mean - t half-width < 0
    median, low, high = quantile_band(values)
    half = student.ppf(0.975, values.shape[1] - 1) * values.std(axis=1, ddof=1) / np.sqrt(values.shape[1])
    assert np.all(values.mean(axis=1) - half < 0)
    np.testing.assert_array_equal(median, np.full(4, 1e-10))
    np.testing.assert_array_equal(low, np.full(4, 1e-10))
    np.testing.assert_allclose(high, np.full(4, 0.9 * 1e-10 + 0.1 * 1.0), rtol=1e-12)  # position 8.1 of 0..9: 10% of the way to the outlier


def test_sim_grid_panels_draw_median_and_the_10_90_band():
    from verify._reproduce.figures import grid_figure, grid_png

    t = np.linspace(0, 10, 11)
    rates = np.array([0.5, 1.0, 1.5, 2.0, 40.0])
    E = np.exp(-np.outer(t, rates))
    curves = {f"{p}-{u}-{m}": (t, E * (1 + k)) for k, p in enumerate(("constant", "periodic"))
              for u in ("identity", "random") for m in ("full", "causal")}
    fig = grid_figure(curves)
    assert len(fig.axes) == 4 and fig.axes[0].get_yscale() == "log"
    ax = next(a for a in fig.axes if a.get_title() == "U = I, full attention")
    lines = _lines(ax)
    np.testing.assert_allclose(lines["P periodic: median of 5"], np.maximum(np.median(2 * E, axis=1), FLOOR), rtol=1e-12)
    band = next(c for c in ax.collections if c.get_label() == "P constant: 10-90% of runs")  # the claim table's band
    low, high = np.quantile(E, [0.1, 0.9], axis=1)
    edges = _band_edges(band, t)
    for i in range(t.size):
        got = sorted(edges[float(t[i])])
        np.testing.assert_allclose([got[0], got[-1]], [max(low[i], FLOOR), max(high[i], FLOOR)], rtol=1e-12)
    assert all(a.get_legend() is None for a in fig.axes) and len(fig.legends) == 1  # one legend, outside the panels
    assert grid_png(curves).startswith(PNG)


def _consensus_record(E: dict[str, np.ndarray], n_blocks: int):
    from llm_checks.consensus import ConsensusOptions, ConsensusResult

    n = E["E_first"].shape[0]
    return ConsensusResult(ConsensusOptions(prompts=n, tokens=8, passes=2, ffn=False, weights_mode="random"),
                           {"model": "toy"}, n_blocks, E, np.zeros((n, 8), dtype=np.int64))


def _consensus_report(E: dict[str, np.ndarray], n_blocks: int) -> Report:
    return Report("consensus", {"status": "completed"}, "", record=_consensus_record(E, n_blocks))


def test_consensus_record_keeps_E_first_visible_when_equal_to_E_first_abs():
    rng = np.random.default_rng(0)
    base = np.exp(-np.arange(12) / 4)[None, :] * (0.8 + 0.2 * rng.random((5, 1)))
    E = {"E_first": base, "E_first_abs": base.copy(), "E_pair": base ** 2}
    fig = _consensus_report(E, 6).plot()
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    first, absolute = lines["E_first: median of 5"], lines["E_first_abs: median of 5"]
    np.testing.assert_allclose(first.get_ydata(), np.median(base, axis=0), rtol=1e-12)
    np.testing.assert_allclose(absolute.get_ydata(), first.get_ydata(), rtol=1e-12)
    assert first.get_linewidth() > absolute.get_linewidth() and absolute.get_zorder() > first.get_zorder()
    assert first.get_linestyle() == "-" and absolute.get_linestyle() != "-"  # dashes on top of the wide line
    assert "E_first = E_first_abs at every layer" in ax.get_title()
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    differ = dict(E, E_first_abs=base * 0.5)
    assert "E_first = E_first_abs" not in _consensus_report(differ, 6).plot().axes[0].get_title()


def test_consensus_record_and_refusals():
    E = {"E_first": np.full((3, 4), 0.5), "E_first_abs": np.full((3, 4), 0.4), "E_pair": np.full((3, 4), 0.3)}
    fig = _consensus_report(E, 2).plot(title="mine")
    assert fig.axes[0].get_title() == "mine" and fig.axes[0].get_yscale() == "linear"  # a span below 10x: linear axis
    np.testing.assert_array_equal(_lines(fig.axes[0])["E_pair: median of 3"], np.full(4, 0.3))
    with pytest.raises(InvalidInput, match="options of a consensus figure"):
        _consensus_report(E, 2).plot(variant="abs")


def test_audit_record_heatmaps_show_the_tables():
    rng = np.random.default_rng(1)
    heads = {name: rng.random((3, 4)) for name in ("U_skew_share", "U_dist_identity", "p")}
    from llm_checks.audit import AuditReport
    from llm_checks.measure import Measurements

    record = AuditReport({"model": "toy"}, {"d_model": 16}, Measurements(heads, {}, 0.0), (), (), {})
    payload = {"verdict": "holds"}
    fig = Report("audit", payload, "", record=record).plot()
    images = [ax.get_images()[0] for ax in fig.axes if ax.get_images()]
    assert len(images) == 3
    for image, name in zip(images, ("U_skew_share", "U_dist_identity", "p")):
        np.testing.assert_array_equal(np.asarray(image.get_array()), heads[name])
        assert image.get_clim()[0] <= 0.0 <= image.get_clim()[1]  # the colour bar shows its reference value 0
    assert "3 layers x 4 heads" in fig.get_suptitle()
    panels = Figure().subplots(1, 3)
    assert Report("audit", payload, "", record=record).plot(ax=panels) is panels[0].figure  # ax=: one Axes per panel
    with pytest.raises(InvalidInput, match="3 matplotlib Axes"):
        Report("audit", payload, "", record=record).plot(ax=panels[0])
    with pytest.raises(InvalidInput, match="record"):
        Report("audit", payload, "").plot()


def test_depth_record_draws_simulation_and_envelope():
    from verify._depth import certify_depth
    from verify._depth.defaults import default_instance

    record = certify_depth("3.2", default_instance("3.2"), Fraction(1, 100), "layers", Fraction(1, 2))
    payload = record.to_json()
    fig = Report("depth", payload, "", record=record).plot(label="3.2")
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    simulated = next(line for label, line in lines.items() if label.startswith("3.2: simulated"))
    np.testing.assert_array_equal(simulated.get_ydata(), np.maximum(record.evidence["values"], 1e-16))
    assert any(label.startswith("3.2: certified envelope, bound 795") for label in lines)
    with pytest.raises(InvalidInput, match="record"):
        Report("depth", payload, "").plot()


def test_theorem_reintegrates_its_evidence_and_refuses_without_it():
    from verify._theorem.check import check_theorem

    record = check_theorem("4.2")
    fig = Report("theorem", record.to_json(), "", record=record).plot()
    lines = _lines(fig.axes[0])
    assert set(lines) == {"E_first", "E_pair", "V (Thm 4.2)"}  # 4.2 is causal: V drawn
    assert lines["E_pair"].size == record.evidence["integrator"]["samples"]
    assert lines["E_pair"][-1] == pytest.approx(max(record.evidence["final"]["E_pair"], FLOOR), rel=1e-9, abs=1e-14)
    with pytest.raises(InvalidInput, match="record"):
        Report("theorem", record.to_json(), "").plot()
    system = preset("constant-identity-causal", N=5, d=3, seed=3)
    other = dataclasses.replace(record, hypotheses=dataclasses.replace(record.hypotheses, system=system))
    with pytest.raises(InvalidInput, match="re-integrates"):  # the drawn run is checked against the recorded one
        other.figure()
    with pytest.raises(InvalidInput, match="payload is its record's JSON"):  # a report pairing a payload and another record
        Report("theorem", record.to_json(), "", record=other).plot()
    with pytest.raises(InvalidInput, match="record"):  # a look-alike without the record's own figure is not drawn
        Report("theorem", record.to_json(), "", record=SimpleNamespace(hypotheses=other.hypotheses)).plot()
    bare = check_theorem("4.2", simulate=False)
    with pytest.raises(InvalidInput, match="numerical evidence"):
        Report("theorem", bare.to_json(), "", record=bare).plot()


@pytest.mark.parametrize("kind", ["list", "sos", "lyapunov", "recheck", "assumptions", "error", "reproduce"])
def test_kinds_with_nothing_to_draw_raise_invalid_input(kind):
    body = {"error": {"message": "x"}} if kind == "error" else {"status": "ok"}
    with pytest.raises(InvalidInput) as info:
        Report(kind, body, "").plot()
    assert info.value.field == "plot" and info.value.got == kind and info.value.expected == NOTHING_TO_DRAW[kind]
    with pytest.raises(InvalidInput, match="verify.report.Report"):
        figure_for({"kind": "simulate"})


def test_png_wrappers_still_return_deterministic_png_bytes(causal_batch):
    from llm_checks.consensus import ConsensusOptions, ConsensusResult
    from llm_checks.plot import consensus_png
    from llm_checks.plot_audit import audit_png
    from verify._reproduce.figures import compact_png, curves_png, rates_png
    from verify._reproduce.records import Measurement

    first = plot_trajectory(causal_batch, title="x", mask="causal")
    assert first.startswith(PNG) and plot_trajectory(causal_batch, title="x", mask="causal") == first
    m = Measurement(1.0, 0.9, 1.1, 4, "rate", "student-t 95%")
    assert rates_png({"constant-identity-full": m}, {"constant-identity-full": m}).startswith(PNG)
    assert compact_png(curves_png({"a": np.full((3, 6), 0.5), "b": np.linspace(1, 0.01, 18).reshape(3, 6)}, "t", 3)).startswith(PNG)
    E = {k: np.full((2, 4), v) for k, v in (("E_first", 0.5), ("E_first_abs", 0.5), ("E_pair", 0.2))}
    result = ConsensusResult(ConsensusOptions(prompts=2, tokens=4, passes=2), {"model": "toy"}, 2, E, np.zeros((2, 4), int))
    assert consensus_png(result).startswith(PNG)
    heads = {k: np.eye(2) for k in ("U_skew_share", "U_dist_identity", "p")}
    from llm_checks.audit import AuditReport
    from llm_checks.measure import Measurements

    assert audit_png(AuditReport({"model": "toy"}, {"d_model": 8}, Measurements(heads, {}, 0.0), (), (), {})).startswith(PNG)
    with pytest.raises(InvalidInput, match="mask"):
        plot_trajectory(causal_batch, mask="sideways")


def test_figures_show_in_jupyter_and_never_touch_pyplot():
    import subprocess
    import sys

    code = ("import sys, numpy as np\n"
            "from numerics.plotting import metrics_figure\n"
            "from numerics.support.plot_layers import consensus_curves_figure, heatmaps_figure\n"
            "from verify._reproduce.figures import grid_figure\n"
            "t = np.linspace(0, 1, 5); E = np.exp(-np.outer(t, [1.0, 2.0, 3.0]))\n"
            "figs = [metrics_figure(t, {'E_pair': E}), grid_figure({'constant-identity-full': (t, E)}),\n"
            "        consensus_curves_figure({k: E.T for k in ('E_first', 'E_first_abs', 'E_pair')}, 2, 'x'),\n"
            "        heatmaps_figure([('a', np.eye(2), 'b')], title='c')]\n"
            "assert all(f._repr_png_().startswith(b'\\x89PNG') for f in figs)\n"
            "print('matplotlib.pyplot' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "False"


def test_plot_draws_into_an_existing_axes(causal_batch):
    """``report.plot(ax=ax)`` / ``record.figure(ax=ax)`` draw into the caller's Axes and return its Figure."""
    from numerics.support.png import new_figure
    from verify._depth import certify_depth
    from verify._depth.defaults import default_instance

    fig = new_figure((8, 3))
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    assert _simulate_report(causal_batch, "causal").plot(ax=left) is fig
    assert len(fig.axes) == 2 and "E_pair: median of 6" in _lines(left)  # no sphere panel added
    depth = certify_depth("3.2", default_instance("3.2"), Fraction(1, 100), "layers", Fraction(1, 2))
    assert Report("depth", depth.to_json(), "", record=depth).plot(ax=right, label="3.2") is fig
    assert any(label.startswith("3.2: simulated") for label in _lines(right)) and len(fig.axes) == 2
    with pytest.raises(InvalidInput, match="Axes"):
        _simulate_report(causal_batch, "causal").plot(ax="left")
