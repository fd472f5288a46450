"""Safe output files: check every target before any work, write all-or-nothing.

The library home of these helpers (the CLI and :mod:`verify._reproduce` both use them, so they live
outside :mod:`verify.cli`).

Two calls, used by every command that writes files:

* :func:`check_targets` runs before any computation.  A target that exists and is not a
  regular file (a directory where a file is expected, a character device such as ``/dev/null``,
  a FIFO, a socket) is refused, and so is a symbolic link (never followed).  An existing regular
  file is replaced only with ``--force``.  The directory that will hold the file must be a
  writable directory, or creatable below a writable one.  Nothing is opened: a FIFO is never
  opened for writing (that would block) and a device is never touched.
* :func:`write_all` writes a batch of files rendered in memory: every payload goes to a
  temporary file in the target's directory (mode ``0o666 & ~umask``, as ``open`` would create
  it), and only when all temporaries are written are they renamed into place.  If anything fails,
  the temporaries are removed and files already renamed in this batch are taken back (a replaced
  file is restored from its backup); directories created for the batch are removed when empty.
  This is best effort: a crash of the machine between two renames, or a concurrent writer, can
  still leave a partial batch.

Every refusal is :class:`~theorems.errors.InvalidInput` naming the option and the path, so the CLI
exits 2 with one line and no traceback; a path that is not a ``str`` / ``os.PathLike`` of text, or
that holds a NUL byte, is refused the same way (:func:`check_name`).
"""
from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from theorems.errors import InvalidInput

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


@dataclass(frozen=True)
class Target:
    """One file a command will write: the option that named it and its path."""

    option: str
    path: Path


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:  # a component of the parent is a file
        return None


def _kind(st: os.stat_result) -> str:
    for test, name in _KINDS:
        if test(st.st_mode):
            return name
    return "not a regular file"


def describe(path: Path) -> str | None:
    """``None`` when ``path`` does not exist, else what it is (``"a regular file"``, ``"a FIFO ..."``)."""
    st = _lstat(path)
    if st is None:
        return None
    return "a regular file" if stat.S_ISREG(st.st_mode) else _kind(st)


def _check_directory(option: str, directory: Path, shown: Path) -> None:
    """``directory`` is a writable directory, or can be created below one.

    Permission bits say nothing for root, so writability is probed: a temporary file is created
    and removed in an existing directory, missing directories are created and removed again.
    """
    probe = directory
    while True:
        try:
            st = os.stat(probe)  # parents may be symbolic links to directories (/tmp on some systems)
        except (FileNotFoundError, NotADirectoryError):
            if probe.parent == probe:
                raise InvalidInput(option, "a path whose directory exists or can be created", str(shown)) from None
            probe = probe.parent
            continue
        except OSError as exc:
            raise InvalidInput(option, "a path in a readable directory", str(shown), exc.strerror or str(exc)) from None
        break
    if not stat.S_ISDIR(st.st_mode):
        what = "a file" if stat.S_ISREG(st.st_mode) else _kind(st)
        raise InvalidInput(option, "a path inside a directory", str(shown), f"{probe} is {what}, not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InvalidInput(option, "a path in a writable directory", str(shown), f"no permission to write in {probe}")
    try:
        if probe == directory:
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=".verify-probe.")
            os.close(fd)
            os.unlink(tmp)
        else:
            missing = _missing_dirs(directory)
            made = []
            try:
                for part in reversed(missing):
                    part.mkdir()
                    made.append(part)
            finally:
                for part in reversed(made):  # deepest first: leave the file system as it was
                    part.rmdir()
    except OSError as exc:
        raise InvalidInput(option, "a path in a writable directory", str(shown),
                           f"cannot write in {probe}: {exc.strerror or exc}") from None


def path_text(option: str, path: object) -> str:
    """``path`` as text: a ``str`` or ``os.PathLike`` of text without NUL bytes (``os.lstat`` would raise
    ``ValueError``, ``Path(5)`` ``TypeError``)."""
    try:
        text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    except TypeError:  # an os.PathLike whose __fspath__ returns neither str nor bytes
        text = None
    if not isinstance(text, str):
        raise InvalidInput(option, "a path (a str or a pathlib.Path)", path)
    if "\0" in text:
        raise InvalidInput(option, "a path without NUL bytes", text)
    return text


def check_name(option: str, path: object) -> Path:
    """``path`` as a :class:`~pathlib.Path` (:func:`path_text`)."""
    return Path(path_text(option, path))


def check_file(target: Target, force: bool) -> None:
    """Refuse ``target`` unless it is absent (or a regular file and ``force``) in a writable directory."""
    path = check_name(target.option, target.path)
    st = _lstat(path)
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise InvalidInput(target.option, "a file name that is not a symbolic link", str(path),
                               "symbolic links are never followed; name the real file")
        if not stat.S_ISREG(st.st_mode):
            raise InvalidInput(target.option, "a regular file name", str(path), f"it is {_kind(st)}; nothing was written")
        if not force:
            raise InvalidInput(target.option, "a file that does not exist yet", str(path),
                               "pass --force to overwrite it")
    _check_directory(target.option, path.parent, path)


