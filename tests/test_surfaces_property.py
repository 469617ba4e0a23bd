"""One definition, every surface (issue 34): for every registered measure and any values of its
parameters, good or bad, the list macro (rankkit.ndcg([...], k)), the table macro, the composed
statement (rankkit.evaluate), the trace (rankkit.trace's column at rank k) and the explorer (its
values, and its drill-down's trace) give the same double, or all refuse with the same words."""

from __future__ import annotations

import re
import warnings

import duckdb
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankkit
from rankkit._paths import sql_dir
from rankkit.dialect import DUCKDB
from rankkit.trace_fields import trace_params, traced
from rankkit.errors import RankkitError
from rankkit.explore.data import ExplorerData, parse_measure
from rankkit.measures import default, header, needs_subtopics, registry, spec_types

# The measures every surface computes: numbers, from one qrels table and one run (the diversity
# measures read subtopic judgments, which neither the explorer nor the trace takes)
METRICS = sorted(m.metric for m in registry().values() if m.value is not None and not needs_subtopics(m.metric))
# Values each parameter may take: some good, and last one that its prelude check refuses
VALUES = {
    "k": [1, 3, 10, 0], "rel": [1.0, 2.0, float("inf")], "gain": ["linear", "exp", "exponential"],
    "ideal": ["qrels", "run", "best"], "empty": ["zero", "skip", "never"], "max": [4.0, 2.0, -1.0],
    "recall": [0.0, 0.5, 1.5], "levels": [[0.0, 0.5, 1.0], [2.0]], "mult": [1.0, 2.0, -1.0],
    "beta": [1.0, 0.5, -1.0], "p": [0.9, 0.5, 1.5], "coef": [[1.0, -1.0, 0.0, 0.0], [2.0, -1.0, 0.0, 1.0], [1.0, 2.0]],
    "gains": [None, "1=9,2=1,3=1", "1=3,2=9", "1=x"], "docs": [0, 100, -1], "T": [1.0, 2.0, 0.0],
    "binary_rel": [None, 2.0, float("inf")], "bottom": [0.0, 1.0, float("inf")],
    "denom": ["all", "min", "retrieved", "listed", "half"], "discount": ["log2", "original", "ln"], "short": ["k", "retrieved", "none"],
    "scored": ["any", "positive", "negative"],
}
# The scalar list macros (sql/lists): their measure and the options they take
LISTS = {fields["measure"]: (fields["list"], fields["options"].replace(",", " ").split())
         for fields in map(header, sorted((sql_dir() / "lists").glob("*.sql")))}


