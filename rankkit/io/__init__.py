"""Reading qrels and runs of every kind into DuckDB, checked, with errors that name the place.

A source is a path (TREC text, CSV or TSV with a header, Parquet file, glob or folder; any text may be
gzip-compressed), a pandas DataFrame, a DuckDB relation or the name of a table or view. Whatever it
is, DuckDB reads it (never pandas or a Python loop over rows) into a relation with rankkit's columns:

- qrels: ``query_id VARCHAR, doc_id VARCHAR, relevance DOUBLE``
- run:   ``system VARCHAR, query_id VARCHAR, doc_id VARCHAR, rank BIGINT, score DOUBLE``

Columns with other names are found by their common names (``qid``, ``docno``, ``rel``, ``sim``,
``run_id`` ...) or mapped by the caller (``columns={"clicks": "relevance"}``, pandas' ``rename``
direction: your name to rankkit's). One pass over the rows checks them (NULL ids, scores that are
not finite numbers, duplicates) and keeps per-query counts for the checks that compare a run with its
qrels. Python reads a text file itself only on the error path, to say which line is wrong.

The parts, one job each: ``sources`` (what is read from where, the readers), ``files`` (what a path
holds), ``trec_text`` (TREC text into a table), ``columns`` (which column is which), ``checks`` (the
checking pass and its errors) and ``catalog`` (names in the connection's SQL).
"""

from rankkit.io.catalog import Source, is_table, temp_name
from rankkit.io.files import last_tag, run_name
from rankkit.io.sources import (as_checked, default_connection, forget, holder, is_frame, load, load_run_files,
                                read_qrels, read_run, release)
from rankkit.names import ALIASES

__all__ = ["read_qrels", "read_run", "default_connection", "load", "release", "forget", "Source", "ALIASES",
           "is_frame", "is_table", "run_name", "last_tag", "load_run_files", "holder", "temp_name",
           "as_checked"]
