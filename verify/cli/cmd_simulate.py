"""What ``verify simulate`` adds in a terminal: progress on stderr (the one renderer,
:class:`numerics.support.progress.TextProgress`: tqdm on a terminal, a few plain lines in a log),
and Dask's logging kept quiet (the parser and the call are generated from
:data:`verify.api.simulate.COMMAND`)."""
from __future__ import annotations

import os
import sys


def run(args) -> int:
    from numerics.support.progress import TextProgress

    from .main import run as run_command

    if args.workers is not None or args.scheduler is not None:
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # the CLI owns logging: no Dask INFO chatter
    return run_command(args, progress=TextProgress(sys.stderr, "simulate", args.show_progress or sys.stderr.isatty()))
