"""Each measure's file declares its definition (its value, and the features only it uses) and the
shared features are declared once, in sql/features.sql; the registry reads and checks them all, and
a file that lacks what the composer needs, or reads what nobody declares, is an error naming the file
and line (issue 21)."""

from __future__ import annotations

import re

import pytest

import rankkit

from rankkit.errors import RankkitError
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



def test_a_trace_field_names_the_value_column_and_the_columns_that_explain_it(tmp_path, monkeypatch):
    header = HEADER.replace("-- cite:      none\n", "-- cite:      none\n-- trace:     mine; gain, dcg\n")
    mine = read_measure(metric_file(tmp_path, "-- value: 1.0E0\n", header))
    assert mine.trace == ("mine", ("gain", "dcg"))
    with pytest.raises(ValueError, match=r"mine\.sql: trace: expected 'column; shown, \.\.\.'.*got mine gain"):
        read_measure(metric_file(tmp_path, "-- value: 1.0E0\n", header.replace("mine; gain, dcg", "mine gain")))
    # a column the trace cannot show: neither a traced measure's, nor a rank feature's, nor a contribution
    import rankkit.trace_fields as trace_fields
    from dataclasses import replace

    odd = replace(mine, metric="mine", trace=("mine", ("gain", "stop")))
    monkeypatch.setattr(trace_fields, "registry", lambda: {**registry(), "mine": odd})
    with pytest.raises(RankkitError, match=r"mine\.sql: trace: unknown column stop; expected a traced measure's column"):
        trace_fields.trace_columns()

# ---- parameters: declared once, in the measure's file or the prelude --------------------------

def test_every_parameter_reaches_the_spec_from_its_declaration():
    """rankkit.spec, its checks, the spec's type and the parser's arguments are written from the
    parameters' declarations; a parameter held by another (recall) has no field of its own."""
    from rankkit.measures import beyond_params, params, spec_fields, spec_type
    from rankkit.macros import script

    assert set(params()) - set(spec_fields()) == {"recall"}
    # the beyond-accuracy measures' own too: the name parser reads their names (rankkit.beyond)
    assert [name for name in spec_fields()] == [n for n in [*params(), *beyond_params()] if n != "recall"]
    for field in spec_fields().values():
        assert f" {field.name} {field.type}," in spec_type()
        assert f"'{field.name}': " in script()
    assert "must be a number from 0 to 1" in script()  # p's check, from its declaration


@pytest.mark.parametrize("name, message", [
    ("RBP(p=2)", "p must be a number from 0 to 1, got 2.0"), ("nDCG(gain=log)@5", "gain must be linear or exp, got log"),
    ("utility(coef=[1,2])", "utility takes four numbers"),
    ("ERR(max=0)@5", "max must be a positive number up to 1000 (2^max stays finite), got 0.0"),
    ("ERR(max=1024)@5", "max must be a positive number up to 1000 (2^max stays finite), got 1024.0"),
    ("nDCG(empty=none)", "empty must be zero, skip, one or error, got none")])
def test_a_bad_parameter_value_is_refused_by_its_declared_check(name, message):
    from rankkit.errors import MeasureError
    from rankkit.specs import measure_specs

    with pytest.raises(MeasureError, match=re.escape(message)):
        measure_specs(rankkit.connect(), [name])


@pytest.fixture
def sql_copy(tmp_path, monkeypatch):
    """A copy of sql/ that the registry reads instead, its caches cleared before and after."""
    import shutil

    import rankkit.measures as measures
    from rankkit import _paths

    folder = tmp_path / "sql"
    shutil.copytree(_paths.sql_dir(), folder)
    monkeypatch.setattr(_paths, "sql_dir", lambda: folder)  # the registry reads it
    cached = (measures.params, measures.spec_fields, measures.registry)
    for function in cached:
        function.cache_clear()
    yield folder
    monkeypatch.undo()
    for function in cached:
        function.cache_clear()


