#!/usr/bin/env bash
# The GPU kit in one command: make the project importable on a machine without network, then run
# benchmarks/gpu/kit.py (the paper's LLM protocol at full shape, fp16 drift, the torch DOP853 batch)
# within a time budget, writing summary.json and one compressed npz per run (each under 16 MiB).
#
#   bash benchmarks/gpu/run.sh [--dry-run] [OUT]
#
# Environment: BUDGET seconds for the kit (default 480: one device command may run 600 s, and the
# install and the imports take ~20 s), DEVICE (default cuda), PYTHON (default python3), WHEELHOUSE
# (default build/wheelhouse, from scripts/build_wheelhouse.sh), KIT_SITE (where the wheels are
# installed, default a fresh temporary directory).  OUT defaults to $OUT or /tmp/gpu_kit.
#
# Install: if the interpreter cannot import python-flint, tqdm and threadpoolctl, the wheels of
# WHEELHOUSE are installed with `pip install --no-index --no-deps --target KIT_SITE` (or unpacked with
# zipfile when pip is missing) and put on PYTHONPATH after the repository root, so the code run is the
# carried tree.  Nothing is downloaded.  --dry-run: tiny shapes on the CPU (tests/benchmarks/test_gpu_kit.py).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DRY=()
if [ "${1:-}" = "--dry-run" ]; then DRY=(--dry-run); shift; fi
OUT=${1:-${OUT:-/tmp/gpu_kit}}
PY=${PYTHON:-python3}
WH=${WHEELHOUSE:-$ROOT/build/wheelhouse}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
started=$(date +%s)

if ! "$PY" -c "import flint, tqdm, threadpoolctl" 2>/dev/null; then
    if ! ls "$WH"/*.whl >/dev/null 2>&1; then
        echo "run.sh: $PY cannot import python-flint / tqdm / threadpoolctl and there is no wheelhouse at $WH;" \
             "build one with scripts/build_wheelhouse.sh on a machine with network and carry it here" >&2
        exit 2
    fi
    SITE=${KIT_SITE:-$(mktemp -d /tmp/consensus-verify-site.XXXXXX)}
    if "$PY" -m pip --version >/dev/null 2>&1; then
        "$PY" -m pip install --quiet --no-index --no-deps --target "$SITE" "$WH"/*.whl
    else
        "$PY" - "$SITE" "$WH" <<'PY'
import sys, zipfile, pathlib
site, wh = sys.argv[1], pathlib.Path(sys.argv[2])
for wheel in sorted(wh.glob("*.whl")):
    zipfile.ZipFile(wheel).extractall(site)
PY
    fi
    export PYTHONPATH="$PYTHONPATH:$SITE"
    echo "run.sh: installed $(ls "$WH"/*.whl | wc -l) wheels from $WH into $SITE" >&2
fi

"$PY" -c "import flint, torch, transformers, numerics, verify.cli.main, llm_checks.consensus" || {
    echo "run.sh: the project does not import with $PY (see above)" >&2; exit 2; }
echo "run.sh: ready in $(( $(date +%s) - started )) s; running the kit into $OUT" >&2
exec "$PY" "$ROOT/benchmarks/gpu/kit.py" --out "$OUT" --device "${DEVICE:-cuda}" --budget "${BUDGET:-480}" "${DRY[@]}"
