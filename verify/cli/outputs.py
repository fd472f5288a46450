"""Re-export of :mod:`verify.outputs` (the safe-output helpers moved there so that library code,
e.g. :mod:`verify.reproduce`, does not import the CLI).  New code imports :mod:`verify.outputs`."""
from verify.outputs import (Target, check_dir, check_file, check_targets, current_umask, describe, file_targets,
                            write_all)

__all__ = ["Target", "check_dir", "check_file", "check_targets", "current_umask", "describe", "file_targets",
           "write_all"]
