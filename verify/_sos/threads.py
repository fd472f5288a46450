"""One BLAS thread inside a block (speed only: the float hints of the SOS search and re-check).

The same limit as :func:`numerics.support.blas.single_threaded_blas`, without importing the
``numerics`` package (about a second: the re-check must start fast).  BLAS threads on the small
dense kernels here (SCS's eigendecompositions, a Cholesky factor of a Gram block) only
oversubscribe a shared machine: a 330 x 330 Cholesky factorisation took 1.4 s with OpenBLAS's
default threads on a busy 2-core machine and milliseconds on one thread.  Nothing is limited
without threadpoolctl.
"""
from __future__ import annotations

import contextlib
from functools import lru_cache
from typing import Iterator


@lru_cache(maxsize=1)
def _controller():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Scoped: BLAS limited to one thread inside the block, restored afterwards."""
    controller = _controller()
    if controller is None:
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        yield
