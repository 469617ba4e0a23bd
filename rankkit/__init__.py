"""rankkit: ranking quality measured where the data lives, as DuckDB SQL macros."""

from rankkit._sql import connect
from rankkit.compare import compare
from rankkit.errors import InputError, MeasureError, RankkitError, RankkitWarning
from rankkit.evaluate import evaluate
from rankkit.io import read_qrels, read_run

__all__ = ["connect", "evaluate", "compare", "read_qrels", "read_run", "RankkitError", "InputError", "MeasureError",
           "RankkitWarning"]
