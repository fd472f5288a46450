#!/usr/bin/env bash
# Build the wheelhouse the GPU kit carries to a machine without network (benchmarks/gpu/run.sh).
#
# That machine's image has Python 3.12, torch, transformers, numpy, scipy, sympy, mpmath, numba,
# matplotlib, diffrax and torchdiffeq, and nothing else of ours: this downloads, for CPython 3.12 on
# manylinux x86_64, binary wheels only (--only-binary :all:) and without their dependencies
# (--no-deps: the image's numpy / scipy are kept), the project's other runtime dependencies, then
# builds the project's own wheel.
#
# By default only what `verify consensus` and `verify simulate` import (checked by
# tests/benchmarks/test_gpu_kit.py, which blocks the rest): python-flint (the progress code reaches
# theorems.enclosure through numerics), gmpy2 (mpmath's fast backend), threadpoolctl, tqdm: about
# 13 MB, within the 64 MiB a device run can carry.  --all adds cvxpy and its solvers (clarabel, scs,
# osqp, qdldl, highspy, sparsediffpy, cffi, pycparser, joblib) for the SOS commands: about 76 MB
# (scs alone is 43 MB), too large to carry to the device machine in one run.
#
# Usage: bash scripts/build_wheelhouse.sh [--all] [DIR]    (default build/wheelhouse, which git ignores)
# Then carry DIR to the GPU machine next to the repository (the device tool's `carry`), and run
# bash benchmarks/gpu/run.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES=(python-flint gmpy2 threadpoolctl tqdm)
if [ "${1:-}" = "--all" ]; then
    PACKAGES+=(cvxpy clarabel scs osqp qdldl highspy sparsediffpy cffi pycparser joblib)
    shift
fi
DIR=${1:-build/wheelhouse}
PY=${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}
mkdir -p "$DIR"
"$PY" -m pip download --only-binary :all: --no-deps --python-version 3.12 --implementation cp --abi cp312 \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    --platform any -d "$DIR" "${PACKAGES[@]}"
"$PY" -m pip wheel --no-deps --no-build-isolation -w "$DIR" . >/dev/null
rm -rf build/lib build/bdist.*  # setuptools' scratch space, not part of the wheelhouse
ls -l "$DIR"
du -sh "$DIR"
