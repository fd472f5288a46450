"""The base of the compiled kernels (private): their flags, the cache-key digest, the 512-bit
vector request, and explicit 8-lane float64 vectors for the product blocks
(:mod:`numerics._products_numba`), the exponentials (:mod:`numerics._field_numba`) and the step
loop's arithmetic (:mod:`numerics._dop853_step_numba`).

``f64x8`` is LLVM's ``<8 x double>`` as a numba type: a value held in one 512-bit register (two or
four narrower ones where the CPU has no AVX-512; every lane still computes its own entry).  The
intrinsics below load, store and combine such values with one IEEE operation per lane each, so code
written with them rounds exactly as the scalar code it mirrors: :func:`fma` and :func:`exp_lanes` are
the scalar and the vector form of the same sequence of roundings.  Nothing here is cached on its
own; the compiled functions that use it are cached only inside the keyed entry points of
:mod:`numerics._dop853_numba`, whose key covers this file.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic, models, register_model

LOG2E = 1.4426950408889634
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
EXP_POLY = np.array([1.0, 1.0, 0.5000000000000019, 0.1666666666666668, 0.0416666666664881, 0.008333333333319601,
                     0.0013888888952314775, 0.00019841269890047113, 2.4801485482328494e-05, 2.755724091857897e-06,
                     2.763263963904103e-07, 2.5110037605963777e-08])
"""``exp(r) ~ sum_k c_k r^k`` on ``|r| <= ln2/2``: ``mpmath.chebyfit(mpmath.exp, [-ln2/2, ln2/2], 12)`` at
50 digits (a near-minimax degree-11 fit, largest error 3.2e-18), rounded to float64.  Two terms
fewer than the Taylor polynomial of the same accuracy (degree 13), 4% of the whole run (measured)."""
EXP_LO, EXP_HI = -708.0, 709.0
"""Arguments of the exponential are clamped to this range (below, the true value is < 3.3e-308)."""


FIELD = dict(nogil=True, fastmath={"contract"}, error_model="numpy")
"""The compiled field's flags: only fused multiply-add contraction (no reassociation, no finite-math
assumptions).  Not cached on their own: the field's functions include this file's code, and are
cached only as part of the keyed entry points of :mod:`numerics._dop853_numba`."""
INLINE = dict(FIELD, inline="always")
"""Small kernels inlined (numba IR) into their caller: no call, no reference counts on their arrays."""


def source_digest(*files: str) -> str:
    """SHA-256 of the files' bytes: the cache key of compiled functions that include their code."""
    h = hashlib.sha256()
    for f in files:
        h.update(Path(f).read_bytes())
    return h.hexdigest()


@intrinsic
def wide_vectors(typingctx):
    """Mark the function being compiled ``"prefer-vector-width"="512"`` (an LLVM function attribute;
    a call emits no code).  LLVM's tuning for Intel's AVX-512 parts prefers 256-bit vectors, which
    halves the width of these FMA-bound product loops: on a Xeon whose LLVM name is ``rocketlake``
    the batch of ``256 x (N = 32, d = 16)`` ran 1.27x faster with 512-bit vectors (docs/dop853-kernel.md).
    Where the CPU has no 512-bit vectors LLVM uses the widest it has; the order of every sum is
    unchanged (each output entry is its own lane), so the results are the same bits at either width."""
    def codegen(context, builder, signature, args):
        attrs = builder.function.attributes
        set.add(attrs, '"prefer-vector-width"="512"')  # a string attribute: llvmlite's add() knows keywords only
        return context.get_dummy_value()
    return types.none(), codegen


class F64x8(types.Type):
    """Eight float64 lanes (LLVM's ``<8 x double>``)."""

    def __init__(self):
        super().__init__(name="f64x8")


f64x8 = F64x8()
_D = ir.DoubleType()
_VEC = ir.VectorType(_D, 8)
_I64 = ir.IntType(64)
register_model(F64x8)(lambda dmm, fe_type: models.PrimitiveModel(dmm, fe_type, _VEC))


def _lanes_at(context, builder, aryty, ary, idx):
    """Address of the eight entries that start at ``A[idx]`` (last axis contiguous, no wraparound)."""
    arr = context.make_array(aryty)(context, builder, ary)
    ptr = cgutils.get_item_pointer(context, builder, aryty, arr, list(idx), wraparound=False)
    return builder.bitcast(ptr, _VEC.as_pointer())


