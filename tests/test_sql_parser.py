"""The SQL name parser is one scalar expression (rankkit.parse_measures), and the input checks one row of
aggregates (issue 21): what the SQL user's rankkit.evaluate plans first. These pin what both say."""

from __future__ import annotations

import re

import duckdb
import pytest

from rankkit import _sql

QRELS = "SELECT * FROM (VALUES ('q1', 'a', 2), ('q1', 'b', 0), ('q2', 'c', 1)) t(query_id, doc_id, relevance)"
RUN = ("SELECT * FROM (VALUES ('q1', 'a', 0.9), ('q1', 'b', 0.8), ('q2', 'c', 0.5), ('q2', 'x', 0.7)) "
       "t(query_id, doc_id, score)")


@pytest.fixture(scope="module")
def con():
    con = _sql.connect()
    # a table macro building a statement's text from its constant argument, as the lean path would
    con.execute("CREATE MACRO parsed_text(measures) AS TABLE FROM query('SELECT ''' || array_to_string("
                "list_transform(rankkit.parse_measures(measures), lambda s: (s).measure || ' k=' || coalesce((s).k::VARCHAR, '-')), "
                "', ') || ''' AS specs')")
    yield con
    con.close()


def error_of(con, query: str, parameters=None) -> str:
    with pytest.raises(duckdb.Error) as caught:
        con.execute(query, parameters).fetchall()
    return str(caught.value)


def test_the_parser_folds_inside_a_table_functions_arguments(con):
    # there DuckDB reads a lambda's r.field as the text 'r.field': the parser writes (r).field
    text = con.execute("FROM parsed_text(['nDCG@10', 'ndcg_cut_5', 'P(rel=2)@7', 'official'])").fetchall()[0][0]
    assert text.startswith("nDCG@10 k=10, ndcg_cut_5 k=5, P(rel=2)@7 k=7, ")
    assert ", map k=-, " in text


def test_a_constant_list_of_names_folds_while_planned(con):
    """The names' trec_eval forms, nicknames and refusals by name fold to constants when the names are
    constant: no error() among them (a refusal is raised where the specs are checked). An error() there kept
    every stage of the parser in each statement's plan, which rankkit.evaluate's optimizer walked again."""
    plan = con.execute("EXPLAIN SELECT rankkit.parse_measures(['nDCG@10', 'AP', 'P.5'])").fetchall()[0][1]
    for listed in ("iprec_at_recall_0.10", "cwl_eval"):  # trec_eval's lists, the refusals' words
        assert listed not in plan


@pytest.mark.parametrize("name, said", [
    ("nDGC@10", "rankkit: unknown measure 'nDGC@10'; did you mean nDCG, CG, DCG?"),
    ("P(rel=x)@5", "rankkit: measure 'P(rel=x)@5': rel must be a number, got 'x'"),
    ("Rprec@10", "rankkit: measure 'Rprec@10': Rprec takes no cutoff"),
    ("nDCG(gain=cubic)@10", "rankkit: measure nDCG(gain=cubic)@10: gain must be linear or exp, got cubic"),
])
def test_a_bad_name_is_refused_alike_in_every_place(con, name, said):
    assert said in error_of(con, "FROM parsed_text([?])".replace("?", f"'{name}'"))
    assert said in error_of(con, "FROM rankkit.measure_specs(?::VARCHAR[])", [[name]])
    con.execute("CREATE OR REPLACE TABLE q AS " + QRELS)
    con.execute("CREATE OR REPLACE TABLE r AS " + RUN)
    assert said in error_of(con, f"FROM rankkit.evaluate('q', 'r', ['{name}'])")


def test_measure_specs_are_the_parsers_list_in_the_order_asked(con):
    # a name asked twice is one measure in its first place; a nickname stands for its measures there
    listed = con.execute("SELECT rankkit.parse_measures(['AP', 'P@5', 'AP', 'map'])").fetchall()[0][0]
    rows = [row[0] for row in con.execute("FROM rankkit.measure_specs(['AP', 'P@5', 'AP', 'map'])").fetchall()]
    assert rows == listed
    assert [(s["i"], s["measure"]) for s in listed] == [(1, "AP"), (2, "P@5"), (4, "map")]



