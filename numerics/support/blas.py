"""One BLAS thread limiter for the whole toolkit (numerics' batched integrators, llm_checks' factors).

Why one thread: the products in these loops are small (``N x d`` per instance, ``D x 2 d_head`` per
head) or memory-bound, and BLAS threads on them only compete with the workers and with each other
(a 256-instance DOP853 batch ran 4-5x slower, stacked QR/SVD 10-100x slower, with OpenBLAS's
default threads on a busy 2-core machine).  The limit is process-wide while it lasts (BLAS has no
per-thread setting) and is restored afterwards.  Without threadpoolctl nothing is limited (set
``OPENBLAS_NUM_THREADS=1`` instead); the controller is looked up once (about 1 ms).
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
from functools import lru_cache
from typing import Iterator

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def _controller():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        log.info("threadpoolctl missing: BLAS thread count left as is")
        return None
    return ThreadpoolController()


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Scoped: BLAS limited to one thread inside the block (nothing changes without threadpoolctl)."""
    controller = _controller()
    if controller is None:
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        yield


THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""What a Dask worker is started with (``1`` each, dask's default): a library loaded inside
:func:`single_threaded_all` reads them, so it starts single-threaded there as on a worker."""


@contextlib.contextmanager
def single_threaded_all() -> Iterator[None]:
    """Scoped: BLAS, OpenMP and torch's intra-op pool at one thread, so a task gives the same bits
    here as on a Dask worker (a multi-threaded reduction may sum in another order and change the
    last bits; measured on an AVX-512 Xeon with OpenBLAS and torch).

    * libraries already loaded: limited through a fresh threadpoolctl controller (a cached one
      misses a BLAS that was loaded after it, e.g. SciPy's own OpenBLAS on first use);
    * libraries loaded inside the block: :data:`THREAD_VARIABLES` are ``1`` while it lasts (restored
      afterwards), which is what they read when they start;
    * torch, when it is already imported (this module never imports it): ``torch.set_num_threads(1)``
      for the block; imported inside it, torch sizes its pool from ``OMP_NUM_THREADS`` and keeps one
      thread afterwards, as on a worker."""
    saved = {k: os.environ.get(k) for k in THREAD_VARIABLES}
    torch = sys.modules.get("torch")
    torch_threads = torch.get_num_threads() if torch is not None and hasattr(torch, "get_num_threads") else None
    os.environ.update({k: "1" for k in THREAD_VARIABLES})
    try:
        if torch_threads is not None:
            torch.set_num_threads(1)
        controller = _fresh_controller()
        if controller is None:
            yield
        else:
            with controller.limit(limits=1):
                yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if torch_threads is not None:
            torch.set_num_threads(torch_threads)


def _fresh_controller():
    """A controller that sees every library loaded so far (about 1 ms), or None without threadpoolctl."""
    if _controller() is None:
        return None
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


__all__ = ["single_threaded_all", "single_threaded_blas"]
