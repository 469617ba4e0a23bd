"""What a path holds: its format (TREC text, CSV, TSV, Parquet), its compression, its first and last
lines, and the line of a record (read by Python only on the error path, or a line or two)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Iterator

from rankkit.errors import InputError
from rankkit.names import ALIASES, RUN_SUFFIXES
from rankkit.io.catalog import could_be_table, quote


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
        with _open_text(path) as lines:
            for line in lines:
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
            raise InputError(f"{text}: a glob must end in .parquet, .csv or .tsv (TREC text is read one file at a time)")
        return fmt, text
    if path.is_dir():
        if not any(path.rglob("*.parquet")):
            raise InputError(f"{text}: is a folder without .parquet files; give a file, a glob or a Parquet folder")
        return "parquet", str(path / "**" / "*.parquet")
    if not path.exists():
        hint = ", and no table or view of that name" if isinstance(source, str) and could_be_table(con, text) else ""
        raise InputError(f"{text}: no such file{hint}")
    if format:
        return format, text
    suffix = _suffix(text)
    if suffix in (".parquet", ".pq") or magic(path, 4) == b"PAR1":
        return "parquet", text
    if suffix in (".csv", ".tsv"):
        return suffix.lstrip("."), text
    header = first_line(path)
    if _looks_like_header(header, kind):
        return ("tsv" if "\t" in header else "csv"), text
    return "trec", text


def _looks_like_header(line: str, kind: str) -> bool:
    """A first line naming columns rather than holding TREC fields."""
    tokens = [t.strip().strip('"').lower() for t in re.split(r"[,\t]| +", line.strip()) if t.strip()]
    known = {alias for aliases in ALIASES.values() for alias in aliases}
    return "," in line or sum(t in known for t in tokens) >= 2


def _suffix(text: str) -> str:
    name = text[:-3] if text.lower().endswith(".gz") else text
    return Path(name).suffix.lower()


def is_glob(text: str) -> bool:
    return any(c in text for c in "*?[")


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
    return (f"read_csv({quote(str(path))}, header = true, auto_detect = false, delim = E'{delim}', quote = '\"', "
            f"escape = '\"', columns = {types}, strict_mode = true{compression})")


def _first_glob_match(pattern: str, label: str) -> Path:
    import glob

    matches = sorted(glob.glob(pattern, recursive=True))
    if not matches:
        raise InputError(f"{label}: no file matches")
    return Path(matches[0])


def first_line(path: Path) -> str:
    """The first line that is neither blank nor a comment."""
    try:
        with _open_text(path) as lines:
            return next((line for line in lines if line.strip() and not line.lstrip().startswith("#")), "")
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
    with _open_text(path) as lines:
        for line in lines:
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                return None
            comments += bool(stripped)
    if comments:  # not "empty": the user sees lines in it, and may not know # starts a comment
        return f"the file holds only comment lines ({comments} line{'s' * (comments > 1)} starting with #)"
    return "the file is empty"


def records(path: Path, header: bool = False) -> Iterator[tuple[int, list[str]]]:
    """Line number and fields of every line that is neither blank nor a comment (error path only)."""
    with _open_text(path) as lines:
        for number, line in enumerate(lines, start=1):
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
