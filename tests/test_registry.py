"""Bookkeeping: a measure is not done until its SQL file, its header, its tests and its row in the
measure table of docs/measures.md exist (as scikit-learn's test_common keeps its metric registries honest)."""

from __future__ import annotations

import re

import pytest

import rankkit

from rankkit._paths import sql_dir
from rankkit.macros import list_macros_sql, table_macros_sql
from rankkit.measures import registry
from support import ROOT

MEASURES = sorted(registry())
LISTS = sorted(p.stem for p in (sql_dir() / "lists").glob("*.sql"))


def header(path) -> dict[str, str]:
    fields = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("--"):
            break
        if found := re.match(r"^--\s*(\w+):\s*(.*?)\s*$", line):
            fields[found.group(1)] = found.group(2)
    return fields


def test_every_metric_file_is_registered():
    assert MEASURES == sorted(p.stem for p in (sql_dir() / "metrics").glob("*.sql"))
    assert len(MEASURES) >= 16


@pytest.mark.parametrize("metric", MEASURES)
def test_header_declares_the_measure(metric):
    measure = registry()[metric]
    fields = header(measure.path)
    for field in ("name", "aliases", "params", "aggregate", "summary", "cite"):
        assert field in fields, f"{measure.path.name}: header lacks '{field}:'"
    assert measure.name and measure.summary and measure.cite
    assert measure.aggregate in ("mean", "sum", "gmean", "text")


@pytest.mark.parametrize("metric", MEASURES)
def test_the_table_macro_is_generated_from_the_header(metric):
    """A measure file holds its header and its definition; its table macro is written from them (a
    text measure, relstring or runid, writes its own)."""
    measure = registry()[metric]
    text = measure.path.read_text(encoding="utf-8")
    generated = re.search(rf"CREATE OR REPLACE MACRO rankkit\.{metric}\(qrels_table, run_table\b(.*?)\) AS TABLE",
                          table_macros_sql())
    if measure.value is None:
        assert generated is None and f"CREATE OR REPLACE MACRO rankkit.{metric}(qrels_table, run_table" in text
        return
    assert "CREATE" not in text, f"{measure.path.name} writes SQL the generator writes"
    named = re.findall(r"(\w+) :=", generated.group(1))
    assert named == [*measure.params, "ties", "scores", "depth", "queries", "judged_only"]


@pytest.mark.parametrize("metric", MEASURES)
def test_measure_has_its_own_tests(metric):
    path = ROOT / "tests" / "sql" / f"test_{metric}.py"
    assert path.exists(), f"{path.relative_to(ROOT)} is missing: every measure has its own tests"
    assert f"rankkit.{metric}(" in path.read_text(encoding="utf-8") or f'values("{metric}"' in path.read_text(encoding="utf-8")


def readme_measures() -> str:
    """The measure table of the documentation (docs/measures.md, written by python -m rankkit.docs)."""
    text = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    if "<!-- measures:start -->" not in text:
        return ""
    return text.split("<!-- measures:start -->", 1)[1].split("<!-- measures:end -->", 1)[0]


@pytest.mark.parametrize("metric", MEASURES)
def test_measure_has_its_readme_row(metric):
    section = readme_measures()
    assert section, "docs/measures.md has no <!-- measures:start --> ... <!-- measures:end --> section"
    measure = registry()[metric]
    assert re.search(rf"^\| `{re.escape(measure.name)}[`@(]", section, re.MULTILINE), f"docs/measures.md lacks a row for {measure.name}"
    assert f"sql/metrics/{metric}.sql" in section


# ---- the scalar list macros (sql/lists) -----------------------------------------------------------

@pytest.mark.parametrize("name", LISTS)
def test_list_macro_header_and_its_example_holds(name, con):
    """Each list macro's header gives an example, and the example is true.
    No 'aggregate:' field: list macros are not measures of the registry."""
    fields = header(sql_dir() / "lists" / f"{name}.sql")
    assert fields.get("list") == name
    assert "signature" not in fields and fields["summary"] and fields["cite"]  # the signature is generated
    assert "aggregate" not in fields and "name" not in fields
    expression, value = fields["example"].rsplit(" = ", 1)
    assert con.execute(f"SELECT {expression}").fetchall()[0][0] == pytest.approx(float(value), abs=1e-5)


