"""What a path holds: its format (TREC text, CSV, TSV, Parquet), its compression, its first and last
lines, and the line of a record (read by Python only on the error path, or a line or two)."""

from __future__ import annotations

import gzip
import os
import re
import stat
from pathlib import Path
from typing import Iterator

from rankkit.errors import InputError
from rankkit.names import ALIASES, QRELS_FIELDS, RUN_FIELDS, RUN_SUFFIXES
from rankkit.io.catalog import could_be_table, path_literal, quote


def run_name(path) -> str:
    """A run file's name for its system: the file name without its run and compression suffixes
    (``bm25`` for ``bm25.run.gz``; ``dl19.BM25.trec_results`` for ``dl19.BM25.trec_results.txt``)."""
    name = Path(str(path)).name
    for suffix in RUN_SUFFIXES:
        name = name[: -len(suffix)] if name.lower().endswith(suffix) and len(name) > len(suffix) else name
    return name


def last_tag(path) -> str | None:
    """The tag (sixth field) of a TREC run file's last content line: trec_eval's runid. None when the
    file is not TREC text with a tag. A plain file is read from its end; a gzip file is streamed."""
    path = Path(path)
    if not path.is_file():
        return None
    if magic(path, 2) == b"\x1f\x8b":
        last = None
        for line in _lines(path):
            if line.strip() and not line.lstrip().startswith("#"):
                last = line
    else:
        last = last_line(path)
    fields = last.split() if last else []
    return fields[5] if len(fields) >= 6 else None


def file_format(con, source, format: str | None, kind: str) -> tuple[str, str]:
    text = str(source)
    if format is not None and format not in ("trec", "csv", "tsv", "parquet"):
        raise InputError(f"{text}: format must be trec, csv, tsv or parquet, got {format!r}")
    path = Path(text)
    if is_glob(text):
        suffix = _suffix(text)
        fmt = format or ("parquet" if suffix in (".parquet", ".pq") else suffix.lstrip(".") if suffix in (".csv", ".tsv") else None)
        if fmt is None or fmt == "trec":
            several = (" (evaluate, compare and report read a glob of TREC run files as one run per file)"
                       if kind == "run" else "")
            raise InputError(f"{text}: a glob read as one table must end in .parquet, .csv or .tsv{several}")
        return fmt, text
    if path.is_dir():
        if not any(path.rglob("*.parquet")):
            raise InputError(f"{text}: is a folder without .parquet files; give a file, a glob or a Parquet folder")
        return "parquet", str(path / "**" / "*.parquet")
    if not path.exists():
        hint = ", and no table or view of that name" if isinstance(source, str) and could_be_table(con, text) else ""
        raise InputError(f"{text}: no such file{hint}")
    if format:
        if format != "parquet":
            refuse_binary(path, text)
        return format, text
    suffix = _suffix(text)
    if suffix in (".parquet", ".pq") or magic(path, 4) == b"PAR1":
        return "parquet", text
    refuse_binary(path, text)
    if suffix in (".csv", ".tsv"):
        return suffix.lstrip("."), text
    header = first_line(path)
    if _looks_like_header(header, kind):
        return ("tsv" if "\t" in header else "csv"), text
    return "trec", text


def _looks_like_header(line: str, kind: str) -> bool:
    """A first line naming columns rather than holding TREC fields. A comma makes a CSV header unless
    the line splits on whitespace into a TREC line's fields with commas in the score (grade) alone: a
    decimal comma (``q1 Q0 d1 1 1,5 tag``) is TREC text with a bad score, not a header."""
    tokens = [t.strip().strip('"').lower() for t in re.split(r"[,\t]| +", line.strip()) if t.strip()]
    known = {alias for aliases in ALIASES.values() for alias in aliases}
    names, fields = (QRELS_FIELDS if kind == "qrels" else RUN_FIELDS), line.split()
    number = names.index("relevance" if kind == "qrels" else "score")
    trec = (len(fields) == len(names) or (kind == "run" and len(fields) > len(names))) and all(
        "," not in field for at, field in enumerate(fields) if at != number)
    return ("," in line and not trec) or sum(t in known for t in tokens) >= 2


