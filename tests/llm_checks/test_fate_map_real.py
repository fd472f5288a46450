"""The fate map of a real model (MiniLM, real weights, the default 8-token prompt), end to end.

Certified heads and the float observation must agree (a certified consensus that the simulation
does not show collapsing would mean one of the two is wrong), the observation must not change the
certified count, and the payload must validate.  Measured (docs/fate.md, "Real heads"): 2 of 72
heads certified without the enclosure pass, 65 of 72 collapse to one cluster in the simulation to t = 200;
the enclosure pass certifies layer 3 head 9 (tokens on both sides at t = 0) in about 5 s (6 logarithmic-norm steps)."""
from __future__ import annotations

import json

import jsonschema

import verify
from verify.report import schema_path


def test_minilm_map_certified_heads_collapse_in_the_simulation_too(minilm_loaded):
    from llm_checks.head_factors import head_factors, prompt_ids
    from verify._fate.head_map import certify_heads
    from verify.api.fate_heads import DEFAULT_PROMPT

    ids, strings = prompt_ids(minilm_loaded, DEFAULT_PROMPT, 8)
    factors = head_factors(minilm_loaded, ids, strings)
    plain = certify_heads(factors.layers, model="minilm", mask=factors.mask, tokens=strings)
    report = verify.audit(minilm_loaded, fate=True, fate_budget=0)  # a model object, not a name: the map accepts both
    seen = report.record
    assert report.exit_code == 4 and seen.tokens == tuple(strings)
    assert len(seen.heads) == 72 and seen.mask == "full"
    assert seen.certified == plain.certified >= 2
    assert [h.fate for h in seen.heads] == [h.fate for h in plain.heads]
    certified = [h for h in seen.heads if h.fate == "consensus"]
    assert all(h.observed.outcome == "one cluster" and h.observed.collapse_time is not None for h in certified)
    counts = seen.observed_counts()
    assert counts["simulated"] == 72 and counts["one cluster"] >= 60
    assert counts["one cluster"] + counts["clusters"] + counts["moving"] == 72
    body = {"schema_version": "1", "kind": "fate", "verdict": "unknown", "scope": "heads", **seen.to_json()}
    jsonschema.validate(json.loads(json.dumps(body)), json.loads(schema_path("fate").read_text()))

    # the enclosure pass: every head it certifies collapses in the simulation too, and it certifies one more at least
    entered = certify_heads(factors.layers, model="minilm", mask=factors.mask, tokens=strings, flow_budget_s=150.0)
    new = [h for h in entered.heads if h.fate == "consensus" and "validated enclosure" in h.reason]
    assert entered.certified == plain.certified + len(new) and len(new) >= 1, entered.stats
    assert (3, 9) in {(h.layer, h.head) for h in new}
    observed = {(h.layer, h.head): h.observed for h in seen.heads}
    assert all(observed[h.layer, h.head].outcome == "one cluster" for h in new)
