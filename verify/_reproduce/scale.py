"""The three scales of ``verify reproduce``: how many seeds, tokens, prompts and passes.

``smoke`` is for CI (tiny model shapes, few seeds, ~1-2 minutes); ``quick`` takes about 10 minutes
on 2 CPU cores (the real GPT-2 XL / GPT-Neo 2.7B shapes with few prompts and tokens, three passes;
the stand-in models 20 passes); ``full`` uses the paper's prompts (100 prompts x 200 tokens) but 10
passes, 1% of the paper's depth (1000 passes: 48,000 layers of GPT-2 XL), about 20 CPU-hours
(``expected`` says how it was estimated from the quick run's task times; docs/reproduce.md has the
table).  The paper's depth is a GPU run: benchmarks/gpu/ (``verify consensus --passes 1000``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LLMScale:
    """One model's measurement size: ``prompts`` x ``tokens``, ``passes`` re-feeding passes;
    ``model`` is the registry name used at this scale (``None``: skipped, ``skip_reason`` says why)."""

    model: str | None
    prompts: int
    tokens: int
    passes: int
    skip_reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "prompts": self.prompts, "tokens": self.tokens, "passes": self.passes,
                "skip_reason": self.skip_reason}


@dataclass(frozen=True)
class Scale:
    name: str
    runs: int            # seeded initial conditions (and random matrices) per simulation case
    N: int               # tokens per simulated instance
    d: int               # dimension of simulated instances
    t_end: float         # horizon of the simulations
    samples: int         # output times per simulation
    gpt2: LLMScale
    neo: LLMScale
    minilm: LLMScale
    smollm2: LLMScale
    expected: str        # expected wall time, for the help text and the report

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "runs": self.runs, "N": self.N, "d": self.d, "t_end": self.t_end,
                "samples": self.samples, "gpt2": self.gpt2.to_json(), "neo": self.neo.to_json(),
                "minilm": self.minilm.to_json(), "smollm2": self.smollm2.to_json(), "expected": self.expected}


SMOKE = Scale(
    "smoke", runs=6, N=8, d=3, t_end=100.0, samples=101,
    gpt2=LLMScale("gpt2-tiny", 4, 16, 2), neo=LLMScale("gpt-neo-tiny", 4, 16, 2),
    minilm=LLMScale("minilm", 4, 16, 3),
    smollm2=LLMScale(None, 0, 0, 0, "skipped at smoke scale: loading the SmolLM2 GGUF three times (trained, random, "
                                    "re-drawn random) takes about a minute"),
    expected="30-70 s measured on 2 CPU cores (about 26 s of CPU; the wall time follows the machine's load)",
)
QUICK = Scale(
    "quick", runs=32, N=12, d=3, t_end=100.0, samples=201,
    gpt2=LLMScale("gpt2-xl", 4, 32, 3), neo=LLMScale("gpt-neo-2.7B", 4, 32, 3),
    minilm=LLMScale("minilm", 10, 64, 20), smollm2=LLMScale("smollm2", 8, 32, 20),
    expected="about 9.4 minutes measured serially on a shared 2-core machine (limit 10 minutes); "
             "~11 GiB peak memory (GPT-Neo 2.7B, one large model at a time when serial; --workers K holds up to K models)",
)
FULL = Scale(
    "full", runs=256, N=16, d=3, t_end=200.0, samples=401,
    gpt2=LLMScale("gpt2-xl", 100, 200, 10), neo=LLMScale("gpt-neo-2.7B", 100, 200, 10),
    minilm=LLMScale("minilm", 100, 200, 100), smollm2=LLMScale("smollm2", 100, 200, 50),
    expected="about 20 CPU-hours (estimated from the quick run's task times, not measured): ~20 h serially, ~10-11 h on "
             "--workers 2, ~6.5 h on 4 or more workers (bounded by the GPT-2 XL feedforward task); --device cuda for the LLM cases",
)
SCALES = {s.name: s for s in (SMOKE, QUICK, FULL)}
