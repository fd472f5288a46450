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


def test_counted_and_text_progress_into_a_log():
    """Into a file: one plain line per quarter, no carriage return, however many updates arrive."""
    stream = io.StringIO()
    tick = counted(TextProgress(stream, "task"), 400)
    for done in range(1, 401):
        tick(done)
    text = stream.getvalue()
    assert "\r" not in text and text.endswith("\n")
    lines = text.splitlines()
    assert [line.split(":")[1].split("%")[0].strip() for line in lines] == ["25", "50", "75", "100"]
    assert all(line.startswith("task: ") for line in lines)
    silent = io.StringIO()
    TextProgress(silent, "x", enabled=False)(0.5)
    assert silent.getvalue() == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_text_progress_on_a_terminal_is_one_redrawn_tqdm_bar():
    stream = _Terminal()
    bar = TextProgress(stream, "task")
    for k in range(1, 11):
        bar(k / 10, f"part {k}")
    text = stream.getvalue()
    assert "\r" in text and text.rstrip("\n").rsplit("\r", 1)[-1].startswith("task: 100.0%")
    assert "part 10" in text and text.endswith("\n")


def test_figure_png_and_blas_limit():
    fig = new_figure((2, 2), dpi=50)
    fig.add_subplot(1, 1, 1).plot([0, 1], [1, 0])
    png = figure_png(fig)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    with single_threaded_blas():
        pass
