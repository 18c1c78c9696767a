"""Write a file so that readers see either the old file or the complete new one, never a part.

The bytes go to a temporary file in the *same directory* (so the final rename cannot cross a
file system), are flushed, checked by the caller's ``check`` callback, given mode 0644
(``mkstemp`` creates 0600) and renamed over the target with ``os.replace``, which is atomic on
POSIX and Windows: a reader, or a process killed at any moment, sees the old file or the new
one.  On any exception, including KeyboardInterrupt, the temporary file is removed and the
target is untouched.  OS failures become ``OutputError`` naming the path.

A process killed by SIGKILL (or a power cut) cannot remove its temporary file.  Temporary
names carry the writer's host and process id (``.<name>.<host>-<pid>.<random>.tmp``), and every
write first removes the temporaries of the same target left by processes of this host that no
longer run, so a killed compile leaves at most one stray file, until the next write of that
target.  Another host's temporaries (a shared directory) are never touched.

``durable=True`` adds what survives a power loss too: the file is ``fsync``-ed before the
rename and the directory after it.  That is off by default, as for compilers and ``make``
(an artifact is a build output that can be rebuilt), because the two ``fsync`` calls cost
0.5-2 ms here, a tenth of a small regex's whole compile (``indexc compile --fsync``).
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from indexc.errors import OutputError

FILE_MODE = 0o644


def write_atomically(path: Path, write: Callable[[BinaryIO], None],
                     check: Callable[[Path], None] | None = None, *, durable: bool = False) -> int:
    """Write ``path`` through ``write(handle)``; returns the size written."""
    directory = path.parent
    if not directory.is_dir():
        raise OutputError(f"directory {str(directory)!r} does not exist", source=str(path))
    remove_stale_temporaries(path)
    try:
        descriptor, temporary_name = tempfile.mkstemp(dir=directory, prefix=f"{_temporary_prefix(path)}{os.getpid()}.",
                                                      suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot create a file in {str(directory)!r}: {exc.strerror or exc}", source=str(path)) from None
    temporary = Path(temporary_name)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
            size = handle.tell()
        if check is not None:
            check(temporary)
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    except BaseException as exc:
        temporary.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write the artifact: {exc.strerror or exc}", source=str(path)) from None
        raise
    if durable:
        _fsync_directory(directory)
    return size


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Remove the temporaries of ``path`` whose writer (a process of this host) is gone; returns them."""
    prefix = _temporary_prefix(path)
    removed = []
    try:
        names = [name for name in os.listdir(path.parent) if name.startswith(prefix) and name.endswith(".tmp")]
    except OSError:
        return removed
    for name in names:
        pid = name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and not _process_exists(int(pid)):
            (path.parent / name).unlink(missing_ok=True)
            removed.append(path.parent / name)
    return removed


def _temporary_prefix(path: Path) -> str:
    return f".{path.name}.{socket.gethostname()}-"


def _process_exists(pid: int) -> bool:
    if os.name != "posix":  # Windows' os.kill(pid, 0) would terminate the process: never clean there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _fsync_directory(directory: Path) -> None:
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
