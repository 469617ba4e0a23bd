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

A pack (``conventions="recbole"``) is the conventions and measure parameters of a library people come
from, by its name, declared once in ``PACKS``: the measures asked take the pack's parameters where
their names left them at the default, and are labelled so (``AP@10`` under RecBole computes, and is
named, ``AP(denom=min)@10``: rankkit.specs.packed); a report records the pack's name with the conventions.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Iterable, Mapping

from rankkit.errors import RankkitError

__all__ = ["Conventions", "resolve_conventions", "asked_conventions", "PACKS", "Pack"]

DESCRIPTIONS = {
    "ties": "tie rule: trec (score, then doc_id descending, as trec_eval), rank (the run's rank column) or "
            "average (expected value over the orderings of tied scores)",
    "scores": "score precision: double (trec_eval 10.0) or float32 (trec_eval 9.0.8, pytrec_eval)",
    "depth": "documents kept per query (trec_eval -M); None: all",
    "queries": "query set: both (queries in the run and the qrels, trec_eval's default), qrels "
               "(every judged query, missing ones scoring 0, trec_eval -c) or run (every query of the run, those the "
               "qrels lack holding no relevant item: scored by each measure's empty rule, as torchmetrics and LensKit "
               "score every user they are given)",
    "rel": "relevance level: a grade >= rel is relevant, for measures that do not set their own (trec_eval -l)",
    "duplicates": "a document listed twice for one query: error (trec_eval) or first (keep the first)",
    "judged_only": "only the documents the qrels judge, ranked among themselves (trec_eval -J)",
    "docs": "documents in the collection, for utility's non-relevant documents not retrieved (trec_eval -N)",
    "pack": "a library's conventions and measure parameters by its name (recbole, recommenders, spark, torchmetrics, "
            "lenskit): "
            "its numbers; none: trec_eval's",
}


@dataclass(frozen=True)
class Pack:
    """A library's conventions: its version matched, the conventions and the parameters per measure
    (by measure id) that give its numbers, and what the user should know (a part not reproduced, a bug
    not copied)."""

    library: str
    source: str
    params: Mapping[str, Mapping[str, object]]
    notes: str
    conventions: Mapping[str, object] = None
    # its treatment of a user with no relevant item, for every measure that takes the empty rule (the
    # measure parameter empty: sql/00_prelude.sql), and where its source says so; None: no such user reaches
    # its formulas (rankkit's default, zero, stands, and the names keep their spelling)
    empty: str | None = None
    empty_source: str = ""

    def measure_params(self, metric: str, takes: Iterable[str]) -> dict:
        """The parameters the pack sets for one measure (``takes``: the parameters it declares): its own, and
        its empty rule where the measure takes one."""
        rule = {"empty": self.empty} if self.empty and "empty" in takes else {}
        return {**rule, **self.params.get(metric, {})}

    def changes(self, metric: str, takes: Iterable[str]) -> str | None:
        """What the pack sets for one measure, as a name's parameters and the conventions say it (denom=min,
        queries=run), or None."""
        found = {**self.measure_params(metric, takes), **(self.conventions or {})}
        return ", ".join(f"{name}={value}" for name, value in found.items()) if found else None


