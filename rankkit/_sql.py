"""A DuckDB connection with the SQL macros loaded: the macro script (rankkit.macros) run, or the
database file made of it once per version of the SQL attached; and what is kept once per version."""

from __future__ import annotations

import contextlib
import json
import os
import weakref
import zlib
from functools import cache
from pathlib import Path

from rankkit import _engine as duckdb

from rankkit._files import replacing, write_text
from rankkit.errors import RankkitError
from rankkit.macros import script, shell_only_macros, sql_files

__all__ = ["connect", "engine_connection", "stored", "store"]


_ready: "weakref.WeakSet[duckdb.DuckDBPyConnection]" = weakref.WeakSet()  # connections with the macros


def connect(database: str | duckdb.DuckDBPyConnection = ":memory:", *, memory_limit: str | None = None,
            temp_directory: str | None = None, threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the rankkit macros loaded in the attached ``rankkit`` catalog.

    Parameters
    ----------
    database:
        ``":memory:"`` (default), a database file path, or an existing connection to load into.
    memory_limit, temp_directory, threads:
        DuckDB settings; with a memory limit, DuckDB spills to ``temp_directory`` rather than fail.
    """
    if not isinstance(database, duckdb.DuckDBPyConnection):
        duckdb.package()  # the caller's con.sql and con.table: duckdb's package sets them when imported
    return engine_connection(database, memory_limit=memory_limit, temp_directory=temp_directory, threads=threads)


def engine_connection(database: str | duckdb.DuckDBPyConnection = ":memory:", *, memory_limit: str | None = None,
                      temp_directory: str | None = None, threads: int | None = None,
                      lean: bool = False) -> duckdb.DuckDBPyConnection:
    """connect() without importing duckdb's package (rankkit/_engine.py): for the command line, whose
    commands run statements only. ``lean``: a new in-memory connection gets the macros rankkit's own
    statements use, not those written for SQL users (shell_only_macros()): attaching those was most
    of what the macros cost a fresh `rankkit eval`."""
    con = database if isinstance(database, duckdb.DuckDBPyConnection) else duckdb.connect(database)
    # a new in-memory database has nothing loaded, and a process's first catalog query is slow. A file
    # path may reach a database instance this process already opened, and loaded, so it is asked.
    fresh = con is not database and database == ":memory:"
    if fresh:
        # DuckDB's allocator keeps freed memory for reuse up to 128 MB after a task and 512 MB after a
        # bulk free; reading a run and then checking it frees that much, and the peak grows by it.
        # Its background threads hand freed pages back while the next step runs (on workload A, the
        # command line's median peak went from 584 to 513 MB).
        con.execute("SET allocator_flush_threshold = '16MB'; SET allocator_bulk_deallocation_flush_threshold = '16MB'; "
                    "SET allocator_background_threads = true")
        # DuckDB prints its own bar on stdout after 2 s, into `rankkit eval > file` too; rankkit's
        # Progress (stderr, only when interactive) reads DuckDB's progress instead.
        con.execute("SET enable_progress_bar_print = false")
    for name, value in (("memory_limit", memory_limit), ("temp_directory", temp_directory), ("threads", threads)):
        if value is not None:
            con.execute(f"SET {name} = '{value}'")
    if con not in _ready and not (fresh and _attach_cached(con, lean)) and (fresh or not _loaded(con)):
        con.execute(script())
    _ready.add(con)
    return con


ATTACH = "ATTACH IF NOT EXISTS ':memory:' AS rankkit;"


def _attach_cached(con: duckdb.DuckDBPyConnection, lean: bool = False) -> bool:
    """Attach the macros from a database file made once per version of them: creating the macros costs
    a process many times what attaching the file does. False (run the script) when no file can be had."""
    path = _cached_file(lean)
    if path is None:
        return False
    try:
        con.execute(f"ATTACH '{_literal(path)}' AS rankkit (READ_ONLY)")
        return True
    except duckdb.Error:  # a damaged file: the next process builds it again
        with contextlib.suppress(OSError):
            os.unlink(path)
        _cached_file.cache_clear()
        return False


# The modules the macro database is made by: this one, and every module of rankkit's that macros.py
# imports, directly or not (tests/test_layers.py checks the list against the imports).
SCRIPT_MODULES = ("_sql.py", "macros.py", "measures.py", "parameters.py", "definitions.py", "trec.py",
                  "neighbours.py", "names.py", "dialect.py", "conditions.py", "plan.py", "macro_plans.py", "trace_fields.py",
                  "errors.py", "_paths.py", "safe/terminal.py")


@cache
def _script_key() -> str:
    """A digest of what script() is made from: DuckDB's version, the SQL files and SCRIPT_MODULES.
    Composing the script (the catalog reads every metric's header) would cost each process's start
    many times what reading the files' bytes does. Two 32-bit checksums, not hashlib: importing it
    (OpenSSL) is a cost of every start, and the key guards against change, not against an adversary."""
    text = bytearray(duckdb.__version__.encode())
    for path in [*sql_files(), *(Path(__file__).parent / name for name in SCRIPT_MODULES)]:
        text += f"\n{path.name}\n".encode() + path.read_bytes()
    return f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}"


def cache_folder() -> Path:
    """Where rankkit keeps what it makes once per version of its SQL: $RANKKIT_CACHE, else
    $XDG_CACHE_HOME/rankkit or ~/.cache/rankkit."""
    return Path(os.environ.get("RANKKIT_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rankkit")


def stored(name: str) -> dict:
    """What store() kept under ``name`` for this version of the SQL ({} if nothing, or unreadable)."""
    try:
        return json.loads((cache_folder() / f"{name}-{_script_key()}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def store(name: str, data: dict) -> None:
    """Keep ``data`` (JSON) for this version of the SQL, written atomically; a folder that cannot be
    written, or data JSON cannot hold, keeps nothing, and nothing fails."""
    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_text(folder / f"{name}-{_script_key()}.json", json.dumps(data))
    except (OSError, TypeError, ValueError):
        pass


@cache
def _cached_file(lean: bool = False) -> str | None:
    """The macro database for this script and DuckDB version, built (atomically) if missing; ``lean``:
    without shell_only_macros()."""
    key = _script_key()
    folder = cache_folder()
    path = folder / f"macros-{'lean-' if lean else ''}{key}.duckdb"
    if path.is_file():
        return str(path)
    partial = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with replacing(path) as partial:  # other processes see the whole file or none
            builder = duckdb.connect()
            try:
                builder.execute(script().replace(ATTACH, f"ATTACH '{_literal(partial)}' AS rankkit;", 1))
                if lean:
                    _drop_shell_only(builder)
                builder.execute("DETACH rankkit")
            finally:
                builder.close()
    except (OSError, duckdb.Error, RankkitError):
        if partial:  # the database's write-ahead log, when DuckDB failed before it was folded in
            with contextlib.suppress(OSError):
                os.unlink(f"{partial}.wal")
        return None
    return str(path)


def _drop_shell_only(con: duckdb.DuckDBPyConnection) -> None:
    dropped = shell_only_macros()
    found = con.execute("SELECT DISTINCT function_name, function_type = 'table_macro' FROM duckdb_functions() "
                        "WHERE database_name = 'rankkit' AND function_type IN ('macro', 'table_macro')").fetchall()
    con.execute("".join(f"DROP MACRO {'TABLE ' if table else ''}rankkit.{name};"
                        for name, table in found if name in dropped))


def _literal(path: str) -> str:
    return str(path).replace("'", "''")


def _loaded(con: duckdb.DuckDBPyConnection) -> bool:
    found = con.execute(
        "SELECT count(*) FROM duckdb_functions() WHERE database_name = 'rankkit' AND function_name = 'per_query'"
    ).fetchall()  # fetchall, not fetchone: an unfinished result blocks register() on DuckDB 2
    return bool(found and found[0][0])