@st.composite
def cases(draw):
    """A measure with a value for each of its parameters (at most one of them bad), and one system's
    run over three queries retrieving every judged document (so that a list of grades in rank order
    is the query: the list macros' case) and a few unjudged ones, scores apart, some at 0 or below
    (scored=positive's case)."""
    measure = registry()[draw(st.sampled_from(METRICS))]
    bad = draw(st.sampled_from([None, None, *measure.params]))
    values = {name: draw(st.sampled_from(VALUES[name][:-1])) for name in measure.params}
    if bad is not None:
        values[bad] = VALUES[bad][-1]
    qrels, run = [], []
    for q in ("q1", "q2", "q3"):
        grades = draw(st.lists(st.integers(-1, 3), min_size=1, max_size=6))
        docs = [f"{q}d{i}" for i in range(len(grades))] + [f"{q}u{i}" for i in range(draw(st.integers(0, 2)))]
        order = draw(st.permutations(docs))
        below = draw(st.integers(0, 3))  # the scores of the last ranks at 0 or below
        qrels += [(q, doc, grade) for doc, grade in zip(docs, grades)]
        run += [("s", q, doc, float(len(order) - n - below)) for n, doc in enumerate(order)]
    return (measure, values, pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"]))


@pytest.fixture(scope="module")
def con():
    return rankkit.connect()


@settings(max_examples=10, deadline=None)  # some 0.5 s each: every surface binds its own statement
@given(case=cases())
def test_every_surface_gives_the_same_value_or_the_same_refusal(con, case):
    measure, values, qrels, run = case
    con.register("sq", qrels)
    con.register("sr", run)
    found = {"table macro": _table(con, measure, values), "evaluate": _evaluate(con, measure, values, qrels, run)}
    found |= _explorer(con, measure, values, qrels, run)
    if measure.metric in LISTS and all(values[p] == default(p) for p in measure.params
                                       if p not in LISTS[measure.metric][1]):
        found["list macro"] = _list(con, measure, values, run, qrels)
    if measure.metric in traced():
        found["trace"] = _at_k(_attempt(lambda: rankkit.trace(qrels, run, ["q1", "q2", "q3"], values["k"],
                                                              con=con, **_trace_options(measure, values))),
                               measure, values)
    first, said = next(iter(found.items()))
    for surface, answer in found.items():
        assert answer == said, (measure.name, values, first, said, surface, answer)


def _attempt(work):
    """What a surface answers: its result, or the rule its refusal states."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankkit.RankkitWarning)
            return work()
    except (duckdb.Error, RankkitError) as error:
        return ("refused", _rule(str(error)))


def _rule(message: str) -> str:
    """A refusal's rule, after the measure it names and before the value it got: 'gain must be linear
    or exp' (the name parser writes -1 as -1.0, a macro as -1)."""
    found = re.search(r"measure [^:]*?: (.*?)(?:, got .*)?$", message.splitlines()[0])
    assert found, message
    rule = found.group(1)
    # a name gives its cutoff after @: the parser says so in its own words
    return "the cutoff must be a positive integer" if rule.startswith("the cutoff") else rule


def _literal(name: str, value) -> str:
    type_ = "DOUBLE" if name == "recall" else spec_types()[name]
    if value is None:
        return "NULL"
    if value == float("inf"):
        return "'infinity'::DOUBLE"
    if name == "gains":
        return DUCKDB.literal(value, "VARCHAR")
    return DUCKDB.literal(value, type_)


def _table(con, measure, values) -> dict | tuple:
    arguments = "".join(f", {name} := {_literal(name, value)}" for name, value in values.items())
    return _attempt(lambda: _by_query(con.execute(f"SELECT query_id, value FROM {measure.macro}('sq', 'sr'{arguments})")
                                      .fetchall()))


def _name(measure, values) -> str:
    """The measure's name with every parameter written out (IPrec's recall level and the cutoff after @)."""
    def text(value) -> str:
        if isinstance(value, list):
            return "[" + ",".join(f"{v:g}" for v in value) + "]"
        if isinstance(value, str) and "=" in value:
            return f"[{value}]"
        return f"{value:g}" if isinstance(value, float) else str(value)

    inside = ",".join(f"{name}={text(value)}" for name, value in values.items()
                      if name not in ("k", "recall") and value is not None)
    at = f"@{values['k']}" if "k" in values else f"@{text(values['recall'])}" if "recall" in values else ""
    return measure.name + (f"({inside})" if inside else "") + at


def _evaluate(con, measure, values, qrels, run):
    frame = _attempt(lambda: rankkit.evaluate(qrels, run, [_name(measure, values)], per_query=True, con=con))
    return frame if isinstance(frame, tuple) else _by_query(zip(frame["query_id"], frame["value"]))


def _explorer(con, measure, values, qrels, run) -> dict:
    """The explorer's values of the measure, and its drill-down's trace at rank k (a measure it traces)."""
    data = ExplorerData(qrels, run, con=con)
    try:
        setting = _attempt(lambda: parse_measure(data.con, _name(measure, values)))
        if isinstance(setting, tuple):
            return {"explorer": setting} | ({"drill-down": setting} if measure.metric in traced() else {})
        frame = data.values(setting, batch=False)
        found = {"explorer": _by_query(zip(frame["query_id"], frame["value"]))}
        if measure.metric in traced():
            found["drill-down"] = _at_k(data.trace(["q1", "q2", "q3"], setting), measure, values)
        return found
    finally:
        data.close()


def _list(con, measure, values, run, qrels):
    """Per query, the list macro over its grades in rank order (NULL: unjudged), options as its arguments."""
    macro, options = LISTS[measure.metric]
    judged = dict(zip(zip(qrels["query_id"], qrels["doc_id"]), qrels["relevance"]))
    found = {}
    for query_id, rows in run.groupby("query_id"):
        grades = [judged.get((query_id, doc)) for doc in rows.sort_values("score", ascending=False)["doc_id"]]
        listed = "[" + ", ".join("NULL" if g is None else str(g) for g in grades) + "]::INTEGER[]"
        arguments = "".join(f", {name} := {_literal(name, values[name])}" for name in options if name != "k")
        answer = _attempt(lambda: con.execute(f"SELECT rankkit.{macro}({listed}, {values['k']}{arguments})").fetchall())
        if isinstance(answer, tuple):
            return answer
        found[query_id] = float(answer[0][0]).hex()
    return found


def _trace_options(measure, values) -> dict:
    """rankkit.trace's keyword arguments: the measure's values of the options the trace takes."""
    return {name: values[name] for name in trace_params() if name != "k" and name in values}


def _at_k(trace, measure, values):
    """Per query, the trace's column of the measure at rank k (or its refusal)."""
    if isinstance(trace, tuple):
        return trace
    at = trace[trace["rank"] == values["k"]]
    return _by_query(zip(at["query_id"], at[traced()[measure.metric]]))


def _by_query(rows) -> dict:
    """Per query id, the value's bits (NaN, NULL: None)."""
    return {q: None if v is None or pd.isna(v) else float(v).hex() for q, v in rows}
