"""Files written whole: every file rankkit writes appears under its name complete, or not at all.

A writer that opens its target and is killed halfway leaves a part of a file under the final name
(a CSV holding only its header reads as a finished, empty result). So each writer writes a
temporary file beside the target, in the same folder so that the rename is atomic, and renames it
over the target once it is complete: a crash leaves the old file or the whole new one.

A writer killed outright (kill -9, the OOM killer, a power cut) cannot remove its temporary file.
Its name says whose it is, ``.partial-<host>-<pid>-<start>-<random>.<name>`` (the host's and the
process's identity, its start time telling a pid the system gave again to another process), and
every write into a folder first removes the temporary files there of processes of this host that
have ended. Writers of other hosts (a shared folder) are left alone. DuckDB's COPY and matplotlib
open the temporary file by name, so an unnamed file (Linux's O_TMPFILE, linked at the end) would not
serve them all; a name that carries its owner does.

Every failure to write (a full disk, a quota, no permission, a read-only disk, a folder in the way)
is an :class:`InputError` naming the target and the reason, and leaves no temporary file.
Checking an output against the inputs of the same command, so that ``-o`` never replaces what it
reads, is :func:`refuse_inputs`.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from pathlib import Path
from typing import Iterable, Iterator

from rankkit.errors import InputError

__all__ = ["replacing", "write_text", "refuse_inputs", "input_files", "named_inputs"]

PARTIAL = ".partial-"
# .partial-<host>-<pid>-<start>-<random>.<name>; DuckDB may add its own suffix (.tmp) to the whole name
# (patterns as text, compiled at their first use by re's cache, not at every command's start)
_OWNED = r"\.partial-([0-9a-f]{8})-(\d+)-(\d+)-[0-9a-f]+\."
# the names of rankkit before the owner was in them: removed once nothing has written to them for a day
_UNOWNED = r"\.partial-[0-9a-f]{12}\."
_UNOWNED_AGE = 24 * 3600
_ERRNO = r'"errno"\s*:\s*"?(\d+)'
_NAME_MAX = 255  # bytes in a file name, on every file system rankkit writes to


@contextlib.contextmanager
def replacing(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside ``path`` for the block to write; renamed over ``path`` when the block
    ends, removed when it fails. Its name ends with the target's, so that a writer that reads the
    format from the suffix (DuckDB, matplotlib) reads the same one.

    Any failure of the block that is an :class:`OSError` (a full disk, no permission ...) or that
    names the temporary file is raised as an :class:`InputError` naming ``path``.
    A link is written through (its target replaced, the link kept); a file replaced keeps its mode.
    A target that is a device or a pipe (``/dev/stdout``) is written in place: nothing is renamed over it."""
    path = Path(path)
    with _named(path, path):  # a name too long, a folder that cannot be looked into: said as a write error
        in_place = _special(path)
        if not in_place:
            path = _target(path)
    if in_place:  # opened by its name as given: /dev/stdout's link leads to a pipe that has no name
        with _named(path, path):
            yield path
        return
    remove_abandoned(path.parent)
    # hidden, and unique among concurrent writers; not created here: DuckDB's COPY makes its own file
    partial = path.with_name(_partial_name(path.name))
    try:
        with _named(path, partial):
            yield partial
            _keep_mode(path, partial)
            os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def _special(path: Path) -> bool:
    """Whether ``path`` (through links) is a device, a pipe or a socket: written in place."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there yet (_target says what is missing)
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _target(path: Path) -> Path:
    """The file to replace (a link's target), refused with the reason when it cannot be written."""
    if path.is_symlink():
        path = path.resolve()
    folder = path.parent
    if not folder.exists():
        raise InputError(f"{path}: cannot write the file: the folder {folder} does not exist")
    if not folder.is_dir():
        raise InputError(f"{path}: cannot write the file: {folder} is not a folder")
    if path.is_dir():
        raise InputError(f"{path}: cannot write the file: it is a folder")
    return path


@contextlib.contextmanager
def _named(path: Path, partial: Path) -> Iterator[None]:
    """Failures inside the block said of ``path``: an OSError as the target and its reason, any other
    error that names the temporary file with the target's name in its place."""
    try:
        yield
    except OSError as error:
        if error.strerror is None:  # raised with a message of its own, no reason from the system
            raise InputError(str(error).replace(str(partial), str(path))) from error
        raise InputError(f"{path}: cannot write the file: {error.strerror}") from error
    except Exception as error:
        said = str(error)
        if str(partial) not in said:
            raise
        reason = _reason(said, partial)
        if reason:
            raise InputError(f"{path}: cannot write the file: {reason}") from error
        raise InputError(said.replace(str(partial), str(path))) from error


def _reason(said: str, partial: Path) -> str | None:
    """The system's reason in a DuckDB IO error about the file: its errno (a failed write says it in
    JSON), or the words after the quoted name (a failed open: 'Cannot open file "x": Permission denied')."""
    number = re.search(_ERRNO, said)
    if number:
        return os.strerror(int(number.group(1)))
    after = said.partition(f'"{partial}":')[2].strip()
    return after.splitlines()[0] if after else None


def _partial_name(name: str) -> str:
    """``.partial-<owner>-<random>.<name>``, the name cut at its start if the whole would be too long
    (its end, the suffix a writer reads the format from, is kept)."""
    import secrets  # (hmac, random, hashlib: not for a fresh `rankkit eval`, which writes nothing)

    prefix = f"{PARTIAL}{_owner()}-{secrets.token_hex(4)}."
    while len(os.fsencode(prefix + name)) > _NAME_MAX - 4:  # 4: room for DuckDB's .tmp
        name = name[1:]
    return prefix + name


def _owner() -> str:
    """This process as a temporary file's name says it: host, pid and start time."""
    return f"{_host()}-{os.getpid()}-{_started(os.getpid())}"


def _host() -> str:
    import zlib

    return f"{zlib.crc32(os.uname().nodename.encode()):08x}"


def _started(pid: int) -> int:
    """When process ``pid`` started, in clock ticks since boot (Linux's /proc), 0 where that cannot
    be read (no /proc: the pid alone then says whether the writer lives)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as status:
            fields = status.read().rsplit(b")", 1)[1].split()  # the name, in parentheses, may hold spaces
        return int(fields[19])  # field 22 of the line; fields[0] here is field 3
    except (OSError, IndexError, ValueError):
        return 0


def _ended(pid: int, started: int) -> bool:
    """Whether the process that wrote ``pid`` and ``started`` into a name has ended: no process has
    that pid now, or the one that has it started at another time. In doubt (a process that cannot be
    looked at), it lives."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # (no pid is that large: not a process's name)
        return True
    except OSError:  # another user's process: it exists
        pass
    now = _started(pid)
    return bool(now and started and now != started)


def remove_abandoned(folder: Path) -> list[Path]:
    """Remove the temporary files in ``folder`` whose writer has ended (killed before it could); the
    paths removed. A writer of another host, or one whose state cannot be read, is left alone."""
    removed = []
    try:
        entries = [entry for entry in os.scandir(folder) if entry.name.startswith(PARTIAL)]
    except OSError:  # a folder that cannot be listed: the write says what is wrong with it
        return removed
    host = _host()
    for entry in entries:
        owned = re.match(_OWNED, entry.name)
        if owned:
            writer_host, pid, started = owned.group(1), int(owned.group(2)), int(owned.group(3))
            ended = writer_host == host and _ended(pid, started)
        else:
            ended = bool(re.match(_UNOWNED, entry.name)) and _age(entry) > _UNOWNED_AGE
        if ended:
            with contextlib.suppress(OSError):  # gone already: another writer cleaned it
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def _age(entry: os.DirEntry) -> float:
    try:
        return time.time() - entry.stat(follow_symlinks=False).st_mtime
    except OSError:
        return 0.0


def _keep_mode(path: Path, partial: Path) -> None:
    """The permissions a file had, on the file that replaces it (writing in place kept them)."""
    with contextlib.suppress(OSError):  # no old file, or one whose mode cannot be read: the new one's stand
        os.chmod(partial, stat.S_IMODE(os.stat(path).st_mode))


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` whole; the path."""
    with replacing(path) as partial:
        partial.write_text(text, encoding="utf-8")
    return Path(path)


# ---- outputs that are inputs ------------------------------------------------------------------------

def input_files(source) -> Iterator[Path]:
    """The files an input names: the file itself, every file under a folder, every match of a glob.
    Anything else (a table name, a DataFrame, standard input) names none."""
    if not isinstance(source, (str, os.PathLike)):
        return
    text = os.fspath(source)
    if any(c in text for c in "*?[") and not os.path.lexists(text):
        import glob

        yield from (Path(match) for match in glob.iglob(text, recursive=True))
        return
    path = Path(text)
    if path.is_dir():
        for root, _, names in os.walk(path):
            yield from (Path(root) / name for name in names)
    elif path.exists():
        yield path


def refuse_inputs(outputs: Iterable[tuple[str, str | os.PathLike]], inputs: Iterable[tuple[str, object]]) -> None:
    """Refuse, before anything is read or written, an output that is one of the inputs: the same file
    however it is spelled (``./a`` and ``a``, a link, a hard link, a glob's or a folder's file).
    ``outputs`` and ``inputs`` are (what the command calls it, path) pairs: ``("-o", "run.csv")``,
    ``("run", "runs/*.parquet")``."""
    written = []
    for said, output in outputs:
        with contextlib.suppress(OSError):  # no such file yet (or none that can be looked at): no input either
            written.append((said, output, os.stat(output)))
    if not written:
        return
    for role, source in inputs:
        for file in input_files(source):
            try:
                identity = os.stat(file)
            except OSError:
                continue
            for said, output, target in written:
                if (target.st_dev, target.st_ino) == (identity.st_dev, identity.st_ino):
                    raise InputError(f"{said} {output}: is the same file as the {role} {file}, which this "
                                     f"command reads: writing there would replace it; give another file")


def named_inputs(**given) -> list[tuple[str, object]]:
    """(role, source) pairs for :func:`refuse_inputs` from inputs as the API takes them: ``run=`` a
    path, a list of them or a ``{name: path}`` mapping; None for an input not given. Standard input
    (``-``) names no file."""
    pairs = []
    for role, value in given.items():
        values = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
        # only paths name files: a DataFrame, relation or table name beside them is no file to guard
        pairs += [(role, source) for source in values if isinstance(source, (str, os.PathLike)) and str(source) != "-"]
    return pairs