@pytest.mark.parametrize("old, new, error", [
    ("-- param: k      BIGINT", "-- param: k", r"00_prelude\.sql:\d+: expected '-- param: <name> <TYPE> := <default>"),
    ("--     check: isfinite(rel::DOUBLE)  ; rel must be a number", "--     check: isfinite(rel::DOUBLE)",
     r"00_prelude\.sql:\d+: expected 'check: <condition> ; <what rel must be>'"),
    ("--     values: linear, exp", "--     range: linear, exp", r"00_prelude\.sql:\d+: expected one each of check:"),
    ("--     values: linear, exp", "--     values: linear, 'exp'", r"00_prelude\.sql:\d+: expected 'values: <word>"),
    ("--     values: linear, exp", "--", r"00_prelude\.sql:\d+: gain needs one of values:")])
def test_a_declaration_that_cannot_be_read_is_an_error_naming_the_line(sql_copy, old, new, error):
    import rankkit.measures as measures

    prelude = sql_copy / "00_prelude.sql"
    assert old in prelude.read_text(encoding="utf-8")
    prelude.write_text(prelude.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ValueError, match=error):
        measures.params()


def test_a_parameter_is_declared_once_and_a_measures_own_is_its_alone(sql_copy):
    import rankkit.measures as measures

    assert measures.params()["p"].owner is None and measures.params()["short"].owner == "p"
    (sql_copy / "metrics" / "zz.sql").write_text("-- param: p DOUBLE := 0.5  again\n--     check: true ; any\n",
                                                 encoding="utf-8")
    measures.params.cache_clear()
    with pytest.raises(ValueError, match=r"zz\.sql:1: parameter p is declared again \(first at .*00_prelude\.sql:\d+\)"):
        measures.params()
    (sql_copy / "metrics" / "zz.sql").unlink()
    measures.params.cache_clear()
    idcg = sql_copy / "metrics" / "idcg.sql"
    idcg.write_text(idcg.read_text(encoding="utf-8").replace("params:    k, gain,", "params:    k, short, gain,"),
                    encoding="utf-8")
    with pytest.raises(ValueError, match=r"idcg\.sql: parameter short is p's own \(.*p\.sql:\d+\); a parameter "
                                         r"several measures take is declared in sql/00_prelude\.sql"):
        measures.read_measure(idcg)


def test_the_prelude_declares_only_what_several_measures_take():
    """A parameter held by another counts as that one (IPrec's recall is the one element of levels);
    docs is also an option of the evaluation (trec_eval -N, the parser's docs argument)."""
    from rankkit.measures import params, registry

    for param in params().values():
        held = {p.name for p in params().values() if p.held == param.name}
        takers = [m.metric for m in registry().values() if param.name in m.params or held & set(m.params)]
        assert (len(takers) > 1 or param.name == "docs") if param.owner is None else takers == [param.owner], param

@pytest.mark.parametrize("field, error", [
    ("ideal=best", r"ndcg\.sql: top_k: ideal=best is not a value of one of its parameters"),
    ("sometimes", r"ndcg\.sql: top_k: expected yes, or the parameters' values under which")])
def test_a_top_k_field_that_cannot_be_read_names_the_file(sql_copy, field, error):
    import rankkit.measures as measures

    ndcg = sql_copy / "metrics" / "ndcg.sql"
    ndcg.write_text(ndcg.read_text(encoding="utf-8").replace("top_k:     ideal=qrels", f"top_k:     {field}"),
                    encoding="utf-8")
    with pytest.raises(ValueError, match=error):
        measures.read_measure(ndcg)


def test_a_beyond_measures_check_is_written_from_its_declaration_alone():
    """The beyond-accuracy macros (sql/80_beyond.sql) read their parameters' checks as {{checked name}}:
    the refusal's words live in the measure's file (sql/metrics/beyond/*.sql) and nowhere else."""
    from rankkit import _paths
    from rankkit.macros import script
    from rankkit.measures import beyond_params

    for param in beyond_params().values():
        holders = [path.name for path in _paths.sql_dir().rglob("*.sql") if param.must in path.read_text(encoding="utf-8")]
        assert set(holders) <= {f"{param.owner}.sql"}, param.name  # words of values: are written of them
    for name in ("formula", "tail"):  # the macros' arguments checked (ILD's similarity picks a macro)
        assert f"'{beyond_params()[name].must}, got '" in script(), name