def _fn(builder, name, ty, n):
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(ty, [ty] * n), name)


def _splat(builder, x):
    ty = _VEC if isinstance(x.type, ir.DoubleType) else ir.VectorType(x.type, 8)
    one = builder.insert_element(ir.Constant(ty, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(one, ir.Constant(ty, ir.Undefined), ir.Constant(ir.VectorType(ir.IntType(32), 8), [0] * 8))


@intrinsic
def vload(typingctx, A, i, j):
    """``A[i, j : j + 8]`` of a 2-d float64 array whose last axis is contiguous."""
    def codegen(context, builder, signature, args):
        return builder.load(_lanes_at(context, builder, signature.args[0], args[0], args[1:]), align=8)
    return f64x8(A, i, j), codegen


@intrinsic
def vstore(typingctx, A, i, j, v):
    """``A[i, j : j + 8] = v`` (last axis contiguous)."""
    def codegen(context, builder, signature, args):
        builder.store(args[3], _lanes_at(context, builder, signature.args[0], args[0], args[1:3]), align=8)
        return context.get_dummy_value()
    return types.none(A, i, j, v), codegen


@intrinsic
def vload1(typingctx, a, i):
    """``a[i : i + 8]`` of a contiguous 1-d float64 array."""
    def codegen(context, builder, signature, args):
        return builder.load(_lanes_at(context, builder, signature.args[0], args[0], args[1:]), align=8)
    return f64x8(a, i), codegen


@intrinsic
def vstore1(typingctx, a, i, v):
    """``a[i : i + 8] = v`` (contiguous 1-d)."""
    def codegen(context, builder, signature, args):
        builder.store(args[2], _lanes_at(context, builder, signature.args[0], args[0], args[1:2]), align=8)
        return context.get_dummy_value()
    return types.none(a, i, v), codegen


@intrinsic
def vsplat(typingctx, x):
    """``x`` in all eight lanes."""
    def codegen(context, builder, signature, args):
        return _splat(builder, args[0])
    return f64x8(types.float64), codegen


@intrinsic
def vadd(typingctx, a, b):
    """Lane-wise ``a + b``."""
    def codegen(context, builder, signature, args):
        return builder.fadd(*args)
    return f64x8(f64x8, f64x8), codegen


@intrinsic
def vsub(typingctx, a, b):
    """Lane-wise ``a - b``."""
    def codegen(context, builder, signature, args):
        return builder.fsub(*args)
    return f64x8(f64x8, f64x8), codegen


@intrinsic
def vdiv(typingctx, a, b):
    """Lane-wise ``a / b``."""
    def codegen(context, builder, signature, args):
        return builder.fdiv(*args)
    return f64x8(f64x8, f64x8), codegen


@intrinsic
def vneg(typingctx, a):
    """Lane-wise ``-a`` (exact)."""
    def codegen(context, builder, signature, args):
        return builder.fneg(args[0])
    return f64x8(f64x8), codegen


@intrinsic
def vmax(typingctx, a, b):
    """Lane-wise ``max(a, b)`` as numba's ``max``: ``b if b > a else a``."""
    def codegen(context, builder, signature, args):
        return builder.select(builder.fcmp_ordered(">", args[1], args[0]), args[1], args[0])
    return f64x8(f64x8, f64x8), codegen


@intrinsic
def vabs(typingctx, a):
    """Lane-wise ``|a|`` (exact)."""
    def codegen(context, builder, signature, args):
        return builder.call(_fn(builder, "llvm.fabs.v8f64", _VEC, 1), args)
    return f64x8(f64x8), codegen


@intrinsic
def vsqrt(typingctx, a):
    """Lane-wise correctly rounded square root."""
    def codegen(context, builder, signature, args):
        return builder.call(_fn(builder, "llvm.sqrt.v8f64", _VEC, 1), args)
    return f64x8(f64x8), codegen


@intrinsic
def vpositive_or_zero(typingctx, q, x):
    """Lane-wise ``x if q > 0 else 0``."""
    def codegen(context, builder, signature, args):
        zero = ir.Constant(_VEC, [0.0] * 8)
        return builder.select(builder.fcmp_ordered(">", args[0], zero), args[1], zero)
    return f64x8(f64x8, f64x8), codegen


@intrinsic
def vmul(typingctx, a, b):
    """Lane-wise ``a * b``."""
    def codegen(context, builder, signature, args):
        return builder.fmul(*args)
    return f64x8(f64x8, f64x8), codegen


@intrinsic
def vfma(typingctx, a, b, c):
    """Lane-wise ``a * b + c`` rounded once (``llvm.fma``)."""
    def codegen(context, builder, signature, args):
        return builder.call(_fn(builder, "llvm.fma.v8f64", _VEC, 3), args)
    return f64x8(f64x8, f64x8, f64x8), codegen


@intrinsic
def fma(typingctx, a, b, c):
    """``a * b + c`` rounded once (``llvm.fma``): a sum written with it has one order of roundings,
    not the one the contraction of ``s + p * x`` happens to pick (it may fuse either product of
    ``p0 * x0 + p1 * x1``)."""
    def codegen(context, builder, signature, args):
        return builder.call(_fn(builder, "llvm.fma.f64", _D, 3), args)
    return types.float64(types.float64, types.float64, types.float64), codegen


@intrinsic
def from_bits(typingctx, bits):
    """The float64 whose IEEE-754 bits are the int64 ``bits`` (a bit cast, no conversion)."""
    if bits != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], _D)
    return types.float64(types.int64), codegen