def _suffix(text: str) -> str:
    name = text[:-3] if text.lower().endswith(".gz") else text
    return Path(name).suffix.lower()


def is_glob(text: str) -> bool:
    """Whether a path is a pattern: it has a glob character and names no file (``run[1].txt`` that
    exists is that file, as the shell takes it)."""
    return any(c in text for c in "*?[") and not os.path.lexists(text)


# the suffixes of a glob read as one table (DuckDB reads its files together, a system column naming
# the systems); a glob with any other is TREC run files, one run each (run_glob_files)
TABLE_SUFFIXES = (".parquet", ".pq", ".csv", ".tsv")


def run_glob_files(source) -> list[str] | None:
    """The files a glob of TREC run files matches, sorted: each one run, named by its file, as
    SQL's ``rankkit.read_trec_run`` reads such a glob. None when ``source`` is no such glob (not a
    path with a glob character, a file of that very name, or a glob ending in .parquet, .csv or .tsv,
    read as one table). Folders are not matched (as DuckDB's glob); no file matched, or one that is
    not TREC run text (a table, the qrels), is an error naming the pattern and the file."""
    if not isinstance(source, (str, os.PathLike)):
        return None
    text = os.fspath(source)
    if not is_glob(text) or Path(text).exists() or _suffix(text) in TABLE_SUFFIXES:
        return None
    import glob

    files = sorted(match for match in glob.glob(text, recursive=True) if not os.path.isdir(match))
    if not files:
        raise InputError(f"{text}: no file matches the glob")
    for file in files:
        if os.path.isfile(file):  # (a pipe is read once, by its run's reading, which says what is wrong)
            _refuse_not_run(Path(file), text)
    return files


def _refuse_not_run(path: Path, pattern: str) -> None:
    """A file a glob of run files matched that is not TREC run text: a table, or lines of four fields
    (a gzip file is looked into; anything else wrong with a file, its reading says)."""
    said = f"{path} (matched by {pattern})"
    parquet = magic(path, 4) == b"PAR1"
    line = "" if parquet else first_line(path)
    if parquet or _suffix(str(path)) in TABLE_SUFFIXES or _looks_like_header(line, "run"):
        raise InputError(f"{said}: is a table (Parquet, or CSV with a header), not TREC run text: a glob of run "
                         f"files reads TREC text, one run per file (a glob ending in .parquet, .csv or .tsv reads "
                         f"one table)")
    if len(line.split()) == len(QRELS_FIELDS):
        raise InputError(f"{said}: its first line has {len(QRELS_FIELDS)} fields, as TREC qrels do "
                         f"({' '.join(QRELS_FIELDS)}); a run line has {len(RUN_FIELDS)} ({' '.join(RUN_FIELDS)}): "
                         f"is it the qrels? narrow the glob")


def csv_reader(path, fmt: str, label: str) -> str:
    delim = "\\t" if fmt == "tsv" else ","
    first = path if isinstance(path, Path) else _first_glob_match(path, label)
    header = first_line(first).rstrip("\r\n")
    names = [n.strip().strip('"') for n in header.split("\t" if fmt == "tsv" else ",")]
    if not any(names):
        raise InputError(f"{label}:1: expected a header line naming the columns, found an empty line")
    seen = set()
    for name in names:
        if not name:
            raise InputError(f"{label}:1: the header has an empty column name")
        if name.lower() in seen:
            raise InputError(f"{label}:1: the header names column '{name}' twice")
        seen.add(name.lower())
    types = "{" + ", ".join(f"{quote(n)}: 'VARCHAR'" for n in names) + "}"
    compression = compression_option(first)
    return (f"read_csv({path_literal(path)}, header = true, auto_detect = false, delim = E'{delim}', quote = '\"', "
            f"escape = '\"', columns = {types}, strict_mode = true{compression}, max_line_size = {max_line_bytes()})")


