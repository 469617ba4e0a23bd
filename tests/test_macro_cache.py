"""connect() attaches the macros from a database file made once per version of them, and falls back
to running the script when that file cannot be made or read."""

from __future__ import annotations

import importlib

import duckdb
import pytest

from rankkit import _sql, macros

CALL = "SELECT rankkit.dcg([3, 2, 3, 0, 1, 2], 6)"
DCG = 6.861126688593502


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("RANKKIT_CACHE", str(folder))
    _sql._cached_file.cache_clear()
    yield folder
    _sql._cached_file.cache_clear()
    _sql._script_key.cache_clear()


def attached_file(con) -> str | None:
    return con.execute("SELECT path FROM duckdb_databases() WHERE database_name = 'rankkit'").fetchall()[0][0]


def test_first_connection_builds_the_file_and_later_ones_attach_it(cache):
    first = _sql.connect()
    files = list(cache.glob("macros-*.duckdb"))
    assert len(files) == 1 and attached_file(first) == str(files[0])
    assert not list(cache.glob("*.partial*"))
    second = _sql.connect()
    assert attached_file(second) == str(files[0])
    assert first.execute(CALL).fetchall()[0][0] == second.execute(CALL).fetchall()[0][0] == pytest.approx(DCG, abs=1e-15)


def test_the_file_holds_every_macro_of_the_script(cache):
    from_file = _sql.connect()
    from_script = duckdb.connect()
    from_script.execute(macros.script())
    listed = ("SELECT function_name, function_type FROM duckdb_functions() WHERE database_name = 'rankkit' "
              "ORDER BY ALL")
    assert from_file.execute(listed).fetchall() == from_script.execute(listed).fetchall()


def test_a_changed_sql_file_gets_a_new_file(cache, monkeypatch, tmp_path):
    import shutil

    _sql.connect()
    changed = tmp_path / "sql"
    shutil.copytree(macros.sql_dir(), changed)
    with open(changed / "00_prelude.sql", "a") as prelude:
        prelude.write("\nCREATE OR REPLACE MACRO rankkit.changed() AS 1;\n")
    monkeypatch.setattr(macros, "sql_dir", lambda: changed)
    macros.script.cache_clear()
    _sql._script_key.cache_clear()
    _sql._cached_file.cache_clear()
    try:
        con = _sql.connect()
        assert len(list(cache.glob("macros-*.duckdb"))) == 2
        assert con.execute("SELECT rankkit.changed()").fetchall() == [(1,)]
    finally:
        monkeypatch.undo()
        macros.script.cache_clear()


