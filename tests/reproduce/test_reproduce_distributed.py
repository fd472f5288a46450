"""Tasks, cache and executors: an interrupted run resumes to the same report, the serial path
never imports dask, and a small LocalCluster (threads, in-process) gives the serial numbers."""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import subprocess
import sys
import textwrap

import pytest

import numerics.support.progress as progress_module
from verify.cli.main import main
from verify._reproduce import SMOKE, reproduce
from verify._reproduce.tasks import decode, encode
from report_compare import without_timings


ONLY = ["--only", "sim-3.2,sim-4.2,theorems"]  # 8 tasks, a few seconds: keeps CI fast


def _run(argv):
    with contextlib.redirect_stdout(io.StringIO()):
        return main(["reproduce", "--smoke", "--no-llm", "--no-progress", *argv])


def test_an_interrupted_smoke_run_resumes_to_the_same_report(tmp_path, monkeypatch):
    whole = tmp_path / "whole"
    assert _run([*ONLY, "--out", str(whole)]) == 0
    out = tmp_path / "resumed"
    seen, interrupts = [], [1]

    def interrupting(fraction, label=None):  # progress(fraction, label): "k/8 tasks ..." after each task
        seen.append(label or "")
        if (label or "").startswith("4/8 tasks ") and interrupts:
            interrupts.pop()
            raise KeyboardInterrupt

    monkeypatch.setattr(progress_module, "TextProgress", lambda stream, label, enabled: interrupting)  # the CLI's one bar
    assert _run([*ONLY, "--out", str(out)]) == 1
    assert not (out / "report.json").exists() and len(list((out / ".reproduce-cache").glob("*.json"))) == 4
    seen.clear()
    assert _run([*ONLY, "--out", str(out), "--resume"]) == 0
    assert seen[0] == "4/8 tasks from the cache" and len(seen) == 5  # one line for the cache, then 4 tasks run
    assert [label.split()[0] for label in seen[1:]] == ["5/8", "6/8", "7/8", "8/8"]
    a, b = (json.loads((d / "report.json").read_text()) for d in (whole, out))
    assert b["provenance"]["resume"]["tasks_from_cache"] == 4 and b["provenance"]["resume"]["tasks"] == 8
    assert without_timings(a) == without_timings(b)
    assert sorted(p.name for p in out.iterdir()) == ["figures", "report.html", "report.json", "report.md"]


def test_resume_ignores_a_cache_whose_inputs_changed(tmp_path):
    cache = tmp_path / "cache"
    small = dataclasses.replace(SMOKE, runs=2)
    first = reproduce(small, only=["sim-4.2"], cache_dir=cache)
    assert first.provenance["resume"]["tasks_from_cache"] == 0 and len(list(cache.glob("*.json"))) == 3
    again = reproduce(small, only=["sim-4.2"], cache_dir=cache, resume=True)
    assert again.provenance["resume"]["tasks_from_cache"] == 3
    assert without_timings(again.to_json()) == without_timings(first.to_json())
    other = reproduce(dataclasses.replace(small, runs=3), only=["sim-4.2"], cache_dir=cache, resume=True)
    assert other.provenance["resume"]["tasks_from_cache"] == 0  # another scale: other keys


def test_the_codec_round_trips_exactly():
    import numpy as np

    from verify._reproduce.stats import UNBOUNDED, median_band

    part = {"a": np.array([[0.1, 1e-300], [np.pi, -0.0]]), "b": b"\x89PNG", "m": median_band([0.1, 0.2, 0.3], "x", UNBOUNDED),
            "f": 0.1 + 0.2, "n": [1, None, "s"]}
    back = decode(encode(part))
    assert back["a"].tobytes() == part["a"].tobytes() and back["b"] == part["b"] and back["m"] == part["m"]
    assert back["f"] == part["f"] and back["n"] == part["n"]


def test_the_serial_path_imports_no_dask(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        for name in ("dask", "distributed"):
            sys.modules[name] = None  # any import of dask now fails
        from verify.cli.main import main
        rc = main(["reproduce", "--smoke", "--no-llm", "--no-progress", "--only", "theorems", "--out", {str(tmp_path / "r")!r}])
        assert rc == 0, rc
        rc = main(["reproduce", "--smoke", "--no-llm", "--no-progress", "--only", "theorems", "--workers", "2",
                   "--out", {str(tmp_path / "w")!r}])
        assert rc == 2, rc
    """)
    env = dict(os.environ, MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "pip install 'consensus-verify[cluster]'" in done.stderr
    assert (tmp_path / "r" / "report.json").is_file() and not (tmp_path / "w").exists()


def test_a_threaded_local_cluster_gives_the_serial_numbers(tmp_path):
    pytest.importorskip("distributed", reason="needs the cluster extra (dask distributed)")
    from verify._reproduce import DaskExecutor

    serial = reproduce(SMOKE, only=["sim-4.2"])
    executor = DaskExecutor(workers=2, processes=False)
    try:
        dask = reproduce(SMOKE, only=["sim-4.2"], executor=executor)
    finally:
        executor.close()
    assert dask.provenance["executor"]["cluster"] == "LocalCluster (threads)"
    assert without_timings(dask.to_json()) == without_timings(serial.to_json())


@pytest.mark.parametrize("argv, option", [(["--workers", "0"], "--workers"), (["--workers", "two"], "--workers"),
                                          (["--scheduler", "localhost"], "--scheduler"),
                                          (["--workers", "2", "--scheduler", "tcp://h:1"], "--scheduler")])
def test_bad_executor_options_exit_2_naming_the_option(argv, option, tmp_path, capsys):
    try:
        rc = main(["reproduce", "--smoke", "--no-llm", "--no-progress", *ONLY, "--out", str(tmp_path / "r"), *argv])
    except SystemExit as exc:  # argparse's own refusal (mutually exclusive options)
        rc = exc.code
    assert rc == 2 and option in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
