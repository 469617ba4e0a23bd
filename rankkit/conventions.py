"""The conventions that decide a number, in one frozen object.

Two evaluations of the same qrels and run agree only if they ranked ties the same way, read scores
at the same precision, cut the lists at the same depth, averaged over the same queries, called the
same grades relevant and treated a repeated document the same way. ``Conventions`` holds those
choices: ``evaluate``, ``compare`` and ``report`` build one from their call, pass it down to the
SQL macros (:meth:`Conventions.sql_arguments`) and a report writes it into its record
(:meth:`Conventions.as_dict`). The SQL macros check the values, so a bad one is rejected there,
with the same message in SQL and in Python.

What a measure's name says (cutoff, gain, ideal ordering, its own relevance level) is not here:
it travels with the measure (``nDCG(gain=exp)@10``) and the report records it per measure.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from rankkit.errors import RankkitError

__all__ = ["Conventions", "resolve_conventions", "asked_conventions"]

DESCRIPTIONS = {
    "ties": "tie rule: trec (score, then doc_id descending, as trec_eval), rank (the run's rank column) or "
            "average (expected value over the orderings of tied scores)",
    "scores": "score precision: double (trec_eval 10.0) or float32 (trec_eval 9.0.8, pytrec_eval)",
    "depth": "documents kept per query (trec_eval -M); None: all",
    "queries": "query set: both (queries in the run and the qrels, trec_eval's default) or qrels "
               "(every judged query, missing ones scoring 0, trec_eval -c)",
    "rel": "relevance level: a grade >= rel is relevant, for measures that do not set their own (trec_eval -l)",
    "duplicates": "a document listed twice for one query: error (trec_eval) or first (keep the first)",
    "judged_only": "only the documents the qrels judge, ranked among themselves (trec_eval -J)",
    "docs": "documents in the collection, for utility's non-relevant documents not retrieved (trec_eval -N)",
}


@dataclass(frozen=True)
class Conventions:
    """How rankkit turns judgments and a ranked list into a number (defaults: trec_eval 10.0's).

    Examples
    --------
    >>> Conventions(queries="qrels").as_dict()
    {'ties': 'trec', 'scores': 'double', 'depth': None, 'queries': 'qrels', 'rel': 1.0, 'duplicates': 'error', 'judged_only': False, 'docs': 0}
    """

    ties: str = "trec"
    scores: str = "double"
    depth: int | None = None
    queries: str = "both"
    rel: float = 1.0
    duplicates: str = "error"
    judged_only: bool = False
    docs: int = 0

    def __post_init__(self) -> None:
        # Plain Python values, so that the record written to JSON reads back equal.
        if isinstance(self.rel, bool) or not isinstance(self.rel, (int, float)):
            raise RankkitError(f"rel must be a number, got {self.rel!r}")
        object.__setattr__(self, "rel", float(self.rel))
        # not positive: the lean statement read no row and said nothing (an empty frame), and compare
        # and report failed on the missing rows (KeyError 'i'); the CLI and SQL refuse it as here
        if self.depth is not None and (isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1):
            raise RankkitError(f"depth must be a positive integer or None, got {self.depth!r}")

    def as_dict(self) -> dict:
        """Every convention by name, as a report's record holds them."""
        return asdict(self)

    def sql_arguments(self) -> list:
        """ties, scores, depth, queries and judged_only: the named arguments of the ``rankkit.per_query``
        family (rel and docs go to the measures, through ``rankkit.measure_specs``)."""
        return [self.ties, self.scores, self.depth, self.queries, self.judged_only]

    @classmethod
    def from_dict(cls, values: dict) -> Conventions:
        """The conventions a record holds (unknown keys are an error: the record is not ours)."""
        unknown = set(values) - {f.name for f in fields(cls)}
        if unknown:
            raise RankkitError(f"unknown conventions {', '.join(sorted(unknown))}; known: "
                               f"{', '.join(f.name for f in fields(cls))}")
        return cls(**values)


def resolve_conventions(conventions: Conventions | None, **given) -> Conventions:
    """The conventions of a call: ``conventions=`` or the separate keywords, not both.

    ``given`` holds the call's separate keywords (``rel=``, ``ties=`` ...); those left at their
    defaults do not count as given.
    """
    if conventions is None:
        return Conventions(**given)
    if not isinstance(conventions, Conventions):
        raise RankkitError(f"conventions must be a rankkit.Conventions, got {type(conventions).__name__}")
    defaults = Conventions()
    clash = [name for name, value in given.items() if value != getattr(defaults, name)
             and value != getattr(conventions, name)]
    if clash:
        raise RankkitError(f"give the conventions either as conventions= or as keywords, not both: "
                           f"{', '.join(clash)} differ from conventions=")
    return conventions


def asked_conventions(conventions: Conventions | None, **given) -> Conventions | None:
    """The conventions a call asks for, or None when it asks for none (no ``conventions=`` and every
    keyword at its default): values computed elsewhere then bring their own."""
    resolved = resolve_conventions(conventions, **given)
    return resolved if conventions is not None or resolved != Conventions() else None
