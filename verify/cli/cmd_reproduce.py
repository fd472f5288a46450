"""What ``verify reproduce`` adds in a terminal besides the generic progress line: for
``--device cuda``, a check that torch sees the GPU before any work (the call itself is
:func:`verify.api.reproduce.reproduce`, whose parser :data:`verify.api.reproduce.COMMAND` generates).
Exit code 0 when the report was written (each row carries its own status), 2 on bad input (naming
the option), 1 on a crash or an interrupt (then no report is left; the cache of finished tasks is)."""
from __future__ import annotations


def _check_gpu(device: str) -> None:
    """``cuda[:N]`` must name a GPU this torch build sees (the LLM cases would fail one by one otherwise)."""
    from llm_checks._deps import require_torch  # MissingDependency with the install command when torch is absent
    from theorems.errors import InvalidInput

    torch = require_torch()
    index = int(device.split(":", 1)[1]) if ":" in device and device.split(":", 1)[1].isdigit() else 0
    seen = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if index >= seen:
        raise InvalidInput("device", "cpu or an available CUDA device", device, hint=f"this torch build sees {seen} GPU(s)")


def run(args) -> int:
    from .main import run as run_command

    if args.device.startswith("cuda") and not args.no_llm:
        _check_gpu(args.device)
    return run_command(args)
