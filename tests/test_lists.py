"""The scalar list macros (sql/lists): edge cases, and agreement with the table macros that rank
and judge a run first, bit for bit: both are written from the same measure definitions."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest


def value(con, expression: str):
    return con.execute(f"SELECT {expression}").fetchall()[0][0]


@pytest.mark.parametrize("expression, expected", [
    ("rankkit.cg([]::INTEGER[], 5)", 0.0),
    ("rankkit.dcg([]::INTEGER[], 5)", 0.0),
    ("rankkit.ndcg([0, 0], 2)", 0.0),               # no ideal gain: 0, as trec_eval
    ("rankkit.rr([0, 0], NULL)", 0.0),
    ("rankkit.ap([0, 0], NULL)", 0.0),
    ("rankkit.err([]::INTEGER[], 3)", 0.0),
    ("rankkit.cg([2, NULL, -1, 1], NULL)", 3.0),    # NULL is unjudged, negative gains nothing
    ("rankkit.cg([2, 1], 1, gain := 'exp')", 3.0),
    ("rankkit.dcg([1, 1, 1], 10)", 1 + 1 / 1.584962500721156 + 0.5),  # k beyond the list
    ("rankkit.p([1, 0, 2], 5)", 2 / 5),              # over k even when the list is shorter
    ("rankkit.p([1, 0, 2], NULL)", 2 / 3),
    ("rankkit.p([1, 0, 2], 2.0)", 1 / 2),
    ("rankkit.p([1, 0, 2], 2, rel := 2)", 0.0),
    ("rankkit.rr([0, 1, 2], NULL, rel := 2)", 1 / 3),
    ("rankkit.rr([0, 0, 1], 10)", 1 / 3),              # k second, as in every list macro
    ("rankkit.rr([0, 0, 1], 2)", 0.0),
    ("rankkit.ap([1, 0, 1], NULL)", (1 + 2 / 3) / 2),
    ("rankkit.ap([1, 0, 1], 2)", 1 / 2),
    ("rankkit.ap([1, 0, 1], NULL, num_rel := 4)", (1 + 2 / 3) / 4),
    ("rankkit.ap([2, 1, 2], NULL, rel := 2)", (1 + 2 / 3) / 2),
    ("rankkit.err([4, 4], 2, max := 4)", 15 / 16 + (15 / 16) * (1 / 16) / 2),
    ("rankkit.err([1], 1, max := 1)", 1 / 2),
    ("rankkit.idcg([1, NULL, 3], 2)", 3 + 1 / 1.584962500721156),
    ("rankkit.ndcg([1, 3], 2, ideal := [3, 3, 1])", (1 + 3 / 1.584962500721156) / (3 + 3 / 1.584962500721156)),
])
def test_list_macro_values(con, expression, expected):
    assert value(con, expression) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("expression", ["rankkit.dcg([1, 2], 0)", "rankkit.p([1], -1)", "rankkit.err([1], 0)", "rankkit.cg([1], 1.5)",
                                        "rankkit.ap([0, 0], 0)"])  # AP of no relevant grade reads no cutoff: 0 was given
def test_a_bad_cutoff_is_an_error(con, expression):
    with pytest.raises(duckdb.Error, match=r"measure rankkit\.\w+: the cutoff must be a positive integer"):
        value(con, expression)


def test_an_option_is_checked_whatever_the_grades(con):
    """A check sits in the value where the grades may not reach it (no grade to gain): the table macros
    check every option first, and so do the list macros (this gave 0)."""
    with pytest.raises(duckdb.Error, match="rankkit: measure rankkit.ndcg: gain must be linear or exp, got exponential"):
        value(con, "rankkit.ndcg([]::INTEGER[], 3, gain := 'exponential')")


LISTS = [[3, 2, 3, 0, 1, 2], [0, 0, 1], [4, -1, 0, 2, 1, 3, 0, 0, 1], [0, 0], [1]]


@pytest.mark.parametrize("k", [1, 3, 10])
def test_list_macros_agree_with_the_table_macros(con, k):
    """Grades in rank order through the list macros = the same run ranked and judged in tables;
    the ideal of the table macros is every judged grade of the query, so pass it as ideal."""
    qrels = [(f"q{n}", f"d{i}", g) for n, grades in enumerate(LISTS) for i, g in enumerate(grades)]
    run = [(f"q{n}", f"d{i}", float(len(grades) - i)) for n, grades in enumerate(LISTS) for i, _ in enumerate(grades)]
    con.register("lq", pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]))
    con.register("lr", pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))
    checks = {
        "cg": "rankkit.cg({g}, {k})", "dcg": "rankkit.dcg({g}, {k}, gain := 'exp')",
        "ndcg": "rankkit.ndcg({g}, {k}, ideal := {g})", "rr": "rankkit.rr({g}, {k})",
        "ap": "rankkit.ap({g}, {k}, num_rel := len([x FOR x IN {g} IF x >= 1]))",
        "p": "rankkit.p({g}, {k})", "err": "rankkit.err({g}, {k})",
    }
    args = {"dcg": ", gain := 'exp'"}
    for macro, template in checks.items():
        table = dict(con.execute(f"SELECT query_id, value FROM rankkit.{macro}('lq', 'lr', k := {k}{args.get(macro, '')})").fetchall())
        for n, grades in enumerate(LISTS):
            got, want = value(con, template.format(g=grades, k=k)), table[f"q{n}"]
            assert float(got).hex() == float(want).hex(), (macro, grades, got, want)  # one definition: to the bit


# A value each checked parameter refuses (the prelude's -- spec: checks); a list macro declaring an
# option missing here fails the test below, so a new option cannot go unchecked unnoticed.
REFUSED = {"gain": "'exponential'", "max": "-1", "rel": "'infinity'::DOUBLE", "discount": "'ln'"}


def _list_options():
    from rankkit._paths import sql_dir
    from rankkit.measures import header

    for path in sorted((sql_dir() / "lists").glob("*.sql")):
        fields = header(path)
        for option in fields["options"].replace(",", " ").split():
            if option != "k":  # the cutoff: test_a_bad_cutoff_is_an_error
                yield fields["list"], option


@pytest.mark.parametrize("macro, option", list(_list_options()))
def test_a_list_macro_refuses_what_its_table_macro_refuses(con, macro, option):
    """Every option of a list macro goes through the table macro's check and message: gain :=
    'exponential' gave the linear value and max := -1 an ERR of -3.33 while the table macros refused."""
    bad = REFUSED[option]
    con.register("lq", pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]}))
    con.register("lr", pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]}))
    with pytest.raises(duckdb.Error) as table:
        con.execute(f"FROM rankkit.{macro}('lq', 'lr', k := 3, {option} := {bad})").fetchall()
    with pytest.raises(duckdb.Error) as listed:
        value(con, f"rankkit.{macro}([2, 0, 1], 3, {option} := {bad})")
    said = str(table.value).split(": ", 3)[-1]  # the message after 'rankkit: measure <label>: '
    assert f"rankkit: measure rankkit.{macro}: {said}" in str(listed.value)
