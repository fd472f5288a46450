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


@contextlib.contextmanager
def single_threaded_all() -> Iterator[None]:
    """Scoped: BLAS *and* OpenMP limited to one thread (for bit-reproducible tasks: a
    multi-threaded reduction may sum in another order and change the last bits)."""
    controller = _controller()
    if controller is None:
        yield
        return
    with controller.limit(limits=1):
        yield


__all__ = ["single_threaded_all", "single_threaded_blas"]
