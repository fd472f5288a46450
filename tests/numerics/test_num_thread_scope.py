"""``single_threaded_all``: a task gives the same bits in this process as on a Dask worker.

A Dask worker starts with ``OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = MKL_NUM_THREADS = 1``.  Here the
libraries may have started with more threads, or be loaded only inside the task (SciPy's own OpenBLAS,
torch): the scope limits what is loaded, sets the variables for what loads inside it, and pins torch.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from numerics.support.blas import THREAD_VARIABLES, single_threaded_all

threadpoolctl = pytest.importorskip("threadpoolctl")


def test_the_variables_are_one_inside_and_restored_after(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    with single_threaded_all():
        assert all(os.environ[k] == "1" for k in THREAD_VARIABLES)
        assert all(lib["num_threads"] == 1 for lib in threadpoolctl.threadpool_info())
    assert os.environ["OMP_NUM_THREADS"] == "3" and "OPENBLAS_NUM_THREADS" not in os.environ


def test_torch_is_pinned_when_imported():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    with single_threaded_all():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


_TASK = """
import json, sys
{pre}
from verify._reproduce.scale import SCALES
from verify._reproduce.sim_theory import part_3_2
from verify._reproduce.executor import run_job
status, _, text = run_job(part_3_2, (SCALES["smoke"], "constant", 0))
print(json.dumps(json.loads(text)["raw"]["initial"]))
"""


def _run(pre: str, env: dict) -> str:
    out = subprocess.run([sys.executable, "-c", _TASK.format(pre=pre)], capture_output=True, text=True, env=env,
                         timeout=300, check=True)
    return out.stdout.strip()


@pytest.mark.slow
def test_a_task_gives_the_same_bits_as_on_a_single_threaded_worker():
    """The same reproduce task (``sim-3.2``'s hemisphere margins: NumPy, SciPy's HiGHS and BLAS) in a
    process started like a Dask worker, and in default processes, one of them with SciPy's BLAS loaded
    before the task: the same bits.  Before the fix, a BLAS loaded inside the task ran with two threads
    on a two-core AVX-512 Xeon and the last digits differed."""
    base = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    worker = _run("", {**base, **{k: "1" for k in THREAD_VARIABLES}})
    assert _run("", base) == worker
    assert _run("import scipy.optimize, scipy.linalg", base) == worker
