"""A result streamed into a file by DuckDB's COPY, in the format its suffix says."""

from __future__ import annotations

from pathlib import Path

from rankkit._files import replacing
from rankkit.errors import InputError
from rankkit.io.catalog import ident
from rankkit.progress import Progress
from rankkit.running import run_query


OUTPUT_FORMATS = {".parquet": "(FORMAT parquet)", ".csv": "(FORMAT csv, HEADER true)",
                  ".tsv": "(FORMAT csv, HEADER true, DELIMITER '\t')", ".json": "(FORMAT json, ARRAY true)",
                  ".jsonl": "(FORMAT json)", ".ndjson": "(FORMAT json)"}


def copy_result(con, select: str, params: list, path: Path, progress, text: list[str] = ()) -> Path:
    """Stream the result into a file with DuckDB's COPY (per-query output may not fit in memory),
    written whole (see rankkit._files). In CSV and TSV, the ``text`` columns' cells are quoted
    against spreadsheet formulas (rankkit.safe.csv); Parquet and JSON are typed and need nothing."""
    options = copy_options(path)
    if text and path.suffix.lower() in (".csv", ".tsv"):
        from rankkit.safe.csv import sql_cell

        cells = ", ".join(f"{sql_cell(ident(name))} AS {ident(name)}" for name in text)
        select = f"SELECT * REPLACE ({cells}) FROM ({select})"
    with replacing(path) as partial, Progress(con, f"writing {path.name}", enabled=progress):
        target = str(partial).replace("'", "''")
        run_query(con, f"COPY ({select}) TO '{target}' {options}", params, fetch=False)
    return path


def copy_options(path: Path) -> str:
    """COPY's options for the file's format, read from its suffix."""
    options = OUTPUT_FORMATS.get(path.suffix.lower())
    if options is None:
        raise InputError(f"{path}: output must end in {', '.join(OUTPUT_FORMATS)}")
    return options
