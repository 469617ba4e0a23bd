"""Fusion: several runs made one (RRF, CombSUM and friends). Every score comes from the SQL macro
``rankkit.fuse`` of ``sql/80_fusion.sql``; this module reads the runs with rankkit's checked readers,
pairs the weights with them, and writes the fused run (TREC text, or a typed format by suffix)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence

from rankkit import _engine as duckdb

from rankkit._files import named_inputs, refuse_inputs, replacing
from rankkit._sql import connect
from rankkit.errors import InputError, RankkitError
from rankkit.inputs import load_runs, run_files
from rankkit.io import default_connection, release, temp_name
from rankkit.running import run_query, run_rows

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["fuse"]

FUSE = ("FROM rankkit.fuse(?, method := ?, k := ?, norm := ?, weights := ?::MAP(VARCHAR, DOUBLE), depth := ?, "
        "label := ?)")


def fuse(runs, method: str = "rrf", k: float = 60, norm: str | None = None,
         weights: Sequence[float] | Mapping[str, float] | None = None, *, depth: int | None = None,
         output: str | Path | None = None, con: duckdb.DuckDBPyConnection | None = None,
         columns: Mapping[str, str | None] | None = None, split_by_tag: bool = False) -> pd.DataFrame | Path:
    """Fuse several runs into one, by SQL's ``rankkit.fuse`` (methods, normalisations and their
    sources: ``sql/80_fusion.sql``).

    Parameters
    ----------
    runs:
        Two or more runs as :func:`rankkit.evaluate` takes them: a list or dict of runs (paths,
        globs of TREC files, DataFrames, relations, table names), or one table whose ``system``
        column names several. Each is read and checked as ``evaluate`` reads it (a document listed
        twice for a query is refused).
    method:
        ``rrf`` (default), ``isr``, ``combsum``, ``combmnz``, ``combmax``, ``combmin``, ``combmed``,
        ``combanz``, ``wsum``, ``wmnz``, ``borda`` or ``condorcet`` (ranx's names too: ``sum``,
        ``mnz`` ... ``bordafuse``).
    k:
        RRF's constant: each system adds ``w / (k + rank)``, ranks from 1 by trec_eval's tie rule.
    norm:
        How each system's scores are normalised per query before a score method fuses them:
        ``none``, ``min-max`` (the default for the score methods, as ranx's), ``max``, ``sum``,
        ``zmuv``, ``rank``, ``borda`` or ``dbsf``. The rank methods take none.
    weights:
        One weight per run, in the order the runs are given (a list), or ``{system: weight}``
        (a dict, also for one table's systems): wsum and wmnz need them, rrf takes them.
    depth:
        Keep each system's top ``depth`` documents per query before fusing.
    output:
        Write the fused run there instead of returning it: TREC text (``qid Q0 docid rank score
        tag``), or Parquet, CSV, TSV or JSON by the suffix. Never one of the inputs.
    columns, split_by_tag:
        As for :func:`rankkit.evaluate`: your column names, and each tag of a TREC file a system.

    Returns
    -------
    DataFrame
        ``system, query_id, doc_id, score``, each query's documents best first; ``system`` names
        the method and its arguments (``rrf(k=60)``). Or the path written.

    Examples
    --------
    >>> import pandas as pd, rankkit
    >>> bm25 = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c"], "score": [9.0, 7.0, 5.0]})
    >>> dense = pd.DataFrame({"query_id": "q1", "doc_id": ["c", "a"], "score": [0.9, 0.8]})
    >>> fused = rankkit.fuse({"bm25": bm25, "dense": dense})
    >>> [(row.doc_id, round(row.score, 5)) for row in fused.itertuples()]
    [('a', 0.03252), ('c', 0.03227), ('b', 0.01613)]
    """
    if output is not None:
        refuse_inputs([("output", output)], named_inputs(runs=runs))
    con = connect(con) if con is not None else default_connection()
    with fusion_source(con, runs, columns, split_by_tag) as source:
        arguments = [source.engine, method, _whole(k), norm, paired_weights(weights, runs, source.systems), depth,
                     source.label]
        if output is None:
            return run_query(con, FUSE, arguments)
        return write_run(con, FUSE, arguments, Path(output))


@contextmanager
def fusion_source(con, runs, columns, split_by_tag: bool = False) -> Iterator:
    """The runs read and checked as one source whose ``system`` names each; dropped at the end."""
    source = load_runs(con, runs, columns=columns, split_by_tag=split_by_tag)
    try:
        yield source
    finally:
        release(con, source)


def _whole(k):
    """k as a whole number where it is one: the fused run is named rrf(k=60) for k=60.0 too."""
    if isinstance(k, bool) or not isinstance(k, (int, float)):
        raise RankkitError(f"k must be a number, 0 or more, got {k!r}")
    return int(k) if float(k).is_integer() else k


def paired_weights(weights, runs, systems: list) -> dict | None:
    """The weights as ``{system: weight}``: a dict as given, a list paired with the runs in the order
    given (refused for one table's systems, whose order is its own)."""
    if weights is None or isinstance(weights, Mapping):
        return None if weights is None else {str(name): weight for name, weight in weights.items()}
    if isinstance(weights, str) or not isinstance(weights, Sequence):
        raise RankkitError(f"weights: one number per run (a list) or {{system: weight}} (a dict), got {weights!r}")
    if not isinstance(run_files(runs), (list, tuple, dict)):
        raise RankkitError("weights: a list pairs with runs given as a list; for the systems of one table give "
                           f"{{system: weight}} for each of {', '.join(map(str, systems))}")
    if len(weights) != len(systems):
        raise RankkitError(f"weights: {len(weights)} given for {len(systems)} runs ({', '.join(map(str, systems))}): "
                           "give one per run")
    return dict(zip(systems, weights))


def write_run(con, select: str, params: list, path: Path) -> Path:
    """The fused run written to ``path``: a typed format by its suffix, else TREC text, whose ids
    must be fields of a line (rankkit.safe.trec)."""
    from rankkit.copying import OUTPUT_FORMATS, copy_result

    if path.suffix.lower() in OUTPUT_FORMATS:
        return copy_result(con, select, params, path, False, text=["system", "query_id", "doc_id"])
    from rankkit.safe.trec import sql_unwritable

    table = temp_name("fused")
    run_query(con, f"CREATE TEMP TABLE {table} AS {select}", params, fetch=False)
    try:
        bad = run_rows(con, f"SELECT query_id, doc_id FROM {table} WHERE {sql_unwritable('query_id')} "
                            f"OR {sql_unwritable('doc_id')} LIMIT 1", [])
        if bad:
            raise InputError(f"{path}: query {bad[0]['query_id']!r}, document {bad[0]['doc_id']!r}: an id with "
                             "whitespace or a control character cannot be a field of TREC text; write a .parquet file")
        lines = (f"SELECT query_id, 'Q0', doc_id, row_number() OVER (PARTITION BY query_id ORDER BY score DESC, "
                 f"doc_id DESC), score, system FROM {table} ORDER BY query_id, score DESC, doc_id DESC")
        with replacing(path) as partial:
            target = str(partial).replace("'", "''")
            run_query(con, f"COPY ({lines}) TO '{target}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '')", [],
                      fetch=False)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {table}")
    return path