def test_a_text_measure_asked_by_name_beside_its_nickname_is_asked(con):
    """official holds runid quietly (left out of numbers); runid named too is asked: refused where numbers
    are wanted, not dropped without a word, and listed once with text := true."""
    said = error_of(con, "SELECT rankkit.parse_measures(['official', 'runid'])")
    assert "measure 'runid' is text, not a number" in said
    listed = con.execute("SELECT rankkit.parse_measures(['official', 'runid'], text := true)").fetchall()[0][0]
    assert [s["measure"] for s in listed].count("runid") == 1
    assert "runid" not in [s["measure"] for s in con.execute("SELECT rankkit.parse_measures(['official'])").fetchall()[0][0]]

BAD = [
    ("run", "(VALUES (NULL, 'a', 0.9)) t(query_id, doc_id, score)",
     "rankkit: run table r: a NULL query id (document a)"),
    ("run", "(VALUES ('q1', NULL, 0.9)) t(query_id, doc_id, score)", "rankkit: run table r: a NULL document id for query q1"),
    ("run", "(VALUES ('q1', 'a', 'NaN'::DOUBLE)) t(query_id, doc_id, score)",
     "rankkit: run table r: the score of document a for query q1 is NaN; expected a finite number"),
    ("qrels", "(VALUES ('q1', 'a', 'inf'::DOUBLE)) t(query_id, doc_id, relevance)",
     "rankkit: qrels table q: the relevance of document a for query q1 is inf; expected a finite number"),
    ("run", "(VALUES ('s', 'q1', 'b', 0.9), ('s', 'q1', 'b', 0.8), ('s', 'q1', 'a', 0.7), ('s', 'q1', 'a', 0.6)) "
            "t(system, query_id, doc_id, score)", "rankkit: duplicate document a for query q1 in system s in the run"),
    ("qrels", "(VALUES ('q2', 'c', 1), ('q2', 'c', 0)) t(query_id, doc_id, relevance)",
     "rankkit: duplicate document c for query q2 in the qrels"),
    ("run", "(VALUES ('q1', 'a')) t(query_id, doc_id)", "rankkit: run table r: missing column score"),
]


@pytest.mark.parametrize("which, rows, said", BAD)
def test_the_input_checks_refuse_as_before(con, which, rows, said):
    con.execute("CREATE OR REPLACE TABLE q AS " + (f"SELECT * FROM {rows}" if which == "qrels" else QRELS))
    con.execute("CREATE OR REPLACE TABLE r AS " + (f"SELECT * FROM {rows}" if which == "run" else RUN))
    assert said in error_of(con, "FROM rankkit.input_checks('q', 'r')")
    assert said in error_of(con, "FROM rankkit.evaluate('q', 'r', ['AP'])")


def test_validate_false_skips_the_row_checks(con):
    con.execute("CREATE OR REPLACE TABLE q AS " + QRELS)
    con.execute("CREATE OR REPLACE TABLE r AS SELECT * FROM (VALUES ('q1', 'a', 0.9), ('q1', 'a', 0.8)) "
                "t(query_id, doc_id, score)")
    assert con.execute("FROM rankkit.input_checks('q', 'r', validate := false)").fetchall() == [(True,)]
    assert "duplicate document a" in error_of(con, "FROM rankkit.input_checks('q', 'r')")


# trec_eval's names in each form (its -m parameter forms among them), rankkit's, ir_measures' and ranx's
LABELLED = ["ndcg_cut.10", "ndcg_cut_10", "nDCG@10", "P.5", "P_5", "P.5,7,3", "P.", "recall.100", "map", "map_cut.10",
            "iprec_at_recall.0.1", "iprec_at_recall..10,.25", "Rprec_mult.0.2,5.0", "ndcg_cut.10,20,23.4",
            "success.2,5,20", "utility.2,-1,0,0", "ndcg.1=3,2=9", "rbp.p=0.8", "set_F.0.5", "11pt_avg..25,.5,.75",
            "P(rel=2)@5", "NDCG@10", "ndcg_burges@10", "official"]


