"""The compiled kernels ask LLVM for 512-bit vectors, and the width changes no result bit."""
from __future__ import annotations

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="numba not installed: the compiled kernels are not available")

from numba import njit  # noqa: E402

from numerics import _field_numba as dense  # noqa: E402

_ATTR = '"prefer-vector-width"="512"'


def _field_args(N: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((d, N))
    X /= np.linalg.norm(X, axis=0)
    P = 0.5 * rng.standard_normal((1, d, d))
    U = rng.standard_normal((1, d, d))
    work = [np.zeros((d, N)), np.zeros((d, N)), np.zeros((N, N)), np.zeros((d, N)), np.zeros(N), np.zeros(N)]
    return X, P, U, work


@njit(fastmath={"contract"}, error_model="numpy")
def _axpy(a, x, y):
    dense.wide_vectors()
    for i in range(x.shape[0]):
        y[i] += a * x[i]


def test_the_intrinsic_sets_the_attribute():
    x, y = np.arange(64.0), np.ones(64)
    _axpy(2.0, x, y)
    assert np.array_equal(y, 1 + 2 * np.arange(64.0))
    sig = _axpy.signatures[0]
    assert _ATTR in _axpy.inspect_llvm(sig)
    from llvmlite import binding
    if "+avx512f" in binding.get_host_cpu_features().flatten().split(","):
        assert "zmm" in _axpy.inspect_asm(sig)  # 512-bit registers where the CPU has them


def test_every_kernel_function_asks_for_it():
    """The attribute acts on the function it is called in (and the loops compiled there): every
    compiled function of the three kernel files calls it first, except the allocator."""
    import ast
    import inspect

    from numerics import _dop853_numba, _dop853_step_numba, _field_tiled_numba, _products_numba
    seen = 0
    for module in (dense, _field_tiled_numba, _products_numba, _dop853_numba, _dop853_step_numba):
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.FunctionDef) and any("njit" in ast.unparse(d) for d in node.decorator_list):
                if node.name == "_aligned":
                    continue
                seen += 1
                assert ast.unparse(node.body[1]) == "wide_vectors()", (module.__name__, node.name)
    assert seen == 37


@njit(fastmath={"contract"}, error_model="numpy")
def _plain_field(X, P, U, out, Y, S, V, z, m):
    """The same kernel inlined into a function without the attribute (LLVM's default width)."""
    return dense.field_into(X, P, U, True, True, True, 1.0, out, Y, S, V, z, m)


@pytest.mark.parametrize("N,d", [(32, 16), (13, 5), (7, 3)])
def test_the_width_changes_no_bit(N, d):
    """Each output entry is one lane: the order of its sums is the same at any vector width.  A kernel
    compiled inside a function of another width (``_plain_field``) gives the same bits."""
    X, P, U, (out, Y, S, V, z, m) = _field_args(N, d, seed=N)
    a = dense.field_into(X, P, U, True, True, True, 1.0, out, Y, S, V, z, m).copy()
    b = _plain_field(X, P, U, np.zeros_like(out), Y, S, V, z, m)
    assert np.array_equal(a, b)
    assert np.all(np.isfinite(a)) and np.max(np.abs(a)) > 0
