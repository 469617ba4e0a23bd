"""Each measure's file declares its definition (its value, and the features only it uses) and the
shared features are declared once, in sql/features.sql; the registry reads and checks them all, and
a file that lacks what the composer needs, or reads what nobody declares, is an error naming the file
and line (issue 21)."""

from __future__ import annotations

import pytest

from rankkit.measures import inputs, read_measure, registry, shared_features

NUMERIC = sorted(m.metric for m in registry().values() if m.aggregate != "text")
HEADER = """-- name:      Mine
-- aliases:
-- params:    k, rel
-- aggregate: mean
-- summary:   a measure written for this test
-- cite:      none

"""


def metric_file(tmp_path, body: str, header: str = HEADER):
    path = tmp_path / "mine.sql"
    path.write_text(header + body, encoding="utf-8")
    return path


@pytest.mark.parametrize("metric", NUMERIC)
def test_every_numeric_measure_declares_its_value(metric):
    measure = registry()[metric]
    assert measure.value is not None, f"{measure.path.name} declares no '-- value:'"
    assert measure.value.where.startswith(str(measure.path))


def test_the_shared_features_and_inputs_are_declared_once():
    assert {"ranks", "grades", "num_ret", "qrels_grades"} <= set(inputs())
    assert {"num_rel", "ideal", "rel_ranks", "n_cut", "gains", "dcg", "idcg"} <= set(shared_features())
    assert [f.when for f in shared_features()["dcg"]] == [None, ("ties", "average")]


def test_a_measure_read_from_its_file(tmp_path):
    path = metric_file(tmp_path, "-- value: rankkit.ratio({hits}, {num_rel})\n"
                                 "-- feature: hits := len(list_filter({grades}[:{n_cut}],\n"
                                 "--     lambda g: g >= {s.rel}))\n")
    measure = read_measure(path)
    assert measure.value.features == ("hits", "num_rel")
    assert measure.features[0].expr == "len(list_filter({grades}[:{n_cut}], lambda g: g >= {s.rel}))"
    assert measure.features[0].params == ("rel",)
    assert measure.ties == ("trec", "rank")


@pytest.mark.parametrize(("body", "error"), [
    ("", r"mine\.sql: declares no '-- value: expression'"),
    ("-- value: {hits} * 1.0E0\n", r"mine\.sql:8: unknown feature \{hits\} in value"),
    ("-- value: {num_rel} * {s.depth}\n", r"mine\.sql:8: unknown parameter \{s\.depth\} in value"),
    ("-- value: {x}\n-- feature: x := {ranks}[1] + {nope}\n", r"mine\.sql:9: unknown feature \{nope\} in x"),
    ("-- value: {num_rel}\n-- feature: num_rel := 1\n", r"mine\.sql:9: feature num_rel is already declared in sql/features\.sql"),
    ("-- value: {x}\n-- feature: x [colour=red] := 1\n", r"mine\.sql:9: x \[colour=\.\.\.\]: expected a parameter"),
    ("-- value: {x}\n-- feature: x := 1\n-- feature: x := 2\n", r"mine\.sql:10: feature x is declared again \(first at .*mine\.sql:9\)"),
    ("-- value: 1.0E0\n-- value: 2.0E0\n", r"mine\.sql:9: a second '-- value:'"),
    ("-- value: 1.0E0\n-- feature: x = 1\n", r"mine\.sql:9: cannot read this declaration"),
    ("-- value: {x}\n-- feature: x := {y}\n-- feature: y [k=NULL] := {x}\n-- feature: y := 1\n",
     r"mine\.sql:9: feature x reads itself \(x -> y -> x\)"),
    ("-- value: 1.0E0\n-- input: ranks run again\n", r"mine\.sql:9: inputs are declared in sql/features\.sql only"),
])
def test_a_file_that_lacks_or_misreads_its_definition_is_an_error_naming_file_and_line(tmp_path, body, error):
    with pytest.raises(ValueError, match=error):
        read_measure(metric_file(tmp_path, body))


def test_a_text_measure_needs_no_value(tmp_path):
    assert read_measure(metric_file(tmp_path, "", HEADER.replace("mean", "text"))).value is None


def test_a_tie_rule_the_header_does_not_know_is_an_error(tmp_path):
    with pytest.raises(ValueError, match=r"mine\.sql: ties: expected some of trec, rank, average, got trec, coin"):
        read_measure(metric_file(tmp_path, "-- value: 1.0E0\n", HEADER.replace("-- cite:      none\n",
                                                                                 "-- cite:      none\n-- ties: trec, coin\n")))
