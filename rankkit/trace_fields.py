"""What the measures' headers say of the trace (``trace:``): the measures it shows at every rank,
the columns beside them, the parameters it takes and how its values read them."""

from __future__ import annotations

import re

from rankkit.errors import RankkitError
from rankkit.measures import registry, shared_features, spec_fields

__all__ = ["RANK_FEATURE", "CONTRIBUTION", "traced", "trace_params", "trace_columns", "trace_option"]

# rank adds to a measure's value (NAME_contribution)
RANK_FEATURE = "rank_"
CONTRIBUTION = "_contribution"


def traced() -> dict[str, str]:
    """The measures rankkit.trace shows at every rank (those whose header has ``trace:``), by metric id,
    and the column each goes in."""
    return {m.metric: m.trace[0] for m in registry().values() if m.trace is not None}


def trace_params() -> list[str]:
    """The parameters the trace takes: every parameter of the traced measures, the cutoff first."""
    return list(dict.fromkeys(p for metric in traced() for p in registry()[metric].params))


def trace_columns() -> list[str]:
    """Every column the measures' headers show beside their values, in the order first named: a value
    column of another traced measure, a rank feature or a contribution, else an error naming the file."""
    values = set(traced().values())
    found: dict[str, None] = {}
    for measure in registry().values():
        for column in measure.trace[1] if measure.trace else ():
            known = (column in values or RANK_FEATURE + column in shared_features()
                     or (column.endswith(CONTRIBUTION) and column[:-len(CONTRIBUTION)] in values))
            if not known:
                raise RankkitError(f"{measure.path}: trace: unknown column {column}; expected a traced measure's "
                                   f"column ({', '.join(sorted(values))}), a feature's (rank_NAME in sql/features.sql) "
                                   f"or VALUE{CONTRIBUTION}")
            if column not in values:
                found[column] = None
    return list(found)


def trace_option(name: str) -> str:
    """A parameter as the trace's values read it from the trace macro's argument (rankkit.trace checks
    them): the cutoff is each row's rank; a spec value made of a parameter (gains) is made as the spec
    makes it, its messages naming the trace; any other is its argument as the spec's type."""
    if name == "k":
        return "rankkit_cutoff"
    field_ = spec_fields()[name]
    if field_.make:
        return re.sub(r"\bmeasure\b", "'trace'", field_.make)
    return f"CAST({name} AS {field_.type})"
# A trace column that is not a measure's value: the feature rank_NAME (sql/features.sql), or what each
