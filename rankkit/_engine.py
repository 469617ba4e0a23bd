"""DuckDB's engine, and its Python package only where a relation is asked for.

duckdb 2's package is its C++ engine (the extension module ``_duckdb``) under a pure-Python layer:
relations, expressions, and a version read from the package's metadata. Importing that layer is
most of what ``import duckdb`` takes, more than half of what a fresh ``rankkit eval`` spends
before its first row, and rankkit's own statements need none of it: they connect, execute, fetch
and register. The modules on that path import this one (``from rankkit import _engine as duckdb``)
and reach the engine's names directly; any other name (``DuckDBPyRelation``) imports the package,
as does ``table()``, which hands back a relation. A duckdb whose package has no separate engine
module is used whole.

The relation methods (``con.sql``, ``con.table``) are set on the connection class when the package
is imported: a connection this module opens has them as soon as anything imports ``duckdb``, and
``rankkit.connect`` imports it for the user, who expects them.
"""

from __future__ import annotations

import sys

try:
    import _duckdb as _core
except ImportError:  # pragma: no cover - a duckdb without the separate engine module
    import duckdb as _core

DuckDBPyConnection = _core.DuckDBPyConnection
Error = _core.Error
connect = _core.connect
# the engine's version: what the macro cache's files are written by
__version__: str = _core.__version__


def package():
    """The duckdb package itself (relations, expressions); imported on first use."""
    import duckdb

    return duckdb


def table(con: DuckDBPyConnection, name: str):
    """``con.table(name)``: a relation, so the package is imported first."""
    package()
    return con.table(name)


def is_relation(value) -> bool:
    """Whether ``value`` is a duckdb relation. Only the package makes relations: while it is not
    imported, nothing is one, and asking does not import it."""
    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(value, duckdb.DuckDBPyRelation)


def __getattr__(name: str):
    return getattr(package(), name)
