#!/usr/bin/env bash
# Torch DOP853 on a CUDA device (issue 14): the CLI path, then CUDA float64 / float32 against numpy
# DOP853 on the CPU at equal tolerances, with the differences of the final states.
#
# Run from the repository root on a machine with a CUDA build of torch:
#   bash benchmarks/gpu_simulate.sh            # figures on stdout, and in $OUT/gpu_simulate.txt when OUT is set
# Needs the project installed (pip install -e '.[llm]' or an equivalent venv) and a CUDA torch;
# exits 2 with a message when CUDA is not available (as `verify simulate --device cuda` does).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${VIRTUAL_ENV:-}" ] && [ -f .venv/bin/activate ]; then . .venv/bin/activate; fi
log=${OUT:+$OUT/gpu_simulate.txt}
run() { if [ -n "$log" ]; then "$@" 2>&1 | tee -a "$log"; else "$@"; fi; }

python - <<'EOF' || exit 2
import sys, torch
if not torch.cuda.is_available():
    sys.exit(f"torch {torch.__version__}: CUDA is not available; run this on a CUDA machine")
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, device {torch.cuda.get_device_name(0)}")
EOF

echo "== verify simulate --backend torch --device cuda (64 tokens, d = 32, 64 initial conditions, t = 5)"
run verify simulate --preset constant-identity-full --tokens 64 --dim 32 --samples 64 --t-end 5 --points 11 \
    --rtol 1e-8 --atol 1e-10 --backend torch --device cuda
echo "== the same on the numpy backend (CPU)"
run verify simulate --preset constant-identity-full --tokens 64 --dim 32 --samples 64 --t-end 5 --points 11 \
    --rtol 1e-8 --atol 1e-10

run python - <<'EOF'
import time
import numpy as np
import torch
from numerics import DOP853, TorchDOP853
from theorems.system import simple_system


def batch(B, N, d, seed=0):
    rng = np.random.default_rng(seed)
    P = (rng.standard_normal((d, d)) / np.sqrt(d)).tolist()
    out = []
    for _ in range(B):
        X = rng.standard_normal((N, d))
        out.append(simple_system(P, "identity", (X / np.linalg.norm(X, axis=1, keepdims=True)).tolist(), beta=1))
    return out


def timed(fn, repeat=3):
    times, res = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        res = fn()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return res, sorted(times)[len(times) // 2]


for B, N, d, t_end in ((256, 32, 16, 5.0), (1024, 64, 32, 5.0), (256, 256, 64, 2.0)):
    systems = batch(B, N, d)
    TorchDOP853(rtol=1e-8, atol=1e-10, device="cuda").integrate(systems[:2], 0.1, samples=2)  # CUDA context, kernels
    gpu64, t64 = timed(lambda: TorchDOP853(rtol=1e-8, atol=1e-10, device="cuda").integrate(systems, t_end, samples=2))
    gpu32, t32 = timed(lambda: TorchDOP853(rtol=1e-5, atol=1e-7, dtype="float32", device="cuda").integrate(systems, t_end, samples=2))
    cpu, tc = timed(lambda: DOP853(rtol=1e-8, atol=1e-10).integrate(systems, t_end, samples=2), 1)
    print(f"{B} x (N={N}, d={d}), t={t_end:g}: numpy DOP853 CPU {tc:.3f} s ({cpu.stats.steps} steps); "
          f"torch CUDA float64 {t64:.3f} s ({tc / t64:.1f}x, max diff {np.max(np.abs(gpu64.final - cpu.final)):.1e}, "
          f"{gpu64.stats.steps} steps); float32 rtol 1e-5 {t32:.3f} s ({tc / t32:.1f}x, max diff "
          f"{np.max(np.abs(gpu32.final - cpu.final)):.1e})")
EOF