def _first_glob_match(pattern: str, label: str) -> Path:
    import glob

    matches = sorted(glob.glob(pattern, recursive=True))
    if not matches:
        raise InputError(f"{label}: no file matches")
    return Path(matches[0])


def first_line(path: Path) -> str:
    """The first line that is neither blank nor a comment."""
    try:
        return next((line for line in _lines(path) if line.strip() and not line.lstrip().startswith("#")), "")
    except (OSError, EOFError, gzip.BadGzipFile) as error:
        raise InputError(f"{path}: cannot be read ({error})") from None


def last_line(path: Path, tail: int = 4096) -> str:
    """The last line that is neither blank nor a comment, from the file's last bytes (a plain file; ""
    if none there)."""
    with open(path, "rb") as file:
        size = file.seek(0, 2)
        file.seek(max(0, size - tail))
        lines = [line for line in file.read().decode("utf-8", errors="replace").splitlines()
                 if line.strip() and not line.lstrip().startswith("#")]
    return lines[-1] if lines else ""


def no_lines(path: Path) -> str | None:
    """Why a TREC file holds no line to read (empty, or only comments), None when it holds one."""
    comments = 0
    for line in _lines(path):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return None
        comments += bool(stripped)
    if comments:  # not "empty": the user sees lines in it, and may not know # starts a comment
        return f"the file holds only comment lines ({comments} line{'s' * (comments > 1)} starting with #)"
    return "the file is empty"


def records(path: Path, header: bool = False) -> Iterator[tuple[int, list[str]]]:
    """Line number and fields of every line that is neither blank nor a comment (error path only)."""
    for number, line in enumerate(_lines(path), start=1):
        stripped = line.strip()
        if header and stripped:
            header = False
            continue
        if stripped and not stripped.startswith("#"):
            yield number, stripped.split()


def line_of(path: Path, row: int, header: bool) -> int:
    """The line number of the row-th record (error path only: Python reads the file)."""
    for seen, (number, _) in enumerate(records(path, header=header), start=1):
        if seen == row:
            return number
    return row


def contains_any(path: Path, needles: tuple[bytes, ...]) -> bool:
    """Whether the file holds any of these bytes (a memory map: the OS pages it, Python never copies it)."""
    import mmap

    try:
        with open(path, "rb") as file:
            if file.seek(0, 2) == 0:
                return False
            with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return any(data.find(needle) >= 0 for needle in needles)
    except (OSError, ValueError):  # not a regular file: the tolerant path reads anything
        return True


def _lines(path: Path) -> Iterator[str]:
    """The file's lines, each read up to the line limit: a line longer than it is an error, never a
    string of gigabytes (a file of one 2 GB line read whole was the end of the process)."""
    limit = max_line_bytes()
    with _open_text(path) as file:
        number = 0
        while line := file.readline(limit + 1):
            number += 1
            if len(line) > limit and not line.endswith("\n"):
                raise InputError(long_line(path, number, limit))
            yield line


def _open_text(path: Path):
    if magic(path, 2) == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def compression_option(path: Path) -> str:
    """gzip is told to DuckDB from the file's first bytes: its own guess goes by the name."""
    return ", compression = 'gzip'" if magic(path, 2) == b"\x1f\x8b" else ""


def magic(path: Path, size: int) -> bytes:
    try:
        with open(path, "rb") as probe:
            return probe.read(size)
    except OSError:
        return b""


# The bounds of what a text input may hold, each raised by its environment variable: a line longer
# than the line limit, or a gzip file expanding more than the ratio times its size, is refused with a
# message naming the file (and line) and the variable, before it can take the process's memory. A
# TREC or CSV line of ids and numbers is well under a kilobyte; runs and qrels compress 4-10 times.
MAX_LINE_VARIABLE = "RANKKIT_MAX_LINE_BYTES"
MAX_LINE_DEFAULT = 2 * 1024 * 1024  # DuckDB's own default max_line_size: files read today still read
MAX_RATIO_VARIABLE = "RANKKIT_MAX_GZIP_RATIO"
MAX_RATIO_DEFAULT = 100
_RATIO_FLOOR = 64 * 1024 * 1024  # below this much decompressed text, any ratio (a small file of few distinct lines)
_CHUNK = 1024 * 1024  # at most the line limit: a line is found too long within two chunks


