"""Where the tasks of a reproduction run: in this process, or on Dask distributed.

:class:`SerialExecutor` runs the jobs one after another in this process and never imports dask.
:class:`DaskExecutor` submits every job to a Dask cluster: a ``LocalCluster`` of ``workers``
processes started here (one thread each), or an existing scheduler at ``scheduler`` (for example
one started with ``dask scheduler`` / ``dask worker``, or by ``dask-jobqueue`` on SLURM; its
workers need this package installed).  Both yield ``(index, outcome)`` as jobs finish; the runner
reorders them, so the report does not depend on which worker finished first.

A job is ``run_job(fn, args)``: it calls ``fn(*args)`` and returns ``("ok", seconds, text)``
with the part encoded as JSON by :func:`verify._reproduce.tasks.encode`, or ``("error", seconds,
message)``.  Encoding on the worker keeps the transfer small and makes the serial, distributed and
resumed paths combine the same bytes.  Each task draws its randomness from its own seeds, never
from a global stream, so the numbers do not depend on where or in which order it ran.
"""
from __future__ import annotations

import logging
import time
import traceback
import warnings
from typing import Any, Callable, Iterator, Sequence

from theorems.errors import InvalidInput

from .tasks import encode

Job = tuple[str, Callable[..., Any], tuple]
"""``(key, fn, args)``; ``key`` is unique in the run."""
Outcome = tuple[str, float, str]


def run_job(fn: Callable[..., Any], args: tuple) -> Outcome:
    """Run one task with BLAS and OpenMP single-threaded (as on a Dask worker, whatever this
    process's thread count: a multi-threaded reduction may sum in another order and change the
    last bits); an
    exception becomes ``("error", seconds, message)`` with its last frame."""
    from numerics.support.blas import single_threaded_all

    started = time.perf_counter()
    try:
        with single_threaded_all():
            text = encode(fn(*args))
    except Exception as exc:  # a failing task is a result: its case's claims become "not testable here"
        frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame else ""
        return "error", time.perf_counter() - started, f"{type(exc).__name__}: {exc}{where}"
    return "ok", time.perf_counter() - started, text


class SerialExecutor:
    """Every job in this process, in order (no dask import)."""

    def describe(self) -> dict[str, Any]:
        return {"kind": "serial", "workers": 1}

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, Outcome]]:
        for i, (_key, fn, args) in enumerate(jobs):
            yield i, run_job(fn, args)

    def close(self) -> None:
        pass


class DaskExecutor:
    """Jobs on Dask distributed: a ``LocalCluster`` of ``workers`` processes, or ``scheduler``."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None, processes: bool = True) -> None:
        if (workers is None) == (scheduler is None):
            raise InvalidInput("--workers/--scheduler", "exactly one of a worker count or a scheduler address",
                               f"workers={workers}, scheduler={scheduler}")
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise InvalidInput("--workers", "a positive integer", workers)
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InvalidInput("--workers/--scheduler", "Dask distributed installed", "not installed",
                               hint="pip install 'consensus-verify[cluster]'") from None
        self.workers, self.scheduler, self.processes = workers, scheduler, processes
        self._cluster = None
        if scheduler is not None:
            try:
                self._client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise InvalidInput("--scheduler", "the address of a running Dask scheduler (tcp://HOST:PORT)", scheduler,
                                   hint=f"could not connect: {exc}") from None
        else:
            # dask's own logging config sets "distributed" to INFO; with a root handler (the CLI's) every scheduler
            # and nanny start-up line would reach stderr
            logging.getLogger("distributed").setLevel(logging.ERROR)
            with warnings.catch_warnings():  # "Port 8787 is already in use" when another cluster runs: harmless
                warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
                self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                             memory_limit=0, dashboard_address=None, silence_logs=logging.ERROR)
            self._client = Client(self._cluster)

    def describe(self) -> dict[str, Any]:
        info = self._client.scheduler_info()
        return {"kind": "dask distributed", "cluster": "scheduler" if self.scheduler else
                ("LocalCluster (processes)" if self.processes else "LocalCluster (threads)"),
                "scheduler": self.scheduler, "workers": len(info.get("workers", {})),
                "threads_per_worker": 1 if self.workers else None}

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, Outcome]]:
        from distributed import as_completed

        futures = {}
        for i, (key, fn, args) in enumerate(jobs):
            futures[self._client.submit(run_job, fn, args, key=f"reproduce-{key}", pure=False)] = i
        try:
            for future in as_completed(list(futures)):
                yield futures[future], future.result()
        finally:
            self._client.cancel([f for f in futures if not f.done()])

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_executor(workers: int | None = None, scheduler: str | None = None,
                  processes: bool = True) -> SerialExecutor | DaskExecutor:
    """Serial without either argument (dask is then never imported), else :class:`DaskExecutor`."""
    if workers is None and scheduler is None:
        return SerialExecutor()
    return DaskExecutor(workers, scheduler, processes)