# Each library's default settings, read from its source (tests/test_recommender_measures.py tests them,
# against the library where it installs). Users with no relevant item: rankkit's queries="both" counts
# the users in both tables, as Microsoft Recommenders (its common users) and RecBole (the users its test
# split holds) do; a user among them with no relevant item is scored by the pack's empty rule (Pack.empty).
PACKS = {
    "recbole": Pack(
        "RecBole 1.2", "recbole/evaluator/metrics.py", {"ap": {"denom": "min"}, "entropy": {"formula": "recbole"}},
        "MAP@k divides by min(k, the user's relevant items); ShannonEntropy is its own (formula=recbole: -sum p ln p "
        "over the items recommended, divided by their number); Hit, MRR, nDCG (binary gains), Precision (over k) "
        "and Recall are rankkit's",
        empty_source=("recbole/data/dataloader/general_dataloader.py (FullSortEvalDataLoader: its users are those with "
                       "a positive test item; one without never reaches metrics.py)")),
    "recommenders": Pack(
        "Microsoft Recommenders 1.2.1", "recommenders/evaluation/python_evaluation.py",
        {"ap": {"denom": "min"}, "ild": {"similarity": "cooccurrence"}},
        "map_at_k divides by min(k, the user's relevant items) (map, without k, by every relevant item: AP); "
        "diversity's item similarity is co-occurrence in the training log unless asked otherwise "
        "(item_sim_measure='item_cooccurrence_count', utils/constants.py: similarity=cooccurrence); "
        "precision_at_k, recall_at_k and ndcg_at_k (binary; its natural-log discount gives the same ratio) are "
        "rankkit's",
        empty_source=("python_evaluation.py merge_ranking_true_pred: the users common to both tables, each with a test "
                       "item, every one relevant; a user without one never reaches the formulas")),
    "spark": Pack(
        "Spark MLlib 3.5 RankingMetrics", "mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala",
        {"ap": {"denom": "min"}},
        "meanAveragePrecisionAt(k) divides by min(k, the relevant items); precisionAt, recallAt and ndcgAt on binary "
        "labels are rankkit's. Not copied: ndcgAt with graded relevance adds the ideal gains in the labels' input "
        "order, not best first (rankkit's ideal is best first)",
        empty="zero", empty_source=("RankingMetrics.scala: 'Empty ground truth set, check input data' and 0.0, for each measure")),
    "torchmetrics": Pack(
        "torchmetrics 1.9", "src/torchmetrics/functional/retrieval",
        {"ap": {"denom": "retrieved", "scored": "positive"}, "ndcg": {"ideal": "run"}, "p": {"scored": "positive"},
         "r": {"scored": "positive"}, "rr": {"scored": "positive"}},
        "it sees only the items passed for a user (their targets): its ideal DCG is theirs (ideal=run), its AP "
        "divides by the relevant items in the top k, and its recall by the relevant items passed (give the "
        "judgments of those items as the qrels); its precision, recall, AP and reciprocal rank count no item "
        "scored 0 or below as relevant, though it keeps its place (scored=positive: torch.where(preds > 0, target, "
        "0) in precision.py, recall.py, average_precision.py and reciprocal_rank.py; not in hit_rate.py or "
        "ndcg.py); its nDCG averages tied scores (ties='average'); it reads scores in float32 (utilities/checks.py: "
        "scores='float32')",
        empty="zero", empty_source=("src/torchmetrics/retrieval/base.py: RetrievalMetric(empty_target_action='neg'), a query without a "
                       "positive target scoring 0 ('skip', 'pos', 'error': empty=skip, one, error)"),
        conventions={"queries": "run", "scores": "float32"}),
    "lenskit": Pack(
        "LensKit 2026.4", "src/lenskit/metrics/ranking",
        {"ndcg": {"discount": "original"}, "dcg": {"discount": "original"}, "p": {"short": "retrieved"},
         "r": {"denom": "min"}, "ap": {"denom": "listed"}},
        "NDCG and DCG discount rank r by log2(max(r, 2)) (_weighting.py, LogRankWeight); Precision divides by the "
        "items recommended when fewer than k, Recall by min(k, the user's test items) (_pr.py), AveragePrecision by "
        "min(test items, items recommended within k) (_map.py); RecipRank and Hit are rankkit's. Every test item is "
        "relevant whatever its rating (rankkit: a grade >= rel); its RunAnalysis averages over the recommendation "
        "lists and scores 0 a list without test data (bulk.py, list_summary): queries='run'",
        empty="zero", empty_source=("src/lenskit/metrics/ranking: a list without a relevant test item scores 0 (no hit, "
                       "no gain)"),
        conventions={"queries": "run"}),
}


@dataclass(frozen=True)
class Conventions:
    """How rankkit turns judgments and a ranked list into a number (defaults: trec_eval 10.0's).

    Examples
    --------
    >>> Conventions(queries="qrels").as_dict()
    {'ties': 'trec', 'scores': 'double', 'depth': None, 'queries': 'qrels', 'rel': 1.0, 'duplicates': 'error', 'judged_only': False, 'docs': 0, 'pack': None}
    """

    ties: str = "trec"
    scores: str = "double"
    depth: int | None = None
    queries: str = "both"
    rel: float = 1.0
    duplicates: str = "error"
    judged_only: bool = False
    docs: int = 0
    pack: str | None = None

    def __post_init__(self) -> None:
        # Plain Python values, so that the record written to JSON reads back equal.
        if isinstance(self.rel, bool) or not isinstance(self.rel, (int, float)):
            raise RankkitError(f"rel must be a number, got {self.rel!r}")
        object.__setattr__(self, "rel", float(self.rel))
        # not positive: the lean statement read no row and said nothing (an empty frame), and compare
        # and report failed on the missing rows (KeyError 'i'); the CLI and SQL refuse it as here
        if self.depth is not None and (isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1):
            raise RankkitError(f"depth must be a positive integer or None, got {self.depth!r}")
        if self.pack is not None and self.pack not in PACKS:
            raise RankkitError(f"unknown conventions {self.pack!r}: known libraries {', '.join(PACKS)} "
                               f"(or a rankkit.Conventions)")

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


def resolve_conventions(conventions: Conventions | str | None, **given) -> Conventions:
    """The conventions of a call: ``conventions=`` or the separate keywords, not both; a library's name
    (a pack) with keywords beside it.

    ``given`` holds the call's separate keywords (``rel=``, ``ties=`` ...); those left at their
    defaults do not count as given.
    """
    if conventions is None:
        return Conventions(**given)
    if isinstance(conventions, str):
        Conventions(pack=conventions)  # an unknown name is refused before its pack is looked up
        said = {name: value for name, value in given.items() if value != getattr(Conventions(), name)}
        return Conventions(**{**(PACKS[conventions].conventions or {}), **said, "pack": conventions})
    if not isinstance(conventions, Conventions):
        raise RankkitError(f"conventions must be a rankkit.Conventions, got {type(conventions).__name__}")
    defaults = Conventions()
    clash = [name for name, value in given.items() if value != getattr(defaults, name)
             and value != getattr(conventions, name)]
    if clash:
        raise RankkitError(f"give the conventions either as conventions= or as keywords, not both: "
                           f"{', '.join(clash)} differ from conventions=")
    return conventions


def asked_conventions(conventions: Conventions | str | None, **given) -> Conventions | None:
    """The conventions a call asks for, or None when it asks for none (no ``conventions=`` and every
    keyword at its default): values computed elsewhere then bring their own."""
    resolved = resolve_conventions(conventions, **given)
    return resolved if conventions is not None or resolved != Conventions() else None

