"""The single homes of the shared helpers: BLAS limiter, progress, Figure-to-PNG."""
from __future__ import annotations

import io
import threading

from numerics.support.blas import single_threaded_blas
from numerics.support.png import figure_png, new_figure
from numerics.support.progress import Reporter, TextProgress, counted


def test_reporter_is_monotone_and_thread_safe():
    seen: list[float] = []
    reporter = Reporter(seen.append, parts=4)
    threads = [threading.Thread(target=lambda k=k: [reporter(k, f / 100) for f in range(101)]) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reporter.finish()
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) >= 2


def test_counted_and_text_progress():
    stream = io.StringIO()
    tick = counted(TextProgress(stream, "task"), 4)
    for done in range(1, 5):
        tick(done)
    text = stream.getvalue()
    assert "task:  25.0%" in text and "100.0%" in text and text.endswith("\n")
    silent = io.StringIO()
    TextProgress(silent, "x", enabled=False)(0.5)
    assert silent.getvalue() == ""


def test_figure_png_and_blas_limit():
    fig = new_figure((2, 2), dpi=50)
    fig.add_subplot(1, 1, 1).plot([0, 1], [1, 0])
    png = figure_png(fig)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    with single_threaded_blas():
        pass
