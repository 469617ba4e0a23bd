"""The names Python's readers and the SQL macros share: the common names of each column, the fields
of a TREC line, the suffixes a run file's name sheds. One list each, here; the SQL files use them
through markers such as ``{{coalesce query_id VARCHAR}}`` that :func:`fill` writes out when
``rankkit.macros.script()`` composes the macro script."""

from __future__ import annotations

import re

__all__ = ["ALIASES", "REQUIRED", "OPTIONAL", "QRELS_FIELDS", "RUN_FIELDS", "RUN_SUFFIXES", "fill"]

# Common names of each column, recognised without being told (compared case-insensitively); the
# first is rankkit's own. A recommender's: RecBole's user_id, item_id, rating; LensKit's user, item,
# score, rank; Microsoft Recommenders' userID, itemID, rating, prediction; Spark ALS's user, item,
# rating, prediction; Surprise's uid, iid; MovieLens' userId, movieId. A rating is a judgment: in a
# run it is no score (a run holding only a rating is missing its score, and says so).
ALIASES: dict[str, tuple[str, ...]] = {
    "query_id": ("query_id", "qid", "queryid", "query", "topic", "topic_id", "topicid", "q_id",
                 "user_id", "userid", "user", "uid", "customer_id"),
    "doc_id": ("doc_id", "docid", "docno", "doc", "document", "document_id", "did", "pid", "passage_id",
               "item_id", "itemid", "item", "iid", "items", "product_id", "productid", "movie_id", "movieid"),
    "relevance": ("relevance", "rel", "grade", "label", "judgment", "judgement", "qrel", "rating"),
    "score": ("score", "sim", "similarity", "prediction", "pred", "preds", "predicted"),
    "system": ("system", "run_id", "runid", "run", "tag", "system_id"),
    "rank": ("rank",),
    # subtopic judgments (the diversity measures): ir_measures keeps the subtopic in the iteration column
    "subtopic": ("subtopic", "subtopic_id", "subtopicid", "intent", "aspect", "facet", "iteration", "iter"),
    # the side tables of the beyond-accuracy measures (sql/80_beyond.sql): the catalog and the training log
    "item_id": ("item_id", "itemid", "item", "product_id", "doc_id", "docid", "docno", "doc"),
    "user_id": ("user_id", "userid", "user", "customer_id", "query_id", "qid"),
    "features": ("features", "feature_vector", "vector", "embedding"),
    "category": ("category", "genre"),
    "popularity": ("popularity",),
}
REQUIRED = {"qrels": ("query_id", "doc_id", "relevance"), "run": ("query_id", "doc_id", "score"),
            "subtopics": ("query_id", "subtopic", "doc_id", "relevance"), "queries": ("query_id",),
            "items": ("item_id",), "interactions": ("user_id", "item_id")}
OPTIONAL = {"qrels": (), "run": ("system", "rank"), "subtopics": (), "queries": (),
            "items": ("features", "category"), "interactions": ("popularity",)}

# The fields of a TREC line, in order (a run's line may have more after the tag, ignored).
QRELS_FIELDS = ("query_id", "iteration", "doc_id", "relevance")
RUN_FIELDS = ("query_id", "q0", "doc_id", "rank", "score", "system")
SUBTOPIC_FIELDS = ("query_id", "subtopic", "doc_id", "relevance")  # ndeval's qrels

# What a run file's name sheds, in this order, to name its system (bm25 for bm25.run.gz).
RUN_SUFFIXES = (".gz", ".parquet", ".pq", ".csv", ".tsv", ".txt", ".run", ".trec", ".res")


def fill(sql: str) -> str:
    """The SQL with each ``{{marker ...}}`` written out:

    - ``{{coalesce COLUMN TYPE}}``: the first non-NULL of COLUMN's names, each cast to TYPE
    - ``{{empty_row KIND}}``: ``NULL AS name`` for every name of a qrels or run column
    - ``{{columns KIND}}``: a qrels or run table's columns as ``[{'column': ..., 'names': [...],
      'required': ...}, ...]``, in the order Python's readers match them
    - ``{{fields KIND}}``: the TREC fields of a line as a string (``query_id q0 doc_id ...``)
    - ``{{run_suffixes}}``: RUN_SUFFIXES as a list of strings
    - ``{{names COLUMN}}``: COLUMN's names (ALIASES) as a list of strings
    """
    return re.sub(r"\{\{(\w+)((?: \w+(?:\[\])?)*)\}\}", lambda m: _marker(m.group(1), m.group(2).split()), sql)


def _marker(name: str, args: list[str]) -> str:
    if name == "coalesce":
        column, type_ = args
        return "coalesce(" + ", ".join(f"{_ident(a)}::{type_}" for a in ALIASES[column]) + ")"
    if name == "empty_row":
        return ", ".join(f"NULL AS {_ident(a)}" for column in _columns(args[0]) for a in ALIASES[column])
    if name == "columns":
        return "[" + ", ".join(f"{{'column': {_text(c)}, 'names': {_texts(ALIASES[c])}, "
                               f"'required': {str(c in REQUIRED[args[0]]).lower()}}}"
                               for c in _columns(args[0])) + "]"
    if name == "fields":
        fields = {"qrels": QRELS_FIELDS, "subtopics": SUBTOPIC_FIELDS, "run": RUN_FIELDS}[args[0]]
        return _text(" ".join(fields))
    if name == "run_suffixes":
        return _texts(RUN_SUFFIXES)
    if name == "names":
        return _texts(ALIASES[args[0]])
    raise ValueError(f"unknown marker {{{{{name}}}}} in the SQL")


def _columns(kind: str) -> tuple[str, ...]:
    return REQUIRED[kind] + OPTIONAL[kind]


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _texts(values) -> str:
    return "[" + ", ".join(_text(v) for v in values) + "]"