def test_sql_and_python_label_a_measure_alike(con):
    """SQL labelled ndcg_cut.10 as given, Python (as trec_eval prints it) ndcg_cut_10; P.5,10 was refused in SQL."""
    import rankkit
    from rankkit.specs import measure_specs

    # Python's names are the ones its evaluate gives its rows; each name parsed on its own in SQL too
    python = [[spec["measure"] for spec in measure_specs(con, name)] for name in LABELLED]
    sql = con.execute("SELECT list_transform(?::VARCHAR[], lambda n: [(s).measure FOR s IN rankkit.parse_measures(n)])",
                      [LABELLED]).fetchall()[0][0]
    assert dict(zip(LABELLED, sql)) == dict(zip(LABELLED, python))
    qrels, run = con.execute(QRELS).df(), con.execute(RUN).df()
    con.execute("CREATE OR REPLACE TABLE q AS " + QRELS)
    con.execute("CREATE OR REPLACE TABLE r AS " + RUN)
    asked = ["ndcg_cut.10", "P.5,10"]
    python = rankkit.evaluate(qrels, run, asked, con=con)["measure"].tolist()
    sql = [m for (m,) in con.execute("SELECT measure FROM rankkit.evaluate('q', 'r', ?)", [asked]).fetchall()]
    assert python == sql == ["ndcg_cut_10", "P_5", "P_10"]
    said = "rankkit: measure 'P.x': trec_eval's P takes positive integers separated by commas, got 'x'"
    assert said in error_of(con, "FROM rankkit.evaluate('q', 'r', ['P.x'])")
    with pytest.raises(rankkit.RankkitError, match=said.removeprefix("rankkit: ")):
        rankkit.evaluate(qrels, run, ["P.x"], con=con)


@pytest.mark.parametrize("asked", [["P", "P.5"], ["P.5", "P"], ["official", "P.5"], ["map", "P.5,10", "P.3"],
                                   ["all_trec", "ndcg_cut.10", "recall.7"], ["P.5", "nDCG@10", "P."]])
def test_a_family_named_again_replaces_its_parameters_in_sql_as_in_python(con, asked):
    """trec_eval keeps one parameter list per measure: ['P', 'P.5'] is P_5 alone, in P's place. SQL gave
    P's defaults and P_5."""
    from rankkit.trec import FAMILIES, NICKNAMES, default_names

    def family(name: str, given: str | None = None) -> list[str]:
        return [f"{name}_{value}" for value in given.split(",")] if given else default_names(FAMILIES[name])

    def nickname(name: str, **given: str) -> list[str]:
        return [n for f in NICKNAMES[name] if not FAMILIES[f].text for n in family(f, given.get(f))]

    expected = {("P", "P.5"): ["P_5"], ("P.5", "P"): ["P_5"], ("official", "P.5"): nickname("official", P="5"),
                ("map", "P.5,10", "P.3"): ["map", "P_3"],
                ("all_trec", "ndcg_cut.10", "recall.7"): nickname("all_trec", ndcg_cut="10", recall="7"),
                ("P.5", "nDCG@10", "P."): family("P") + ["nDCG@10"]}
    sql = [s["measure"] for s in con.execute("SELECT rankkit.parse_measures(?::VARCHAR[])", [asked]).fetchone()[0]]
    assert sql == expected[tuple(asked)]


# a value for each parameter a trec_eval-style alias carries in its name (ndcg_cut_{k}, G_{gains} ...)
TEMPLATE_VALUES = {"k": "10", "gains": "1=3,2=9", "levels": ".25,.5", "recall": "0.1", "p": "0.8", "mult": "0.2",
                   "beta": "0.5", "coef": "2,-1,0,0"}


def every_name() -> list[str]:
    """Every registered name and alias (with @10 where it takes a cutoff), preset, trec_eval nickname,
    family and parameter form, ranx's names and ir_measures' (some of its spellings too)."""
    from rankkit import neighbours, trec
    from rankkit.measures import registry

    names = []
    for m in registry().values():
        for alias in (m.name, *m.aliases):
            alias = re.sub(r"\{(\w+)\}", lambda found: TEMPLATE_VALUES[found.group(1)], alias)
            names += [alias] + [f"{alias}@10"] * ("k" in m.params and "_" not in alias[-3:])
        names += [given for given, _ in m.presets] + [f"{given}@10" for given, _ in m.presets]
    names += [*trec.NICKNAMES, *trec.FAMILIES]
    names += [f"{family.name}.{','.join(str(v) for v in family.cutoffs[:2])}" for family in trec.FAMILIES.values()
              if family.cutoffs] + ["P.x", "iprec_at_recall..5,y", "Rprec_mult.0.2,5", "utility.2,-1,0,0", "P.5,7,3"]
    names += [f"{name}@10" for name in neighbours.RANX]  # their -l levels and ir_measures' parameters: test_neighbours
    names += ["NumRet(rel=1)", "nDCG(dcg=exp-log2)@10", "SetP(relative=True)", "INST(max_rel=3,T=2)", "RBP(rel=2)"]
    names += [f"{name}@10" for name in neighbours.NOT_OFFERED] + ["rbp.95", "nDCG(gains={0: 1, 1: 4})@10"]
    return list(dict.fromkeys(names))


