"""What ``verify audit`` adds in a terminal: the loader's messages and the layers measured, on stderr
(the parser and the call are generated from :data:`verify.api.audit.COMMAND`)."""
from __future__ import annotations

import sys

from .common import say


def run(args) -> int:
    from numerics.support.progress import TextProgress

    from .main import run as run_command

    return run_command(args, progress=TextProgress(sys.stderr, "audit", not args.no_progress),
                       on_event=say(not args.no_progress))
