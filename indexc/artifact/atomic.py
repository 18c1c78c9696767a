"""Write a file so that readers see either the old file or the complete new one, never a part.

The bytes go to a temporary file in the *same directory* (so the final rename cannot cross a
file system), are flushed, checked by the caller's ``check`` callback, given mode 0644
(``mkstemp`` creates 0600) and renamed over the target with ``os.replace``, which is atomic on
POSIX and Windows: a reader, or a process killed at any moment, sees the old file or the new
one.  On any exception, including KeyboardInterrupt, the temporary file is removed and the
target is untouched.  OS failures become ``OutputError`` naming the path.

``durable=True`` adds what survives a power loss too: the file is ``fsync``-ed before the
rename and the directory after it.  That is off by default, as for compilers and ``make``
(an artifact is a build output that can be rebuilt), because the two ``fsync`` calls cost
0.5-2 ms here, a tenth of a small regex's whole compile (``indexc compile --fsync``).
"""

from __future__ import annotations

import os
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
    try:
        descriptor, temporary_name = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
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