def check_dir(option: str, path: Path) -> None:
    """``path`` is (or can become) a writable directory that is not a symbolic link."""
    path = check_name(option, path)
    st = _lstat(path)
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise InvalidInput(option, "a directory that is not a symbolic link", str(path),
                               "symbolic links are never followed; name the real directory")
        if not stat.S_ISDIR(st.st_mode):
            what = "a file" if stat.S_ISREG(st.st_mode) else _kind(st)
            raise InvalidInput(option, "a directory", str(path), f"it is {what}")
    _check_directory(option, path, path)


def check_targets(targets: Iterable[Target], force: bool) -> None:
    """Check a planned set of output files (module docstring); raises on the first bad one."""
    seen: dict[Path, str] = {}
    for target in targets:
        key = Path(os.path.abspath(target.path))
        if key in seen:
            raise InvalidInput(target.option, f"a path different from {seen[key]}", str(target.path))
        seen[key] = target.option
        check_file(target, force)


def current_umask() -> int:
    """The process umask (reading it means setting it; restored at once, single-threaded CLI)."""
    old = os.umask(0)
    os.umask(old)
    return old


def _missing_dirs(directory: Path) -> list[Path]:
    missing = []
    probe = directory
    while not probe.exists() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    return missing  # deepest first


def write_all(files: Sequence[tuple[Target, str | bytes]], force: bool) -> list[Path]:
    """Write every ``(target, payload)`` or none of them (module docstring); returns the paths."""
    mode = 0o666 & ~current_umask()
    created: list[Path] = []
    temps: list[tuple[Target, Path]] = []
    done: list[tuple[Path, Path | None]] = []
    try:
        for target, _ in files:  # re-check: the file system may have changed while we computed
            check_file(target, force)
        for target, _ in files:
            missing = _missing_dirs(target.path.parent)
            for directory in reversed(missing):
                directory.mkdir()
                created.append(directory)
        for target, data in files:
            fd, tmp = tempfile.mkstemp(dir=target.path.parent, prefix=f".{target.path.name}.", suffix=".tmp")
            temps.append((target, Path(tmp)))
            with os.fdopen(fd, "wb") as fh:
                fh.write(data.encode("utf-8") if isinstance(data, str) else data)
                os.fchmod(fh.fileno(), mode)
        for target, tmp in temps:
            check_file(target, force)
            backup = _backup(target.path) if _lstat(target.path) is not None else None
            done.append((target.path, backup))
            os.replace(tmp, target.path)  # atomic: the target is the old file or the new one, never absent
    except BaseException as exc:
        _roll_back(temps, done, created)
        if isinstance(exc, OSError):
            raise InvalidInput(_option_of(files, exc), "a writable output path", exc.filename or "",
                               f"{exc.strerror or exc}; nothing was written") from None
        raise
    for _, backup in done:
        if backup is not None:
            backup.unlink(missing_ok=True)
    return [target.path for target, _ in files]


def _backup(path: Path) -> Path:
    """A hard link to the file about to be replaced, so a failed batch can put it back."""
    for k in range(100):
        backup = path.with_name(f".{path.name}.{os.getpid()}-{k}.bak")
        try:
            os.link(path, backup)
            return backup
        except FileExistsError:
            continue
    raise FileExistsError(17, "no free backup name", str(path))


def _option_of(files: Sequence[tuple[Target, str | bytes]], exc: OSError) -> str:
    name = str(exc.filename or "")
    for target, _ in files:
        if name and (name == str(target.path) or Path(name).parent == target.path.parent):
            return target.option
    return files[0][0].option if files else "output"


def _roll_back(temps: list[tuple[Target, Path]], done: list[tuple[Path, Path | None]], created: list[Path]) -> None:
    for _, tmp in temps:
        tmp.unlink(missing_ok=True)
    for path, backup in reversed(done):
        try:
            st = _lstat(path)
            if backup is not None:
                os.replace(backup, path)
            elif st is not None and stat.S_ISREG(st.st_mode):
                path.unlink()
        except OSError:
            pass  # best effort (module docstring)
    for directory in reversed(created):
        try:
            directory.rmdir()
        except OSError:
            pass


def file_targets(pairs: Iterable[tuple[str, str | Path | None]]) -> list[Target]:
    """``Target`` records for the options that were given (``None`` values are skipped)."""
    return [Target(option, check_name(option, path)) for option, path in pairs if path]


def file_target(option: str, path: str | None, force: bool, suffix: str = "") -> list[Target]:
    """The target of the file ``option`` names (none when not given), ending in ``suffix`` when one is
    given (``.png``), checked before any work."""
    if path is not None and not path.lower().endswith(suffix):
        raise InvalidInput(option, f"a file name ending in {suffix}", path)
    targets = [] if path is None else [Target(option, Path(path))]
    check_targets(targets, force)
    return targets


def dir_targets(option: str, directory: str, names: Iterable[str], force: bool) -> list[Target]:
    """The targets ``directory/NAME`` of ``option``: the directory is usable and no target is refused,
    checked before any work."""
    check_dir(option, Path(directory))
    targets = [Target(option, Path(directory) / name) for name in names]
    check_targets(targets, force)
    return targets
