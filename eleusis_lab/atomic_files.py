"""Files written whole or not at all: a reader, or a run resuming after a kill, sees all
of a file or none of it.

The file is written under a hidden temporary name in its folder
(`TEMPORARY_PREFIX`, then the writer's process id), then renamed over its final name
(`os.replace`, atomic). The results store (`eleusis_lab.storage`), the caches of tables
and of learnability figures and the report write their files this way.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

__all__ = ["TEMPORARY_PREFIX", "write_atomically"]

#: How a file being written starts its name: hidden, so that readers of a folder of
#: Parquet files skip it; the writer's process id follows (`eleusis_lab.storage` clears
#: the leftovers of dead writers).
TEMPORARY_PREFIX = ".tmp-"


@functools.cache
def _file_mode() -> int:
    """The mode of a new file under this process's umask (``0o644`` under ``022``)."""
    umask = os.umask(0o022)  # reading the umask means setting it: put it straight back
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: str | Path, write) -> None:
    """Call ``write(temporary)`` on a file beside ``path``, then give it ``path``'s name:
    a reader (or a run resuming after a kill) sees all of the file or none of it.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "note.txt"
    >>> write_atomically(target, lambda temporary: Path(temporary).write_text("done"))
    >>> target.read_text()
    'done'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = f"{TEMPORARY_PREFIX}{os.getpid()}-{path.name}."
    handle, temporary = tempfile.mkstemp(prefix=prefix, dir=path.parent)
    os.close(handle)
    try:
        # mkstemp makes the file private (0600); results are for the group to read too.
        os.chmod(temporary, _file_mode())
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
