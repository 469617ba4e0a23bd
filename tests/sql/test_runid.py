def test_the_run_name_per_system(tables):
    tables.execute("CREATE TABLE runs AS SELECT *, 'bm25' AS system FROM run UNION ALL SELECT *, 'dense' FROM run")
    assert tables.execute("SELECT system, value FROM rankkit.runid('qrels', 'runs')").fetchall() == [
        ("bm25", "bm25"), ("dense", "dense")]