def test_every_name_is_read_or_refused_naming_it(con):
    """Over every name a user may bring: specs, or a refusal that names the name given (never DuckDB's own
    error). Python's evaluate and rankkit eval read names through this parser alone (rankkit.trec.expand,
    which read trec_eval's forms apart, is gone), so they read every name alike by construction."""
    names = every_name()
    said = {}
    for name in names:
        try:
            con.execute("SELECT rankkit.parse_measures([?])", [name]).fetchall()
        except duckdb.Error as error:
            said[name] = str(error)
    assert len(said) < len(names) / 4
    for name, message in said.items():
        assert "rankkit: " in message and ("'" + name + "'" in message or name.split("(")[0] in message), message


def test_the_printers_read_each_label_as_the_parser_made_it(con):
    """A printed row names its measure by the spec's label (nDCG@10, P(rel=2)@5, P_5): the printers
    (rankkit.output, the tables) take how it combines over queries from that label, and it is the spec's."""
    from rankkit.measures import aggregate_of, registry

    names = [re.sub(r"\{(\w+)\}", lambda found: TEMPLATE_VALUES[found.group(1)], alias) + "@10" * ("k" in m.params and "{" not in alias)
             for m in registry().values() if m.aggregate != "text" for alias in (m.name, *m.aliases)]
    names += ["official", "set", "NumRelRet(rel=2)@10", "gm_map(rel=2)", "num_rel_ret", "P(rel=2)@5"]
    specs = con.execute("SELECT flatten([rankkit.parse_measures([n]) FOR n IN ?::VARCHAR[]])", [names]).fetchone()[0]
    assert len(specs) > 100
    assert [(s["measure"], aggregate_of(s["measure"])) for s in specs] == [(s["measure"], s["agg"]) for s in specs]


def test_the_sql_evaluate_reads_each_tables_columns_once(con):
    """The column checks (rankkit.columns_ok) run once per table in an evaluation, and a run's score column
    is found while the statement is bound: the checks bound again in the ranking stage, and a join with
    the run's columns in each read of its rows, were a fifth of the SQL rankkit.evaluate's planning. Each
    read of a table's columns is one unpivot in the plan."""
    con.execute("CREATE OR REPLACE TABLE q AS " + QRELS)
    con.execute("CREATE OR REPLACE TABLE r AS " + RUN)
    for call, reads in [("rankkit.evaluate('q', 'r', ['AP', 'nDCG@10'])", 2), ("rankkit.input_checks('q', 'r')", 2),
                        ("rankkit.ranks('q', 'r')", 2), ("rankkit.run_rows('r')", 0)]:
        plan = con.execute(f"EXPLAIN FROM {call}").fetchall()[0][1]
        assert plan.count("__unpivot_value_0") == reads, call


@pytest.mark.parametrize("spare", ["rankkit_one", "RankKit_Scored"])
def test_a_spare_column_named_as_run_rows_own_is_left_alone(con, spare):
    # run_rows marks whether a run has a score in columns of these names, beside the table's own
    con.execute("CREATE OR REPLACE TABLE q AS " + QRELS)
    for scored in ("score", "rank"):
        con.execute(f"CREATE OR REPLACE TABLE r AS SELECT query_id, doc_id, {scored}, 'x' AS {spare} FROM "
                    "(VALUES ('q1', 'a', 1), ('q2', 'c', 2)) t(query_id, doc_id, " + scored + ")")
        assert con.execute("SELECT value FROM rankkit.evaluate('q', 'r', ['P@1'])").fetchall() == [(1.0,)]