def test_an_unwritable_cache_falls_back_to_the_script(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("RANKKIT_CACHE", str(blocker / "rankkit"))
    _sql._cached_file.cache_clear()
    try:
        con = _sql.connect()
        assert attached_file(con) is None  # the in-memory catalog
        assert con.execute(CALL).fetchall()[0][0] == pytest.approx(DCG, abs=1e-15)
    finally:
        _sql._cached_file.cache_clear()


def test_a_damaged_file_is_replaced(cache):
    _sql.connect()
    (damaged,) = cache.glob("macros-*.duckdb")
    damaged.write_bytes(b"not a database" * 100)
    con = _sql.connect()  # falls back to the script and removes the damaged file
    assert con.execute(CALL).fetchall()[0][0] == pytest.approx(DCG, abs=1e-15)
    assert not damaged.exists()
    rebuilt = _sql.connect()
    assert attached_file(rebuilt) == str(damaged) and damaged.stat().st_size > 1400


# ---- the measure parser's answers, kept per version of the SQL -------------------------------

@pytest.fixture
def fresh_specs(cache, monkeypatch):
    specs = importlib.import_module("rankkit.specs")
    monkeypatch.setattr(specs, "_parsed", {})
    return specs


def test_parsed_measure_names_are_kept_and_read_back_without_sql(fresh_specs, monkeypatch):
    con = _sql.connect()
    parsed = fresh_specs.measure_specs(con, ["nDCG@10", "P(rel=2)@5"], rel=1)
    monkeypatch.setattr(fresh_specs, "_parsed", {})  # a new process: only the disk remembers

    def no_sql(*args):
        raise AssertionError("parsed again")

    monkeypatch.setattr(fresh_specs, "_parse_specs", no_sql)
    assert fresh_specs.measure_specs(con, ["nDCG@10", "P(rel=2)@5"], rel=1) == parsed
    assert parsed[1]["rel"] == 2.0 and parsed[1]["k"] == 5


def test_a_bad_measure_name_is_an_error_every_time_and_never_kept(fresh_specs, cache):
    from rankkit.errors import MeasureError

    con = _sql.connect()
    for _ in range(2):
        with pytest.raises(MeasureError, match="unknown measure 'nDGC@10'"):
            fresh_specs.measure_specs(con, ["nDGC@10"])
    assert _sql.stored("specs") == {}


def test_the_kept_lists_are_bounded_oldest_first(fresh_specs, monkeypatch):
    monkeypatch.setattr(fresh_specs, "STORED_SPECS", 2)
    con = _sql.connect()
    for name in ("AP", "RR", "P@5"):
        fresh_specs.measure_specs(con, [name])
    assert [key for key in _sql.stored("specs")] == ['[["RR"], 1, 0, false]', '[["P@5"], 1, 0, false]']  # names, rel, docs, text


def test_an_unwritable_cache_still_parses(tmp_path, monkeypatch):
    specs_module = importlib.import_module("rankkit.specs")

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("RANKKIT_CACHE", str(blocker / "rankkit"))
    monkeypatch.setattr(specs_module, "_parsed", {})
    _sql._cached_file.cache_clear()
    try:
        specs = specs_module.measure_specs(_sql.connect(), ["AP"])
        assert specs[0]["metric"] == "ap" and _sql.stored("specs") == {}
    finally:
        _sql._cached_file.cache_clear()


def test_data_json_cannot_hold_is_not_kept(cache):
    _sql.store("specs", {"a": {1, 2}})  # a set: not JSON
    assert _sql.stored("specs") == {} and not list(cache.glob("*.partial"))


def test_a_fresh_connection_never_prints_duckdbs_progress_bar(cache):
    # DuckDB's bar goes to stdout: `rankkit eval > results.txt` would hold it
    con = _sql.connect()
    assert con.execute("SELECT current_setting('enable_progress_bar_print')").fetchall() == [(False,)]


@pytest.mark.parametrize("module", _sql.SCRIPT_MODULES)
def test_the_key_covers_every_module_written_into_the_script(cache, monkeypatch, module):
    """The SQL's column names come from rankkit/names.py, trec_eval's measure names from trec.py:
    a change there is a new macro file."""
    from pathlib import Path

    before = _sql._script_key()
    names = Path(_sql.__file__).parent / module
    read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read(self) + (b"\n# changed" if self == names else b""))
    _sql._script_key.cache_clear()
    assert _sql._script_key() != before


def test_the_lean_file_lacks_only_the_macros_written_for_sql_users(cache):
    full, lean = _sql.connect(), _sql.engine_connection(lean=True)
    assert attached_file(lean).startswith(str(cache / "macros-lean-"))
    listed = "SELECT DISTINCT function_name FROM duckdb_functions() WHERE database_name = 'rankkit'"
    missing = {row[0] for row in full.execute(listed).fetchall()} - {row[0] for row in lean.execute(listed).fetchall()}
    assert missing == macros.shell_only_macros() and {"ndcg", "evaluate", "per_query_ranked", "trace"} <= missing
    assert lean.execute("SELECT count(*) FROM rankkit.measure_specs(['nDCG@10', 'AP'])").fetchall() == [(2,)]


def test_the_command_line_evaluates_every_measure_on_the_lean_macros(cache, tmp_path, capsys):
    # what the lean file lacks is what rankkit's own statements never call: every measure of eval
    # (the text and diversity ones take the whole file) runs on it, under each tie rule it has
    from rankkit.cli import main
    from rankkit.measures import needs_subtopics, registry

    (tmp_path / "q.txt").write_text("q1 0 a 2\nq1 0 c 1\nq2 0 b 1\nq2 0 d 0\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 3.0 s\nq1 Q0 b 2 2.0 s\nq1 Q0 c 3 2.0 s\nq2 Q0 b 1 1.0 s\nq2 Q0 d 2 0.5 s\n")
    measures = [m for metric, m in registry().items() if m.aggregate != "text" and not needs_subtopics(metric)]
    for ties in ("trec", "rank"):
        given = [option for m in measures if ties in m.ties for option in ("-m", m.name)]
        assert main(["eval", "--ties", ties, "-c", *given, str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]) == 0, \
            capsys.readouterr().err
    assert list(cache.glob("macros-lean-*.duckdb")) and not list(cache.glob("macros-[0-9a-f]*.duckdb"))
    import rankkit  # (the command line has no average tie rule: Python's evaluate on a lean connection)

    averaged = rankkit.evaluate(str(tmp_path / "q.txt"), str(tmp_path / "r.txt"),
                                [m.name for m in measures if "average" in m.ties], ties="average",
                                con=_sql.engine_connection(lean=True))
    assert len(averaged) == len([m for m in measures if "average" in m.ties]) >= 4  # CG, DCG, IDCG, nDCG
