#!/usr/bin/env bash
# The paper's LLM protocol (docs/model.md §5) at full scale on one GPU, as one prepared script:
# GPT-2 XL shape, random init (seed 0), 100 prompts x 200 random tokens, feedforward removed and
# kept, fp32 by default, as many re-fed passes as fit in the time budget (default 8 minutes for
# both variants together).  Prints passes per second and E_first at the last layer; a float16 run
# of the first batch is compared with float32 (--compare-float32) to report the drift.
#
# Usage: benchmarks/gpu_paper_scale.sh [DEVICE] [SECONDS] [OUT]   (defaults: cuda 480 $OUT or /tmp/gpu_paper_scale)
# Each run checkpoints into OUT/<variant>/ after every pass; re-running with the same arguments
# resumes an interrupted variant (--resume) instead of starting again.
set -euo pipefail
DEVICE=${1:-cuda}
BUDGET=${2:-480}
OUT=${3:-${OUT:-/tmp/gpu_paper_scale}}
MODEL=${MODEL:-gpt2-xl}; PROMPTS=${PROMPTS:-100}; TOKENS=${TOKENS:-200}   # smaller only for a dry run
export MODEL PROMPTS TOKENS HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
cd "$(dirname "$0")/.."
[ -d .venv ] && . .venv/bin/activate
python - "$DEVICE" "$BUDGET" "$OUT" <<'PY'
import json, subprocess, sys, time
device, budget, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
import os
model, prompts, tokens = os.environ["MODEL"], os.environ["PROMPTS"], os.environ["TOKENS"]
base = ["verify", "consensus", model, "--random-init", "--prompts", prompts, "--tokens", tokens, "--seed", "0",
        "--device", device, "--batch-size", prompts, "--format", "json", "--no-progress"]

def run(tag, passes, extra, timeout):
    target = f"{out}/{tag}"
    argv = base + ["--passes", str(passes), "--out", target, *extra]
    import os
    if os.path.exists(f"{target}/checkpoint.npz"):
        argv.append("--resume")
    elif os.path.exists(f"{target}/consensus.json"):
        argv.append("--force")
    t = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-2000:])
        raise SystemExit(f"{tag}: exit {done.returncode}")
    doc = json.loads(done.stdout)
    return doc, time.perf_counter() - t

start = time.perf_counter()
# 1 pass each to time a pass (includes the ~30 s init), then extrapolate within the budget
probe = {}
for ffn in ("noffn", "ffn"):
    doc, wall = run(f"probe_{ffn}", 1, ["--no-ffn"] if ffn == "noffn" else [], timeout=budget)
    probe[ffn] = (doc, wall, doc["run"]["seconds"])
    print(f"{ffn}: 1 pass in {doc['run']['seconds']:.1f} s measured ({wall:.1f} s with init); "
          f"E_first last layer {doc['summary']['E_first']['final_mean']:.4g}", flush=True)
left = budget - (time.perf_counter() - start)
per_pass = sum(p[2] for p in probe.values())
init = max(p[1] - p[2] for p in probe.values())
passes = max(1, min(100, int((left - 2 * init - 20) / max(per_pass, 1e-9))))
print(f"budget left {left:.0f} s: {passes} passes per variant", flush=True)
for ffn in ("noffn", "ffn"):
    extra = (["--no-ffn"] if ffn == "noffn" else [])
    doc, wall = run(f"{ffn}_{passes}", passes, extra, timeout=max(60, left))
    s = doc["summary"]
    print(json.dumps({"variant": ffn, "passes": passes, "layers": doc["layers"], "device": doc["provenance"]["device"],
                      "dtype": doc["provenance"]["dtype"], "seconds": round(doc["run"]["seconds"], 1),
                      "passes_per_second": round(passes / doc["run"]["seconds"], 4),
                      "E_first_last": s["E_first"]["final_mean"], "E_first_last_band": s["E_first"]["final_band"],
                      "E_pair_last": s["E_pair"]["final_mean"]}), flush=True)
# fp16 drift over 2 passes (96 layers) against float32 on the same weights, first batch of 10 prompts
doc, _ = run("fp16_drift", 2, ["--no-ffn", "--dtype", "float16", "--compare-float32", "--batch-size", "10"], timeout=300)
print(json.dumps({"fp16_drift": doc["float32_drift"]["max_abs_diff"], "at_last_block": doc["float32_drift"]["final_block"]}))
PY
