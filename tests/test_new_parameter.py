"""Adding a measure with a parameter of its own is one file: a toy measure written into a copy of sql/
is known to the name parser, the table and list macros, the CLI, the explorer's measure control, the
report's record, the measures reference and a fusion sweep's pruning (its top_k: header field), with no
other edit."""

from __future__ import annotations

import shutil
import warnings

import pandas as pd
import pytest

import rankkit
from rankkit import _paths, _sql, macros, measures

TOY = """-- name:      Toy
-- aliases:   toy_{q}
-- params:    k, q
-- aggregate: mean
-- summary:   a toy: q times the relevant documents in the top k
-- cite:      none
-- trace:     toy
-- top_k:     q=2

-- Its own parameter:
-- param: q      DOUBLE  := 2         the toy's weight of a relevant document
--     check: isfinite(q::DOUBLE) AND q::DOUBLE > 0  ; q must be a positive number

-- value: {s.q} * {rel_ret}
"""

# A list macro is a file of its own (sql/lists): its signature and checks come from the declaration too
TOY_LIST = """-- list:      toy
-- measure:   toy
-- options:   k, q
-- summary:   the toy of a list of grades in rank order
-- example:   rankkit.toy([1, 0, 1], 3) = 4
-- cite:      none
"""

CACHES = (measures.params, measures.spec_fields, measures.spec_types, measures.registry, measures.shared_features,
          measures.inputs, measures.subtopic_inputs, measures.needs_subtopics, macros.script, _sql._script_key, _sql._cached_file)


@pytest.fixture
def toy(tmp_path, monkeypatch):
    folder = tmp_path / "sql"
    shutil.copytree(_paths.sql_dir(), folder)
    (folder / "metrics" / "toy.sql").write_text(TOY, encoding="utf-8")
    (folder / "lists" / "toy.sql").write_text(TOY_LIST, encoding="utf-8")
    monkeypatch.setattr(_paths, "sql_dir", lambda: folder)  # the registry reads it
    monkeypatch.setattr(macros, "sql_dir", lambda: folder)
    monkeypatch.setenv("RANKKIT_CACHE", str(tmp_path / "cache"))
    for function in CACHES:
        function.cache_clear()
    yield rankkit.connect()
    monkeypatch.undo()
    for function in CACHES:
        function.cache_clear()


def test_a_toy_measure_with_a_new_parameter_is_known_everywhere(toy, tmp_path, capsys):
    con = toy
    qrels = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
    run = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    con.register("qrels", qrels)
    con.register("run", run)
    # the name parser: the parameter in parentheses and in a trec_eval-style name, its check and message
    specs = con.execute("SELECT spec.measure, spec.q FROM rankkit.measure_specs(['Toy(q=3)@2', 'toy_0.5'])").fetchall()
    assert specs == [("Toy(q=3)@2", 3.0), ("toy_0.5", 0.5)]
    with pytest.raises(Exception, match=r"measure Toy\(q=-1\): q must be a positive number, got -1"):
        con.execute("FROM rankkit.measure_specs(['Toy(q=-1)'])").fetchall()
    # the table macro and the list macro: the parameter with its default, checked
    assert con.execute("SELECT value FROM rankkit.toy('qrels', 'run', k := 2, q := 3)").fetchall() == [(3.0,)]
    assert con.execute("SELECT rankkit.toy([1, 0, 1], 3)").fetchall() == [(4.0,)]
    with pytest.raises(Exception, match=r"measure rankkit\.toy: q must be a positive number"):
        con.execute("SELECT rankkit.toy([1, 0, 1], 3, q := 0)").fetchall()
    assert rankkit.evaluate(qrels, run, ["Toy(q=3)@2"], con=con)["value"].tolist() == [3.0]
    # its top_k: field (at the default q, say): a fusion sweep keeps each fused list's top k for it
    from rankkit.fusion import ranks_read

    assert [ranks_read(con, name) for name in ("Toy@2", "Toy(q=3)@2", "Toy")] == [2, None, None]
    # the CLI's description of a measure, and the measures reference
    from rankkit.cli import main
    from rankkit.docs import measure_table

    assert main(["measures", "Toy"]) == 0
    assert "q (DOUBLE, default 2): the toy's weight of a relevant document" in capsys.readouterr().out
    assert "| `Toy@10` | `toy_{q}` | `k`, `q=2` | a toy:" in measure_table()
    assert "- `q` (DOUBLE, default 2; q must be a positive number): the toy's weight" in measure_table()
    # the report's record and its table of measures
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "toy.run"
    qrels_path.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 1\n", encoding="utf-8")
    run_path.write_text("q1 Q0 a 1 3 toy\nq1 Q0 b 2 2 toy\nq1 Q0 c 3 1 toy\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # on the toy's connection: the default one may hold an earlier test's macros, without the toy
        made = rankkit.report(qrels_path, [run_path], ["Toy(q=3)@2"], con=con)
    assert made.record["measures"][0]["params"] == {"k": "2", "q": "3"}
    assert "| Toy(q=3)@2 | Toy(q=3)@2 | k=2, q=3 | mean |" in made.to_markdown()
    # the explorer's measure control names the parameter, its value and its words
    from rankkit.explore.data import parse_measure
    from rankkit.explore.model import measure_tip

    assert "\nq=3: the toy's weight of a relevant document" in measure_tip(parse_measure(con, "Toy(q=3)@2"))
    # the trace: the toy's column at each rank, its parameter taken by rankkit.trace, and written into the
    # signature and docstring of a function that takes the trace's options
    import inspect

    from rankkit.tracing import with_options

    assert rankkit.trace(qrels, run, "q1", k=2, q=3, con=con)["toy"].tolist() == [3.0, 3.0]

    def traced(qrels, run, query_id, k=None, *, ties="trec", **options):
        """The options:
    {options}
        """

    assert inspect.signature(with_options(traced)).parameters["q"].default == 2.0
    assert "    q: float, default 2.0\n        the toy's weight of a relevant document" in traced.__doc__