@pytest.mark.parametrize("name", LISTS)
def test_list_macro_takes_grades_first_and_k_second_and_names_the_rest(name):
    """One calling convention for every list macro: rankkit.rr([0, 0, 1], 10) once read the 10 as a
    relevance level, rankkit.ap as a number of relevant documents."""
    found = re.search(rf"CREATE OR REPLACE MACRO rankkit\.{name}\((.*?)\) AS\n", list_macros_sql())
    assert found, f"rankkit.{name} is not generated from {name}.sql"
    params = [p.strip() for p in found.group(1).split(",")]
    assert params[:2] == ["grades", "k"], f"rankkit.{name}({found.group(1)}): grades first, k second"
    assert all(":=" in p for p in params[2:]), f"rankkit.{name}({found.group(1)}): other parameters are named"
    options = header(sql_dir() / "lists" / f"{name}.sql")["options"].replace(",", " ").split()
    assert [p.split(" := ")[0] for p in params if p.split(" := ")[0] in options] == ["k", *options[1:]]


@pytest.mark.parametrize("name, label", [
    ("IPrec@0.5", "IPrec@0.5"), ("iprec_at_recall_0.30", "IPrec@0.3"), ("IPrec(rel=2)@0", "IPrec(rel=2)"),
    ("RBP(p=0.8)", "RBP(p=0.8)"), ("nDCG(gain=exp,ideal=run)@5", "nDCG(gain=exp, ideal=run)@5"),
    ("utility(coef=[2,-1,0,0],docs=100)", "utility(coef=[2,-1,0,0], docs=100)"), ("ndcg_cut_10", "nDCG@10"),
    ("11pt_avg(levels=[.25,.5])", "11pt_avg(levels=[0.25,0.5])"), ("DCG(gains=2=5)@5", "DCG(gains=[2=5])@5"),
    ("ndcg_1=3,2=9", "nDCG(gains=[1=3,2=9])"),
    ("nDCG(gains=[1=3,4=4.5],gain=exp)@5", "nDCG(gain=exp, gains=[1=3,4=4.5])@5")])
def test_label_names_a_parsed_measure_so_the_parser_reads_it_back(name, label):
    # IPrec's recall is kept in the spec as levels[0]: label raised KeyError('recall')
    from rankkit.specs import measure_specs
    from rankkit.measures import label as label_of

    con = rankkit.connect()
    spec = measure_specs(con, [name])[0]
    assert label_of(spec) == label
    assert measure_specs(con, [label])[0] | {"measure": name} == spec


@pytest.mark.parametrize("agg", ["mean", "sum", "gmean"])
def test_the_aggregation_rule_is_declared_once(agg, con):
    """rankkit.measures.AGGREGATIONS is the rule every engine writes out: SQL's rankkit.combined (evaluate),
    agree's weighted draws, the bootstrap's statistic and Spark's over_values, each generated from it."""
    from rankkit.agreement import _combined
    from rankkit.measures import AGGREGATIONS
    from rankkit.spark_dialect import over_values

    values = [0.5, 0.0, 0.25]
    rule = AGGREGATIONS[agg]
    terms = [float(t) for t in con.execute(f"SELECT [{rule.term('v')} FOR v IN ?::DOUBLE[]]", [values]).fetchone()[0]]
    expected = rule.of_terms(terms)
    con.execute("CREATE OR REPLACE TABLE v AS SELECT * FROM (VALUES (1, 'm', ?, 's', 'q1', 0.5), (1, 'm', ?, 's', 'q2', 0.0), "
                "(1, 'm', ?, 's', 'q3', 0.25)) t(i, measure, agg, system, query_id, value)", [agg] * 3)
    assert con.execute("SELECT value FROM rankkit.over_values('v')").fetchone()[0] == pytest.approx(expected, rel=1e-12)
    weighted = con.execute(f"SELECT {_combined(agg, 'value')} FROM (SELECT *, 1 AS weight FROM v)").fetchone()[0]
    assert weighted == pytest.approx(expected, rel=1e-12)
    assert f"WHEN max(agg) = '{agg}'" in over_values("v") or agg == next(iter(AGGREGATIONS))


@pytest.mark.parametrize("file, field, value, message", [
    ("ap.sql", "aggregate", "median", r"ap.sql: aggregate: expected one of mean, sum, gmean or text, got median"),
    ("fallout.sql", "better", "smaller", r"fallout.sql: better: expected higher, lower, none, got smaller")])
def test_a_header_field_of_an_unknown_value_is_refused(tmp_path, file, field, value, message):
    from rankkit.measures import read_measure

    text = (sql_dir() / "metrics" / file).read_text(encoding="utf-8")
    path = tmp_path / file
    path.write_text(re.sub(rf"(?m)^-- {field}: .*$", f"-- {field}: {value}", text), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_measure(path)
