"""Per-query values computed by Spark (``rankkit.spark.evaluate(..., per_query=True)``), brought home
for rankkit.compare and rankkit.report with the conventions they carry, and how a report names the
engine. Nothing here starts Spark: the frames come from the caller's session, and pyspark is imported
only to say its version; rankkit.compare and rankkit.report import this, not the engine (rankkit.spark).
"""

from __future__ import annotations

from rankkit.conventions import Conventions
from rankkit.errors import RankkitError

__all__ = ["per_query_values", "engine_name", "with_order", "require_pyspark", "METADATA", "VALUE_COLUMNS", "INSTALL"]

METADATA = "rankkit"  # the key of the value column's metadata that holds the conventions
VALUE_COLUMNS = ("measure", "system", "query_id", "value")

INSTALL = "rankkit's Spark engine needs pyspark (3.5 or later) and Java 17: pip install 'rankkit-duckdb[spark]'"


def require_pyspark():
    """pyspark, or one line saying what to install."""
    try:
        import pyspark
    except ImportError:
        raise RankkitError(INSTALL) from None
    return pyspark


def engine_name() -> str:
    """How a report's record names the engine that computed its values."""
    return f"spark (pyspark {require_pyspark().__version__})"


def with_order(values):
    """Per-query values with ``i``, each measure's place in the order given, as rankkit.per_query has it."""
    order = {measure: i for i, measure in enumerate(dict.fromkeys(values["measure"]), 1)}
    return values.assign(i=values["measure"].map(order))


def per_query_values(values, conventions: Conventions | None = None):
    """Per-query values computed by Spark (``rankkit.spark.evaluate(..., per_query=True)``: a Spark
    DataFrame, or a list of them, say one per run), brought home for rankkit.compare and rankkit.report:
    pandas ``i, measure, system, query_id, value`` and the conventions that computed them.

    The conventions are those the frames carry (their value column's metadata); ``conventions``, when
    given, must be the same, and is needed only for frames that carry none (a statement of ``rankkit
    sql`` run by hand). Frames computed under different conventions are refused: one report, one
    evaluation's conventions."""
    import pandas as pd

    frames = list(values) if isinstance(values, (list, tuple)) else [values]
    if not frames:
        raise RankkitError("values: the list of per-query value frames is empty")
    carried = []
    for n, frame in enumerate(frames):
        label = "values" if len(frames) == 1 else f"values[{n}]"
        _check_value_columns(frame, label)
        carried.append((label, _carried(frame, label)))
    found = _one_convention(carried, conventions)
    brought = pd.concat([frame.select(*VALUE_COLUMNS).toPandas() for frame in frames], ignore_index=True)
    return with_order(brought), found


def _check_value_columns(frame, label: str) -> None:
    if not (hasattr(frame, "schema") and hasattr(frame, "toPandas") and hasattr(frame, "select")):
        raise RankkitError(f"{label}: expected a Spark DataFrame of per-query values (rankkit.spark.evaluate(..., "
                           f"per_query=True)), got {type(frame).__name__}")
    names = [field.name for field in frame.schema.fields]
    missing = [name for name in VALUE_COLUMNS if name not in names]
    if missing:
        raise RankkitError(f"{label}: no column {', '.join(missing)}: per-query values have the columns "
                           f"{', '.join(VALUE_COLUMNS)}, as rankkit.spark.evaluate(..., per_query=True) gives them "
                           f"(this frame has {', '.join(names) or 'none'})")


def _carried(frame, label: str) -> Conventions | None:
    """The conventions in the value column's metadata, or None."""
    said = (frame.schema["value"].metadata or {}).get(METADATA, {}).get("conventions")
    if said is None:
        return None
    try:
        return Conventions.from_dict(said)
    except (RankkitError, TypeError) as error:
        raise RankkitError(f"{label}: the conventions in its value column's metadata cannot be read: {error}") from None


def _one_convention(carried: list[tuple[str, Conventions | None]], given: Conventions | None) -> Conventions:
    """The one set of conventions of every frame (and of the call, if it gives one), or an error naming
    what differs."""
    known = [(label, found) for label, found in carried if found is not None]
    if known and len(known) < len(carried):
        bare = next(label for label, found in carried if found is None)
        raise RankkitError(f"{bare} carries no conventions and {known[0][0]} does: frames from one "
                           "rankkit.spark.evaluate call each carry theirs; mixed frames cannot be told apart")
    if not known:
        if given is None:
            raise RankkitError("values carry no conventions (not made by rankkit.spark.evaluate, or their value "
                               "column lost its metadata): pass conventions=rankkit.Conventions(...) saying "
                               "which computed them")
        return given
    first_label, first = known[0]
    for label, found in known[1:]:
        if found != first:
            raise RankkitError(f"values computed under different conventions: {_differences(first, found, first_label, label)}; "
                               "one comparison or report holds one evaluation's conventions")
    if given is not None and given != first:
        raise RankkitError(f"values computed under other conventions than the call's: "
                           f"{_differences(first, given, first_label, 'the call')}")
    return first


def _differences(a: Conventions, b: Conventions, label_a: str, label_b: str) -> str:
    left, right = a.as_dict(), b.as_dict()
    return ", ".join(f"{name} {left[name]!r} in {label_a}, {right[name]!r} in {label_b}"
                     for name in left if left[name] != right[name])