def _exp_ir(builder, v):
    """IR of the field's exponential on ``v`` (a double or ``<8 x double>``: :func:`exp_one` and
    :func:`exp_lanes` share it): clamp, ``k = floor(fma(v, log2 e, 1/2))``, Cody-Waite
    ``r = fma(-k, ln2_lo, fma(-k, ln2_hi, v))``, Horner in fused steps, times ``2^k`` from its bits."""
    vec = isinstance(v.type, ir.VectorType)
    ty, ity = (_VEC, ir.VectorType(_I64, 8)) if vec else (_D, _I64)
    sfx = "v8f64" if vec else "f64"

    def const(x):
        return _splat(builder, ir.Constant(_D, x)) if vec else ir.Constant(_D, x)

    lo, hi = const(EXP_LO), const(EXP_HI)
    v = builder.select(builder.fcmp_ordered(">", lo, v), lo, v)   # max(v, lo), as numba's max
    v = builder.select(builder.fcmp_ordered("<", hi, v), hi, v)   # min(v, hi)
    f = _fn(builder, "llvm.fma." + sfx, ty, 3)
    k = builder.call(_fn(builder, "llvm.floor." + sfx, ty, 1), [builder.call(f, [v, const(LOG2E), const(0.5)])])
    nk = builder.fneg(k)
    r = builder.call(f, [nk, const(LN2_LO), builder.call(f, [nk, const(LN2_HI), v])])
    p = const(EXP_POLY[11])
    for c in EXP_POLY[10::-1]:
        p = builder.call(f, [p, r, const(float(c))])
    ki = builder.fptosi(k, ity)
    bias = _splat(builder, ir.Constant(_I64, 1023)) if vec else ir.Constant(_I64, 1023)
    sh = _splat(builder, ir.Constant(_I64, 52)) if vec else ir.Constant(_I64, 52)
    scale = builder.bitcast(builder.shl(builder.add(ki, bias), sh), ty)
    return builder.fmul(p, scale)


@intrinsic
def exp_lanes(typingctx, v):
    """The field's exponential in each of eight lanes (the same roundings as :func:`exp_one`)."""
    def codegen(context, builder, signature, args):
        return _exp_ir(builder, args[0])
    return f64x8(f64x8), codegen


@intrinsic
def exp_one(typingctx, v):
    """The field's exponential of one float64: within 1 ulp of libm's ``exp`` (tested)."""
    def codegen(context, builder, signature, args):
        return _exp_ir(builder, args[0])
    return types.float64(types.float64), codegen


@intrinsic
def borrowed(typingctx, arr):
    """``arr`` without its owner: the same data, shape and strides, with no memory-info pointer, so
    that the views and calls made from it touch no reference count (each an atomic operation; in the
    step loop, a fifth of the time went to them).  Valid while ``arr`` itself is alive."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        src = context.make_array(aryty)(context, builder, args[0])
        dst = context.make_array(aryty)(context, builder)
        context.populate_array(dst, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize,
                               meminfo=None)
        return dst._getvalue()
    return arr(arr), codegen
