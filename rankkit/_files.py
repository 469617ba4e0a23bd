"""Files written whole: every file rankkit writes appears under its name complete, or not at all.

A writer that opens its target and is killed halfway leaves a part of a file under the final name
(a CSV holding only its header reads as a finished, empty result). So each writer writes a
temporary file beside the target, in the same folder so that the rename is atomic, and renames it
over the target once it is complete: a crash leaves the old file or the whole new one.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import Iterator

from rankkit.errors import InputError

__all__ = ["replacing", "write_text"]

PARTIAL = ".partial-"


@contextlib.contextmanager
def replacing(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside ``path`` for the block to write; renamed over ``path`` when the block
    ends, removed when it fails. Its name ends with the target's, so that a writer that reads the
    format from the suffix (DuckDB, matplotlib) reads the same one.

    A failure that names the temporary file is raised as an :class:`InputError` naming ``path``.
    A link is written through (its target replaced, the link kept); a file replaced keeps its mode."""
    path = Path(path)
    if path.is_symlink():
        path = path.resolve()
    folder = path.parent
    if not folder.is_dir():
        raise InputError(f"{path}: cannot write the file: the folder {folder} does not exist")
    if path.is_dir():
        raise InputError(f"{path}: cannot write the file: it is a folder")
    # hidden, and unique among concurrent writers; not created here: DuckDB's COPY makes its own file
    import secrets  # (hmac, random, hashlib: 4 ms of a fresh `rankkit eval`, which writes nothing)

    partial = path.with_name(f"{PARTIAL}{secrets.token_hex(6)}.{path.name}")
    try:
        yield partial
        _keep_mode(path, partial)
        os.replace(partial, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        if isinstance(error, Exception) and str(partial) in str(error):
            raise InputError(str(error).replace(str(partial), str(path))) from error
        raise


def _keep_mode(path: Path, partial: Path) -> None:
    """The permissions a file had, on the file that replaces it (writing in place kept them)."""
    with contextlib.suppress(OSError):  # no old file, or one whose mode cannot be read: the new one's stand
        os.chmod(partial, stat.S_IMODE(os.stat(path).st_mode))


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` whole; the path."""
    with replacing(path) as partial:
        partial.write_text(text, encoding="utf-8")
    return Path(path)