def max_line_bytes() -> int:
    return _bound(MAX_LINE_VARIABLE, MAX_LINE_DEFAULT)


def max_gzip_ratio() -> int:
    return _bound(MAX_RATIO_VARIABLE, MAX_RATIO_DEFAULT)


def _bound(variable: str, default: int) -> int:
    given = os.environ.get(variable, "").strip()
    if not given:
        return default
    if not given.isdigit() or int(given) < 1:
        raise InputError(f"{variable} must be a positive whole number, got {given!r}")
    return int(given)


def long_line(path, number: int, limit: int) -> str:
    return (f"{path}:{number}: the line is longer than the limit of {_size(limit)} ({limit} bytes); a TREC or CSV "
            f"line of ids and numbers is far shorter. {MAX_LINE_VARIABLE}=<bytes> raises the limit")


def _size(count: int) -> str:
    return f"{count / 2**20:g} MiB" if count >= 2**20 else f"{count / 2**10:g} KiB" if count >= 2**10 else f"{count} bytes"


_copies: dict[str, str] = {}  # a plain copy (see plain_copy) -> the path as given, for messages
_folder: list = []  # the process's folder of plain copies, made on the first (removed at exit)


def plain_copy(path: Path) -> Path | None:
    """A plain, regular copy of a path that is not one: a FIFO or ``<(...)`` (``/dev/fd/N``) is read
    once into it (rankkit's readers open a path several times: a pipe would be empty, or never end,
    the second time), and a gzip file decompressed into it under the ratio bound (DuckDB's own
    decompression has no bound: a bomb filled the memory). None for a regular plain file: it is read
    where it is. The copy is named as the path is, without ``.gz`` (its format by suffix holds)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # no such file: file_format says so
    if stat.S_ISDIR(mode) or (stat.S_ISREG(mode) and magic(path, 2) != b"\x1f\x8b"):
        return None
    import atexit
    import tempfile

    if not _folder:
        _folder.append(tempfile.mkdtemp(prefix="rankkit-inputs-"))
        atexit.register(remove_copies)
    name = Path(str(path)).name
    name = name[:-3] if name.lower().endswith(".gz") and len(name) > 3 else name
    copy = Path(tempfile.mkdtemp(dir=_folder[0])) / name
    try:
        _copy(path, copy)
    except BaseException:
        forget_copy(copy)
        raise
    _copies[str(copy)] = str(path)
    return copy


def remove_copies() -> None:
    """Remove every plain copy (at exit; the command line, which ends by os._exit, calls it itself)."""
    import shutil

    if _folder:
        shutil.rmtree(_folder.pop(), ignore_errors=True)
    _copies.clear()


def forget_copy(copy: Path) -> None:
    """Remove a plain copy (its Source is released)."""
    import shutil

    _copies.pop(str(copy), None)
    shutil.rmtree(Path(copy).parent, ignore_errors=True)


def is_copy(path) -> bool:
    return str(path) in _copies


def as_given(message: str) -> str:
    """A message naming a plain copy, naming the path as given instead."""
    for copy, given in _copies.items():
        message = message.replace(copy, given)
    return message


def _copy(path: Path, copy: Path) -> None:
    """Read the path once, in chunks, into the copy: decompressed (every member) when it starts as gzip
    does, and refused as soon as that text outgrows the ratio bound."""
    import zlib

    ratio = max_gzip_ratio()
    with open(path, "rb") as given, open(copy, "wb") as file:
        out = _LineBound(file, path)
        data = given.read(_CHUNK)
        if data[:2] != b"\x1f\x8b":
            while data:
                out.write(data)
                data = given.read(_CHUNK)
            return
        taken, written, stream, inside = 0, 0, zlib.decompressobj(31), False
        while data:
            taken += len(data)
            while data:
                inside = True
                try:
                    text = stream.decompress(data, _CHUNK)
                except zlib.error as error:
                    raise InputError(f"{path}: is not a readable gzip file ({error})") from None
                out.write(text)
                written += len(text)
                if written > _RATIO_FLOOR and written > ratio * taken:
                    raise InputError(
                        f"{path}: expands to more than {ratio} times its compressed size ({_size(written)} from "
                        f"{_size(taken)} read so far): a gzip bomb? runs and qrels compress 4-10 times. "
                        f"{MAX_RATIO_VARIABLE}=<ratio> raises the limit")
                if stream.eof:  # a member ends: what follows is the next member
                    data, stream, inside = stream.unused_data, zlib.decompressobj(31), False
                else:
                    data = stream.unconsumed_tail
            data = given.read(_CHUNK)
        if inside:
            raise InputError(f"{path}: ends inside its gzip data (truncated?)")


class _LineBound:
    """Writes the copy, refusing a line over the limit as it comes (a pipe of one endless line would
    otherwise fill the disk). Two searches a chunk: chunks are no longer than the limit, so only a
    line across chunks can pass it."""

    def __init__(self, file, path):
        self.file, self.path, self.limit = file, path, max_line_bytes()
        self.lines, self.open = 0, 0  # lines ended so far, bytes of the line not yet ended

    def write(self, data: bytes) -> None:
        for start in range(0, len(data), self.limit):
            self._part(data[start:start + self.limit])
        self.file.write(data)

    def _part(self, data: bytes) -> None:
        first = data.find(b"\n")
        if (len(data) if first < 0 else first) + self.open > self.limit:
            raise InputError(long_line(self.path, self.lines + 1, self.limit))
        if first < 0:
            self.open += len(data)
        else:
            self.lines += data.count(b"\n")
            self.open = len(data) - data.rfind(b"\n") - 1


def text_problem(path: Path, label: str) -> str | None:
    """Why a text file cannot be read as text, in words, for the error path (DuckDB's reader said "CSV
    Error on Line: N"): a NUL byte (binary), a line over the limit, bytes that are not UTF-8. None if
    none of these. Reads the file a line (at most the limit) at a time."""
    limit, offset = max_line_bytes(), 0
    try:
        with open(path, "rb") as file:
            number = 0
            while line := file.readline(limit + 1):
                number += 1
                if (nul := line.find(b"\x00")) >= 0:
                    return binary(label, offset + nul, offset == 0 and line[:2] in (b"\xff\xfe", b"\xfe\xff"))
                if len(line) > limit and not line.endswith(b"\n"):
                    return long_line(label, number, limit)
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError as error:
                    column = len(line[:error.start].decode("utf-8")) + 1
                    return (f"{label}:{number}: the line is not UTF-8 (byte 0x{line[error.start]:02X} at column "
                            f"{column}): rankkit reads UTF-8 text; convert it (iconv -f latin1 -t utf-8)")
                offset += len(line)
    except OSError:
        return None
    return None


def binary(label: str, offset: int, utf16: bool = False) -> str:
    said = "UTF-16 text (a byte-order mark): rankkit reads UTF-8" if utf16 else "not TREC text, CSV or TSV"
    return f"{label}: looks binary (a NUL byte at byte {offset + 1}), {said}; give a text file (UTF-8, may be gzip) or Parquet"


def refuse_binary(path: Path, label: str) -> None:
    """A text input whose first bytes hold a NUL is binary (as git and grep tell): refused before its
    bytes become column names or ids."""
    head = magic(path, 65536)
    if (nul := head.find(b"\x00")) >= 0:
        raise InputError(binary(label, nul, head[:2] in (b"\xff\xfe", b"\xfe\xff")))
