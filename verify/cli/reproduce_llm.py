"""Kept only for tests/llm_checks/test_one_refeed_loop.py: the LLM tasks live in :mod:`verify.reproduce.llm_tasks`."""
from verify.reproduce.llm_tasks import depth_part, standin_part

__all__ = ["depth_part", "standin_part"]
