"""The beyond-accuracy measures (sql/80_beyond.sql) against their formulas restated from the sources they
follow: Microsoft Recommenders' recommenders/evaluation/python_evaluation.py (catalog_coverage,
distributional_coverage, historical_item_novelty, novelty, _get_cooccurrence_similarity,
_get_item_feature_similarity, _get_intralist_similarity, user_diversity) and RecBole's
recbole/evaluator/metrics.py (ItemCoverage, AveragePopularity, ShannonEntropy, GiniIndex, TailPercentage).
Neither library is installed (Recommenders pulls in heavy dependencies, RecBole needs NumPy < 1.24): each
formula is restated below from its source, on a seeded table with tied scores, users with fewer than k
items and items the catalog lacks."""

from __future__ import annotations

import math
import random
from collections import Counter

import duckdb
import numpy as np
import pandas as pd
import pytest

import rankkit
from support import in_duckdb_shell

K = 4


def _tables():
    rng = random.Random(35)
    catalog = [f"i{n:02d}" for n in range(12)]
    items = pd.DataFrame({"item_id": catalog,
                          "features": [[float(rng.randint(0, 3)) + 0.5 for _ in range(3)] for _ in catalog],
                          "category": [rng.choice("abc") for _ in catalog]})
    log = sorted({(f"u{rng.randint(0, 7)}", rng.choice(catalog[:9])) for _ in range(40)})
    interactions = pd.DataFrame(log, columns=["user_id", "item_id"])
    rows = []
    for system in ("A", "B"):
        for user in range(6):
            count = [2, 6, 5, 1, 6, 4][user]  # users 0 and 3 have fewer than k items
            for item in rng.sample(catalog + ["z1", "z2"], count):  # z1, z2: not in the catalog
                rows.append((system, f"u{user}", item, float(rng.randint(0, 2))))  # ties
    run = pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"])
    return items, interactions, run


def _top(run: pd.DataFrame) -> pd.DataFrame:
    """trec_eval's order (score descending, ties by id descending), the first K of each user."""
    ordered = run.sort_values(["system", "query_id", "score", "doc_id"], ascending=[True, True, False, False])
    return ordered.groupby(["system", "query_id"]).head(K).rename(columns={"doc_id": "item_id"})


@pytest.fixture(scope="module")
def tables():
    con = rankkit.connect()
    items, interactions, run = _tables()
    for name, frame in (("items", items), ("interactions", interactions), ("run", run)):
        con.register(f"{name}_frame", frame)
        con.execute(f"CREATE TABLE {name} AS FROM {name}_frame")
    return con, items, interactions, _top(run)


def _system_values(con, sql: str) -> dict:
    return {system: value for system, value, _ in con.execute(sql).fetchall()}


def _user_values(con, sql: str) -> dict:
    return {(system, user): value for system, user, value in con.execute(sql).fetchall()}


def _close(got: dict, expected: dict) -> None:
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert (got[key] is None and value is None) or got[key] == pytest.approx(value, abs=1e-12), key


# ---- restated formulas ------------------------------------------------------------------------------

def coverage_recbole(top, catalog):
    """RecBole ItemCoverage.get_coverage: np.unique(item_matrix).shape[0] / num_items (its ids are the catalog's)."""
    return len(set(top.item_id) & set(catalog)) / len(catalog)


def entropy_recommenders(top):
    """Recommenders distributional_coverage: -sum p(i) log2 p(i), p(i) = count / rows of reco_df."""
    counts = top.groupby("item_id").size()
    p = counts / len(top)
    return float(-(p * p.map(math.log2)).sum())


def entropy_recbole(top):
    """RecBole ShannonEntropy.get_entropy: sum -p ln p over the items, / len(item_count)."""
    counts = Counter(top.item_id)
    total = len(top)
    return sum(-(c / total) * math.log(c / total) for c in counts.values()) / len(counts)


def gini_recbole(top, catalog):
    """RecBole GiniIndex.get_gini, over the recommendations of catalog items."""
    kept = top[top.item_id.isin(catalog)]
    sorted_count = sorted(Counter(kept.item_id).values())
    num_items, m, total = len(catalog), len(sorted_count), len(kept)
    idx = range(num_items - m + 1, num_items + 1)
    return sum((2 * i - num_items - 1) * c for i, c in zip(idx, sorted_count)) / total / num_items


def novelty_recommenders(top, train):
    """Recommenders historical_item_novelty and novelty, on each user's list (rows of reco_df)."""
    item_novelty = (-(train.groupby("item_id").size() / len(train)).map(math.log2)).to_dict()
    return {key: sum(item_novelty.get(i, 0.0) for i in g.item_id) / len(g) for key, g in top.groupby(["system", "query_id"])}


def arp_recbole(top, train):
    """RecBole AveragePopularity.get_pop (item_count.get(item, 0)) and metric_info, over the user's items."""
    count = Counter(train.item_id)
    return {key: sum(count.get(i, 0) for i in g.item_id) / len(g) for key, g in top.groupby(["system", "query_id"])}


def tail_recbole(top, train, tail=0.1):
    """RecBole TailPercentage.get_tail: a ratio keeps the first max(int(n * tail), 1) of the items sorted by
    (count, id); a tail above 1 keeps the items of count <= tail."""
    count = Counter(train.item_id)
    if tail > 1:
        tail_items = {i for i, c in count.items() if c <= tail}
    else:
        ordered = sorted(count.items(), key=lambda kv: (kv[1], kv[0]))
        tail_items = {i for i, _ in ordered[:max(int(len(ordered) * tail), 1)]}
    return {key: sum(i in tail_items for i in g.item_id) / len(g) for key, g in top.groupby(["system", "query_id"])}


def ild_recommenders(top, similarity):
    """Recommenders _get_intralist_similarity and user_diversity: pairs i1 < i2 of a user's items, a missing
    similarity 0 (fillna), 1 - the mean; a user without a pair has no row (None here)."""
    found = {}
    for key, g in top.groupby(["system", "query_id"]):
        items = sorted(g.item_id)
        sims = [similarity(a, b) for n, a in enumerate(items) for b in items[n + 1:]]
        found[key] = 1 - sum(sims) / len(sims) if sims else None
    return found


def cooccurrence_recommenders(train):
    """Recommenders _get_cooccurrence_similarity: users with both / (sqrt(count i1) * sqrt(count i2))."""
    users = train.groupby("item_id").user_id.apply(set).to_dict()
    return lambda a, b: (len(users[a] & users[b]) / math.sqrt(len(users[a]) * len(users[b]))
                         if a in users and b in users else 0.0)


def cosine_recommenders(items):
    """Recommenders _get_item_feature_similarity: f1.dot(f2) / (norm(f1) * norm(f2))."""
    vectors = dict(zip(items.item_id, items.features))

    def sim(a, b):
        if a not in vectors or b not in vectors:
            return 0.0
        x, y = vectors[a], vectors[b]
        return sum(p * q for p, q in zip(x, y)) / math.sqrt(sum(p * p for p in x) * sum(q * q for q in y))
    return sim


# ---- the SQL macros against them --------------------------------------------------------------------

def _per_system(top, f, *args):
    return {system: f(g, *args) for system, g in top.groupby("system")}


def test_system_level_measures_equal_the_restated_formulas(tables):
    con, items, train, top = tables
    catalog = list(items.item_id)
    _close(_system_values(con, f"FROM rankkit.coverage('run', 'items', k := {K})"), _per_system(top, coverage_recbole, catalog))
    _close(_system_values(con, f"FROM rankkit.entropy('run', k := {K})"), _per_system(top, entropy_recommenders))
    _close(_system_values(con, f"FROM rankkit.entropy('run', k := {K}, formula := 'recbole')"),
           _per_system(top, entropy_recbole))
    _close(_system_values(con, f"FROM rankkit.gini('run', 'items', k := {K})"), _per_system(top, gini_recbole, catalog))
    # Recommenders' catalog_coverage: the training log's items are the catalog
    in_log = set(train.item_id)
    _close(_system_values(con, f"FROM rankkit.coverage('run', 'interactions', k := {K})"),
           {s: len(set(g.item_id) & in_log) / len(in_log) for s, g in top.groupby("system")})


def test_per_user_measures_equal_the_restated_formulas(tables):
    con, items, train, top = tables
    _close(_user_values(con, f"FROM rankkit.novelty('run', 'interactions', k := {K})"), novelty_recommenders(top, train))
    _close(_user_values(con, f"FROM rankkit.arp('run', 'interactions', k := {K})"), arp_recbole(top, train))
    _close(_user_values(con, f"FROM rankkit.tail_share('run', 'interactions', k := {K})"), tail_recbole(top, train))
    _close(_user_values(con, f"FROM rankkit.tail_share('run', 'interactions', k := {K}, tail := 4)"),
           tail_recbole(top, train, 4))
    _close(_user_values(con, f"FROM rankkit.ild_cooccurrence('run', 'interactions', k := {K})"),
           ild_recommenders(top, cooccurrence_recommenders(train)))
    _close(_user_values(con, f"FROM rankkit.ild_features('run', 'items', k := {K})"),
           ild_recommenders(top, cosine_recommenders(items)))
    category = dict(zip(items.item_id, items.category))
    _close(_user_values(con, f"FROM rankkit.ild_category('run', 'items', k := {K})"),
           ild_recommenders(top, lambda a, b: float(a in category and category.get(a) == category.get(b))))


def test_absent_items_are_counted(tables):
    con, items, _, top = tables
    expected = {s: len(set(g.item_id) - set(items.item_id)) for s, g in top.groupby("system")}
    assert dict(con.execute(f"FROM rankkit.absent_items('run', 'items', k := {K})").fetchall()) == expected
    assert all(expected.values())  # the fixture does recommend items the catalog lacks


@pytest.mark.parametrize("setup, sql, said", [
    ("CREATE TABLE bad AS SELECT 'x' AS title", "FROM rankkit.coverage('run', 'bad')",
     "items bad: a row has no item id (column item_id"),
    ("CREATE TABLE bad AS SELECT * FROM (VALUES ('a', [1.0, 2.0]), ('b', [1.0])) t(item_id, features)",
     "FROM rankkit.ild_features('run', 'bad')", "items bad: column features: vectors of mixed lengths (1, 2)"),
    ("CREATE TABLE bad AS SELECT * FROM (VALUES ('u', 'a', 2), ('u', 'b', -1)) t(user_id, item_id, popularity)",
     "FROM rankkit.arp('run', 'bad')", "interactions bad: column popularity: -1.0 is not a popularity"),
    ("CREATE TABLE bad AS SELECT 'a' AS item_id", "FROM rankkit.arp('run', 'bad')",
     "interactions bad: a row has no user id (column user_id"),
    ("", "FROM rankkit.coverage('run', 'items', k := 0)", "k must be a whole number >= 1, got 0"),
    ("", "FROM rankkit.tail_share('run', 'interactions', tail := 0)", "tail must be a share in (0, 1]"),
    ("", "FROM rankkit.entropy('run', formula := 'shannon')", "formula must be recommenders or recbole"),
])
def test_bad_side_tables_are_refused_naming_table_and_column(tables, setup, sql, said):
    con = tables[0].cursor()
    if setup:
        con.execute("DROP TABLE IF EXISTS bad")
        con.execute(setup)
    with pytest.raises(Exception, match=None) as caught:
        con.execute(sql).fetchall()
    assert said in str(caught.value)


def test_the_macros_run_in_the_plain_duckdb_shell(tmp_path):
    commands = """CREATE TABLE run AS SELECT * FROM (VALUES ('u1','a',3.0),('u1','b',2.0),('u2','a',1.0),('u2','c',1.0)) t(query_id, doc_id, score);
CREATE TABLE items AS SELECT * FROM (VALUES ('a',[1.0,0.0]),('b',[0.0,1.0]),('c',[1.0,1.0]),('d',[2.0,0.0])) t(item_id, features);
CREATE TABLE log AS SELECT * FROM (VALUES ('x','a'),('y','a'),('y','b')) t(user_id, item_id);
SELECT round(value, 4) AS coverage FROM rankkit.coverage('run', 'items', k := 2);
SELECT query_id, round(value, 4) AS ild FROM rankkit.ild_features('run', 'items', k := 2) ORDER BY query_id;
SELECT query_id, value AS arp FROM rankkit.arp('run', 'log', k := 2) ORDER BY query_id;
SELECT s.measure AS m, s.metric, s.level, s.k, s.tail FROM (SELECT spec AS s FROM rankkit.measure_specs(['TailShare(tail=0.2)@10', 'gini@5'], beyond := true));
"""
    out = in_duckdb_shell(tmp_path, commands)
    assert out.split() == ["coverage", "0.75", "query_id,ild", "u1,1.0", "u2,0.2929",
                           "query_id,arp", "u1,1.5", "u2,1.0",
                           # the name parser reads their names as any measure's
                           "m,metric,level,k,tail", "TailShare(tail=0.2)@10,tail_share,user,10,0.2",
                           "gini@5,gini,system,5,0.1"]



def test_the_recbole_pack_takes_its_shannon_entropy(tables):
    """Entropy's default formula is Recommenders' distributional coverage; RecBole's ShannonEntropy, under its
    pack, is RecBole's own (named for what it computes)."""
    _, _, _, top = tables
    run = _tables()[2]
    got = rankkit.evaluate(None, run, [f"ShannonEntropy@{K}", f"Entropy(formula=recommenders)@{K}"],
                           conventions="recbole")
    assert list(got["measure"]) == [f"Entropy(formula=recbole)@{K}"] * 2 + [f"Entropy(formula=recommenders)@{K}"] * 2
    _close(dict(zip(got["system"][:2], got["value"][:2])), _per_system(top, entropy_recbole))
    _close(dict(zip(got["system"][2:], got["value"][2:])), _per_system(top, entropy_recommenders))

# ---- against Microsoft Recommenders itself, where it is installed ------------------------------------

def test_the_recommenders_pack_gives_recommenders_own_numbers():
    """Recommenders 1.2.1's python_evaluation (installed by .ci/run without its dependencies, which pull
    in cornac, lightgbm ...; skipped where it is absent) on lists it assumes: every user k items, none of
    them in the user's log, every one in the training log. Its novelty, diversity and
    distributional_coverage end by reading a Series by position (agg(...)[0]), which pandas 2 and later
    refuse: their per-item and per-user parts are compared (historical_item_novelty, user_diversity)."""
    evaluation = pytest.importorskip("recommenders.evaluation.python_evaluation")
    rng = random.Random(35)
    catalog = [f"i{n:02d}" for n in range(10)]
    # "w" holds every item, so every pair co-occurs: Recommenders' fillna(0, inplace=True) of the pairs that do
    # not is a chained assignment, which pandas 3 ignores (their mean then skips them; rankkit counts them 0)
    train = pd.DataFrame(sorted({(f"u{rng.randint(0, 9)}", item) for item in catalog for _ in range(3)}
                                | {("w", item) for item in catalog}), columns=["userID", "itemID"])
    seen = set(zip(train["userID"], train["itemID"]))
    recs = pd.DataFrame([(f"u{user}", item, float(K - rank)) for user in range(7)
                         for rank, item in enumerate(rng.sample([i for i in catalog if (f"u{user}", i) not in seen], K))],
                        columns=["userID", "itemID", "score"])
    items = pd.DataFrame({"itemID": catalog, "features": [[rng.uniform(0, 1) for _ in range(3)] for _ in catalog]})
    ours = rankkit.evaluate(recs.assign(rating=1)[["userID", "itemID", "rating"]], recs,
                            [f"novelty@{K}", f"diversity@{K}", f"ILD(similarity=features)@{K}"],
                            per_query=True, conventions="recommenders", interactions=train, items=items)
    per_user = {name: dict(zip(rows["query_id"], rows["value"])) for name, rows in ours.groupby("measure")}
    # diversity is its co-occurrence ILD under the pack, though the items have features (ILD's own default
    # would take them), and is named for what it computes
    assert sorted(per_user) == [f"ILD(similarity=cooccurrence)@{K}", f"ILD(similarity=features)@{K}", f"novelty@{K}"]
    coverage = rankkit.evaluate(recs.assign(rating=1)[["userID", "itemID", "rating"]], recs, f"catalog_coverage@{K}",
                                conventions="recommenders", interactions=train)["value"].item()
    assert coverage == pytest.approx(evaluation.catalog_coverage(train, recs), abs=1e-12)
    novelty = dict(evaluation.historical_item_novelty(train, recs).values)
    for user, mine in recs.groupby("userID"):
        assert per_user[f"novelty@{K}"][user] == pytest.approx(mine["itemID"].map(novelty).mean(), abs=1e-12)
    for name, named in ((f"ILD(similarity=cooccurrence)@{K}", {}), (f"ILD(similarity=features)@{K}",
                                           {"item_feature_df": items.assign(features=items["features"].map(np.array)),
                                            "item_sim_measure": "item_feature_vector"})):
        theirs = evaluation.user_diversity(train, recs, **named)
        assert per_user[name] == pytest.approx(dict(theirs.values), abs=1e-12), name

# ---- evaluate(items=, interactions=) -----------------------------------------------------------------

def test_evaluate_adds_them_beside_the_accuracy_measures_per_user_and_with_intervals():
    items, train, run = _tables()
    top = _top(run)
    qrels = pd.DataFrame({"query_id": [f"u{n}" for n in range(6)], "doc_id": ["i01"] * 6, "relevance": [1] * 6})
    names = ["nDCG@4", "Coverage@4", "ARP@4", "ILD@4", "Entropy(formula=recbole)@4", "TailShare(tail=4)@4"]
    with pytest.warns(rankkit.RankkitWarning, match=r"Coverage@4, ILD@4: 3 items recommended in the top 4 are not "
                                                     r"in the items DataFrame"):
        result = rankkit.evaluate(qrels, run, names, items=items, interactions=train, ci=0.9, resamples=200)
    got = {(m, s): v for m, s, v in result[["measure", "system", "value"]].itertuples(index=False)}
    catalog = list(items.item_id)
    for system, g in top.groupby("system"):
        assert got["Coverage@4", system] == pytest.approx(coverage_recbole(g, catalog))
        assert got["Entropy(formula=recbole)@4", system] == pytest.approx(entropy_recbole(g))
        arp = [v for (s, _), v in arp_recbole(top, train).items() if s == system]
        assert got["ARP@4", system] == pytest.approx(sum(arp) / len(arp))
        tail = [v for (s, _), v in tail_recbole(top, train, 4).items() if s == system]
        assert got["TailShare(tail=4)@4", system] == pytest.approx(sum(tail) / len(tail))
    assert list(result.measure.drop_duplicates()) == names  # nDCG first: the composer's measures come first
    intervals = result.set_index(["measure", "system"])
    # the system-level interval: the users resampled as every interval resamples them, the formula restated
    import numpy as np
    from rankkit.stats import bootstrap_ci, recentred_bootstrap_ci

    lists = top[top.system == "A"]
    users = sorted(set(lists.query_id))

    def coverage_of(drawn, axis=-1):
        values = [coverage_recbole(pd.concat([lists[lists.query_id == users[int(i)]] for i in row]), catalog)
                  for row in np.atleast_2d(drawn)]
        return np.array(values) if np.ndim(drawn) > 1 else values[0]
    expected = recentred_bootstrap_ci(np.arange(len(users), dtype=float), coverage_of, 0.9, 0, 200)
    assert tuple(intervals.loc[("Coverage@4", "A"), ["ci_low", "ci_high"]]) == pytest.approx(expected)
    # the percentile interval lay wholly below the value (a resample holds fewer distinct users); moved by
    # the bootstrap's bias, the interval holds the value, for each system-level measure
    assert bootstrap_ci(np.arange(len(users), dtype=float), coverage_of, 0.9, 0, 200)[1] <= got["Coverage@4", "A"]
    for measure in ["Coverage@4", "Entropy(formula=recbole)@4"]:
        for system in ["A", "B"]:
            low, high = intervals.loc[(measure, system), ["ci_low", "ci_high"]]
            assert low <= got[measure, system] <= high, (measure, system)
    assert intervals.loc[("ARP@4", "A"), "ci_low"] <= got["ARP@4", "A"] <= intervals.loc[("ARP@4", "A"), "ci_high"]
    with pytest.warns(rankkit.RankkitWarning):
        per_user = rankkit.evaluate(None, run, ["ILD@4"], items=items, per_query=True)
    expected = ild_recommenders(top, cosine_recommenders(items))
    assert {(s, q): v for _, s, q, v in per_user.itertuples(index=False)} == pytest.approx(
        {key: (float("nan") if v is None else v) for key, v in expected.items()}, nan_ok=True)


@pytest.mark.parametrize("keywords, said", [
    ({}, "measure Novelty@4 needs interactions= (--interactions: the training log: user and item); none was given"),
    ({"items": pd.DataFrame({"title": ["x"]})}, "the items DataFrame: no item_id column (also recognised: itemid"),
    ({"items": pd.DataFrame({"item_id": ["a"], "features": [["x"]]})},
     "the items DataFrame: column features: expected a LIST or ARRAY of numbers (a feature vector), got VARCHAR[]"),
    ({"items": pd.DataFrame({"item_id": ["a", "b"], "features": [[1.0], [1.0, 2.0]]})},
     "the items DataFrame: column features: vectors of mixed lengths (1, 2)"),
    ({"interactions": "PARQUET"}, "column popularity: -1.0 is not a popularity; expected a number >= 0"),
    ({"items": pd.DataFrame({"item_id": ["a", "b"], "features": [[0.0, 0.0], [1.0, 2.0]]})},
     "the items DataFrame: column features: item a has a zero vector, whose cosine similarity is undefined"),
    ({"items": "no-such.parquet"}, "items: no-such.parquet: no such file (nor a table of the connection)"),
    ({"items": pd.DataFrame({"item_id": ["a", "b"]}), "ties": "average"},
     "ties=average does not apply to ILD@4: its top k is one ordering (ties trec or rank)"),
])
def test_evaluate_refuses_a_missing_or_bad_side_table_in_one_line(tmp_path, keywords, said):
    if keywords.get("interactions") == "PARQUET":
        path = tmp_path / "log.parquet"
        pd.DataFrame({"user_id": ["u", "v"], "item_id": ["a", "b"], "popularity": [1, -1]}).to_parquet(path)
        keywords = {"interactions": str(path)}
        said = f"interactions {path}: " + said
    run = pd.DataFrame({"query_id": ["u", "u"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    measure = "ILD@4" if "items" in keywords else "Novelty@4"
    with pytest.raises(rankkit.RankkitError) as caught:
        rankkit.evaluate(None, run, [measure], **keywords)
    assert said in str(caught.value) and "\n" not in str(caught.value)


# ---- rankkit eval --items --interactions ---------------------------------------------------------------

def _eval(capsys, *args):
    from rankkit.cli import main

    status = main(["eval", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def test_eval_prints_them_after_the_others_and_refuses_a_missing_table(capsys, tmp_path):
    from rankkit.cli import main

    items, train, run = _tables()
    items.to_parquet(tmp_path / "items.parquet")
    train.to_csv(tmp_path / "train.csv", index=False)
    run.to_csv(tmp_path / "recs.csv", index=False)
    (tmp_path / "test.csv").write_text("query_id,doc_id,relevance\nu1,i01,1\n")
    status, out, err = _eval(capsys, tmp_path / "test.csv", tmp_path / "recs.csv", "-m", "P@4", "-m", "Gini@4",
                             "-m", "TailShare@4", "--items", tmp_path / "items.parquet", "--interactions",
                             tmp_path / "train.csv", "--format", "csv")
    top = _top(run)
    assert status == 0 and err[-1:] == [f"rankkit eval: warning: Gini@4: 3 items recommended in the top 4 are not in "
                                   f"items {tmp_path / 'items.parquet'} (summed over systems): Coverage and Gini "
                                   f"leave them out, ILD counts their similarities 0"]
    gini = {line.split(",")[1]: float(line.split(",")[3]) for line in out if line.startswith("Gini@4")}
    assert gini == pytest.approx(_per_system(top, gini_recbole, list(items.item_id)))
    assert [line.split(",")[:2] for line in out[1:]] == [[m, s] for s in "AB" for m in ("P@4", "Gini@4", "TailShare@4")]
    status, out, err = _eval(capsys, tmp_path / "test.csv", tmp_path / "recs.csv", "-m", "ARP@4")
    assert status == 2 and err == ["rankkit eval: measure ARP@4 needs interactions= (--interactions: the training "
                                   "log: user and item); none was given"]
    status = main(["compare", str(tmp_path / "test.csv"), str(tmp_path / "recs.csv"), "-m", "ARP@4", "--interactions",
                   str(tmp_path / "train.csv"), "--baseline", "A", "--format", "csv"])
    out = capsys.readouterr().out.splitlines()
    arp = pd.Series(arp_recbole(top, train))
    assert status == 0 and float(out[1].split(",")[out[0].split(",").index("diff")]) == pytest.approx(
        arp["B"].mean() - arp["A"].mean())


def test_rankkit_measures_lists_and_describes_them(capsys):
    from rankkit.cli import main

    assert main(["measures"]) == 0
    listing = capsys.readouterr().out
    assert "beyond accuracy (the run's top k and a side table: eval --items FILE, --interactions FILE):" in listing
    assert any(line.split()[:2] == ["TailShare", "TailPercentage"] and line.endswith("reads interactions")
               for line in listing.splitlines())
    assert main(["measures", "ild_at_0"]) == 2  # not one of them: the name parser's own refusal
    capsys.readouterr()
    assert main(["measures", "Entropy(formula=recbole)@10"]) == 0
    described = capsys.readouterr().out.splitlines()
    assert described[0].startswith("Entropy: distributional coverage") and "  reads:     the run alone" in described


def test_they_are_declared_as_every_measure_is_and_their_names_read_from_the_declarations():
    """One file each under sql/metrics/beyond/, in the registry's header scheme: the parameters declared as
    every parameter is (type, default, words or check), which the names are read against, the measures
    reference lists them; before, a '-- beyond:' line of sql/80_beyond.sql and a parser of their own (and
    after, a regex parser in rankkit.beyond: now the SQL name parser reads them, into the measure spec)."""
    from rankkit.beyond import spec, split
    from rankkit.docs import measure_table
    from rankkit.measures import beyond_measures, beyond_params, params, spec_fields

    entropy = beyond_measures()["shannonentropy"]
    assert (entropy.metric, entropy.level, entropy.needs, entropy.params) == ("entropy", "system", (), ("k", "formula"))
    # the spec holds it; the macros of the qrels' measures take none
    assert beyond_params()["tail"].owner == "tail_share" and "tail" not in params() and "tail" in spec_fields()
    with pytest.raises(rankkit.RankkitError, match=r"^measure Entropy\(formula=shannon\)@10: formula must be "
                                                    r"recommenders or recbole, got shannon$"):
        split("Entropy(formula=shannon)@10")
    assert [spec(name)["tail"] for name in split("TailShare(tail=0.2)@5")[1]] == [0.2]
    assert spec(split("ILD@5")[1][0])["similarity"] == "auto" and spec("ILD@5")["k"] == 5
    assert "| `TailShare@10` | `TailPercentage` | `k`, `tail=0.1` | share of long-tail items" in measure_table()
    assert "- `similarity` (VARCHAR, default 'auto'; one of `auto`, `features`" in measure_table()


def test_a_declaration_that_cannot_be_read_names_its_file(tmp_path, monkeypatch):
    import shutil

    from rankkit import _paths, measures

    folder = tmp_path / "sql"
    shutil.copytree(_paths.sql_dir(), folder)
    gini = folder / "metrics" / "beyond" / "gini.sql"
    gini.write_text(gini.read_text(encoding="utf-8").replace("-- level:     system", "-- level:     query"), encoding="utf-8")
    monkeypatch.setattr(_paths, "sql_dir", lambda: folder)
    measures.beyond_measures.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"gini\.sql: level: expected user or system, got query"):
            measures.beyond_measures()
    finally:
        monkeypatch.undo()
        measures.beyond_measures.cache_clear()


def test_names_that_are_not_theirs_are_left_to_the_name_parser():
    from rankkit.beyond import split

    class Measure:  # an ir_measures measure object
        def __str__(self):
            return "AP_IA(rel=2)"
    measure = Measure()
    assert split(["nDCG@10", measure, "ild@5", "Coverage"]) == (["nDCG@10", measure], ["ild@5", "Coverage"])


def test_several_names_in_one_string_are_split_as_the_name_parser_splits_them():
    """Before: "nDCG@10 Novelty@10" (one -m of rankkit compare, one string in Python) went whole to the
    name parser, which refused Novelty@10 as unknown."""
    from rankkit.beyond import split

    assert split("nDCG@10 Novelty@10") == (["nDCG@10"], ["Novelty@10"])
    assert split(["P(rel = 2)@5 ild@5", "AP"]) == (["P(rel = 2)@5", "AP"], ["ild@5"])


def test_compare_pairs_the_per_user_ones_user_by_user_and_refuses_the_system_level_ones():
    from rankkit.compare import compare

    items, train, run = _tables()
    qrels = pd.DataFrame({"query_id": [f"u{n}" for n in range(6)], "doc_id": ["i01"] * 6, "relevance": [1] * 6})
    result = compare(qrels, run, ["P@4", "ARP@4"], baseline="A", interactions=train).set_index("measure")
    arp = pd.Series(arp_recbole(_top(run), train))
    assert result.loc["ARP@4", "diff"] == pytest.approx(arp["B"].mean() - arp["A"].mean())
    assert result.loc["ARP@4", "queries"] == 6 and result.loc["P@4", "queries"] == 6
    with pytest.raises(rankkit.RankkitError, match=r"^Coverage@4 is one value per system: there are no per-user pairs"):
        compare(qrels, run, ["Coverage@4"], items=items)


def test_a_column_mapping_reaches_the_qrels_and_the_run_beside_them():
    qrels = pd.DataFrame({"query_id": ["u", "v"], "doc_id": ["a", "c"], "clicks": [1, 1]})
    run = pd.DataFrame({"query_id": ["u", "u", "v"], "doc_id": ["a", "b", "c"], "points": [2.0, 1.0, 1.0]})
    train = pd.DataFrame({"user_id": ["x", "y", "y"], "item_id": ["a", "a", "b"]})
    result = rankkit.evaluate(qrels, run, ["P@1", "ARP@2"], interactions=train,
                              columns={"clicks": "relevance", "points": "score"})
    assert result[["measure", "value"]].values.tolist() == [["P@1", 1.0], ["ARP@2", 0.75]]


# ---- cost: the run ranked once per cutoff, read once by the command line ----------------------------------

class _Recording:
    """A connection that keeps the statements it is given."""

    def __init__(self, con):
        self.con, self.statements = con, []

    def execute(self, sql, *args):
        self.statements.append(sql)
        return self.con.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.con, name)


def test_each_cutoff_ranks_the_run_once_for_every_measure(tables):
    from rankkit.beyond import SideTables, rows

    con = tables[0]
    names = ["Coverage@4", "Novelty@4", "ILD@4", "Gini@4", "ARP@2"]
    sides = SideTables(con, items="items", interactions="interactions")
    try:
        recording = _Recording(con)
        with pytest.warns(rankkit.RankkitWarning, match="not in items table items"):
            found = rows(recording, names, sides, "run", "trec", False)
        coverage = con.execute(f"FROM rankkit.coverage('run', '{sides.names['items']}', k := 4)").fetchall()
    finally:
        sides.close()
    assert sum("'run'" in sql for sql in recording.statements) == 2  # k 4 and k 2, each sorted once
    assert [(s, v, n) for m, s, v, n, _ in found if m == "Coverage@4"] == sorted(coverage)


def test_the_top_k_table_is_rankkit_ranked_top_k(tables):
    """The top-k aggregate orders as the window does: ties broken by the id compared byte-wise ('9' above
    '10', 'a' above 'B'), a run without a system, users with fewer than k items."""
    from rankkit.beyond import top_tables

    con = tables[0]
    ids = ["9", "10", "a", "B", "b", "é", "1"]
    rows = [(system, f"u{user}", doc, float((user + position) % 3))
            for system in ("A", None) for user in range(5) for position, doc in enumerate(ids[:user + 3])]
    con.execute("CREATE TEMP TABLE tied_run AS SELECT * FROM (VALUES " +
                ", ".join(f"({'NULL' if s is None else repr(s)}, '{q}', '{d}', {v}, NULL::BIGINT)" for s, q, d, v in rows)
                + ") t(system, query_id, doc_id, score, rank)")
    for ties in ("trec", "rank"):
        with top_tables(con, ["Novelty@4", "Coverage@2"], "tied_run", ties) as tops:
            for k, table in tops.items():
                ordered = "ORDER BY system NULLS FIRST, query_id, rank"
                assert con.execute(f"SELECT system, query_id, doc_id, score, rank FROM {table} {ordered}").fetchall() == \
                    con.execute(f"SELECT system, query_id, doc_id, score, rank FROM rankkit.ranked('tied_run', "
                                f"ties := '{ties}') WHERE rank <= {k} {ordered}").fetchall()



def test_the_measures_read_their_top_table_as_ranked_with_the_run_s_values(tables):
    """The measures read their top table with ranked := true (its ranks as they are, not ranked again by
    each macro): every macro gives it the values it gives the run, ties and absent items included."""
    from rankkit.beyond import SideTables, rows, top_tables

    con = tables[0]
    calls = ["coverage({}, 'items'", "gini({}, 'items'", "absent_items({}, 'items'", "entropy({}",
             "novelty({}, 'interactions'", "arp({}, 'interactions'", "tail_share({}, 'interactions'",
             "ild_features({}, 'items'", "ild_category({}, 'items'", "ild_cooccurrence({}, 'interactions'"]

    def values(call: str, table: str, ties: str, ranked: str) -> list:
        found = con.execute(f"FROM rankkit.{call.format(repr(table))}, k := 3, ties := '{ties}', "
                            f"ranked := {ranked}) ORDER BY ALL").fetchall()
        return [tuple(round(x, 12) if isinstance(x, float) else x for x in row) for row in found]

    for ties in ("trec", "rank"):
        with top_tables(con, ["Novelty@3"], "run", ties) as tops:
            for call in calls:
                assert values(call, tops[3], ties, "true") == values(call, "run", ties, "false"), call
    recording = _Recording(con)
    sides = SideTables(con, items="items", interactions="interactions")
    try:
        with pytest.warns(rankkit.RankkitWarning, match="not in items table items"):
            rows(recording, ["Coverage@3", "Novelty@3"], sides, "run", "trec", False)
    finally:
        sides.close()
    calls = [sql for sql in recording.statements if "rankkit.coverage(" in sql or "rankkit.novelty(" in sql]
    assert len(calls) == 2 and all("ranked := true" in sql for sql in calls)


@pytest.mark.parametrize("ranked, said", [("true", "has no rank"), ("NULL", "ranked must be true or false")])
def test_ranked_true_over_a_table_without_ranks_is_refused_not_empty(tables, ranked, said):
    """ranked := true reads the run's rank column as the top table's: over a run without one (or ranked :=
    NULL) every row was dropped, and Coverage and Novelty gave no row at all, not an error."""
    con = tables[0]
    for call in ("coverage('run', 'items'", "novelty('run', 'interactions'"):
        with pytest.raises(duckdb.Error, match=said):
            con.execute(f"FROM rankkit.{call}, k := 3, ranked := {ranked})").fetchall()


def test_eval_reads_the_run_once_and_makes_no_accuracy_pass_for_them_alone(capsys, tmp_path, monkeypatch):
    from importlib import import_module

    from rankkit.io import sources

    _, train, run = _tables()
    train.to_csv(tmp_path / "train.csv", index=False)
    run.to_csv(tmp_path / "recs.csv", index=False)
    (tmp_path / "test.csv").write_text("query_id,doc_id,relevance\nu1,i01,1\n")
    reads, raw = [], sources._raw
    monkeypatch.setattr(sources, "_raw",
                        lambda con, source, kind, *rest: reads.append(kind) or raw(con, source, kind, *rest))
    given = [tmp_path / "test.csv", tmp_path / "recs.csv", "--interactions", tmp_path / "train.csv"]
    status, out, _ = _eval(capsys, *given, "-m", "P@4", "-m", "ARP@4")
    assert status == 0 and reads == ["qrels", "run"] and len(out) == 8  # num_q, num_q(P@4), P@4, ARP@4 a system
    monkeypatch.setattr(import_module("rankkit.evaluate"), "evaluate_rows",
                        lambda *args, **kwargs: pytest.fail("an accuracy pass"))
    status, out, _ = _eval(capsys, *given, "-m", "ARP@4")
    arp = pd.Series(arp_recbole(_top(run), train))
    printed = [[part.strip() for part in line.split("\t")[:2]] for line in out]
    assert status == 0 and printed == [["A", "num_q"], ["A", "ARP@4"], ["B", "num_q"], ["B", "ARP@4"]]
    assert [float(line.split("\t")[-1]) for line in out[1::2]] == pytest.approx([arp["A"].mean(), arp["B"].mean()])


def test_accuracy_measures_that_read_the_top_k_alone_are_ranked_from_the_top_k_table(capsys, tmp_path, monkeypatch):
    """Beside the beyond-accuracy measures, measures that read no further than their cutoff (nDCG@2,
    HitRate@3) are evaluated on the top-k table (at most 4 rows a user here), with the values of the whole
    run; a measure of the whole list (AP) reads the whole run."""
    from importlib import import_module

    _, train, run = _tables()
    train.to_csv(tmp_path / "train.csv", index=False)
    run.to_csv(tmp_path / "recs.csv", index=False)
    (tmp_path / "test.csv").write_text("query_id,doc_id,relevance\n" + "".join(
        f"{user},{item},1\n" for user, item in run[run.system == "A"][["query_id", "doc_id"]].to_numpy()[::3]))
    module = import_module("rankkit.evaluate")
    read, longest = module.evaluate_rows, []

    def recording(qrels, ranked, *args, con, **kwargs):
        longest.append(con.execute(f"SELECT max(n) FROM (SELECT count(*) AS n FROM {ranked} "
                                   f"GROUP BY system, query_id)").fetchone()[0])
        return read(qrels, ranked, *args, con=con, **kwargs)

    given = [tmp_path / "test.csv", tmp_path / "recs.csv", "--interactions", tmp_path / "train.csv", "-q"]
    accuracy = ["-m", "nDCG@2", "-m", "HitRate@3", "-m", "AP"]
    _, alone, _ = _eval(capsys, *given[:2], "-q", *accuracy)
    monkeypatch.setattr(module, "evaluate_rows", recording)
    for measures, rows in ((["-m", "nDCG@2", "-m", "HitRate@3"], 4), (accuracy, 6)):
        status, out, _ = _eval(capsys, *given, *measures, "-m", "ARP@4")
        assert status == 0 and longest.pop() == rows
        printed = [line for line in out if line.split()[1] in measures]
        assert len(printed) > 12 and printed == [line for line in alone if line.split()[1] in measures]
    frame = rankkit.evaluate(tmp_path / "test.csv", tmp_path / "recs.csv", ["nDCG@2", "HitRate@3", "Novelty@4"],
                             per_query=True, interactions=tmp_path / "train.csv")
    whole = rankkit.evaluate(tmp_path / "test.csv", tmp_path / "recs.csv", ["nDCG@2", "HitRate@3"], per_query=True)
    pd.testing.assert_frame_equal(frame[frame.measure != "Novelty@4"].reset_index(drop=True), whole)


def test_a_system_level_interval_resamples_the_top_k_alone(tables):
    from rankkit.beyond import SideTables, system_intervals

    con, _, _, top = tables
    sides = SideTables(con, items="items")
    recording, held = _Recording(con), []
    execute = recording.execute

    def counting(sql, *args):  # the rows of each system's lists, as the bootstrap resamples them
        result = execute(sql, *args)
        if sql.startswith("CREATE TEMP TABLE rankkit_beyond_lists"):
            held.append(con.execute(f"SELECT count(*) FROM {sql.split()[3]}").fetchall()[0][0])
        return result

    recording.execute = counting
    try:
        found = system_intervals(recording, "Coverage@4", sides, "run", "trec", 0.9, 0, 50)
    finally:
        sides.close()
    assert held == [len(top[top.system == s]) for s in "AB"] and all(low <= high for low, high in found.values())


def test_per_user_rows_and_intervals_read_the_same_top_k(capsys, tmp_path, monkeypatch):
    import rankkit.beyond

    _, train, run = _tables()
    train.to_csv(tmp_path / "train.csv", index=False)
    run.to_csv(tmp_path / "recs.csv", index=False)
    (tmp_path / "test.csv").write_text("query_id,doc_id,relevance\nu1,i01,1\n")
    made, temp_name = [], rankkit.beyond.temp_name
    monkeypatch.setattr(rankkit.beyond, "temp_name", lambda kind: made.append(kind) or temp_name(kind))
    status, out, _ = _eval(capsys, tmp_path / "test.csv", tmp_path / "recs.csv", "-q", "-m", "ARP@4",
                           "--interactions", tmp_path / "train.csv")
    # 6 users, num_q and the mean a system; the log read once, the top 4 ranked once
    assert status == 0 and len(out) == 12 + 4 and sorted(made) == ["beyond_top4", "interactions"]
    made.clear()
    rankkit.evaluate(None, run, ["ARP@4"], interactions=train, ci=0.9, resamples=20)
    assert made == ["interactions", "beyond_top4"]


def test_a_system_level_interval_draws_from_the_top_k_table(monkeypatch):
    from importlib import import_module

    module, drawn_from = import_module("rankkit.evaluate"), []
    intervals = module.system_intervals
    monkeypatch.setattr(module, "system_intervals", lambda con, name, sides, run, *rest:
                        drawn_from.append(run) or intervals(con, name, sides, run, *rest))
    _, train, run = _tables()
    result = rankkit.evaluate(None, run, ["Coverage@4"], interactions=train, ci=0.9, resamples=20, seed=1)
    assert [name.split("_")[:3] for name in drawn_from] == [["rankkit", "beyond", "top4"]]
    assert (result.ci_low <= result.ci_high).all()


def test_where_only_qrels_and_a_run_are_read_they_are_refused_by_name(tmp_path):
    """SQL's rankkit.evaluate and Spark's parser said 'unknown measure Coverage@10; did you mean HitRate': the
    measure exists, and reads side tables they do not take. One refusal, said alike. A report takes them
    with their side tables: without one, it asks for it."""
    import duckdb

    from rankkit.measures import beyond_measures
    from rankkit.neighbours import beyond_refused
    from rankkit.specs import measure_specs

    (tmp_path / "q.txt").write_text("u1 0 i1 1\n")
    (tmp_path / "r.run").write_text("u1 Q0 i1 1 2.0 s\n")
    con = rankkit.connect()
    for name in ("Coverage@10", "ild(similarity=features)@5", "HR@10"):
        if name == "HR@10":  # HitRate's alias: a measure of the qrels, not refused
            assert len(con.execute("SELECT rankkit.parse_measures([?])", [name]).fetchone()[0]) == 1
            continue
        with pytest.raises(duckdb.Error, match="a beyond-accuracy measure") as said:
            con.execute("SELECT rankkit.parse_measures([?])", [name]).fetchall()
        why = beyond_refused(beyond_measures()[name.split("(")[0].split("@")[0].lower()])
        assert f"measure '{name}': {why}" in str(said.value)
        assert f"FROM rankkit.{'coverage' if name == 'Coverage@10' else 'ild_features'}('run', 'items', k := 10)" in why
        with pytest.raises(rankkit.RankkitError) as python:  # the same words where Python reads it
            measure_specs(None, [name])
        assert str(python.value) == f"measure '{name}': {why}"
        with pytest.raises(rankkit.RankkitError, match=r"needs items= \(--items: the catalog"):
            rankkit.report(str(tmp_path / "q.txt"), str(tmp_path / "r.run"), [name])


def test_their_names_are_read_by_the_one_name_parser():
    """rankkit.beyond read these names with a regex parser of its own, which checked their parameters itself: a
    name in ir_measures' spelling (Novelty(cutoff=4)) was refused there though the SQL parser reads it, and a bad
    tail reached the table macro, whose refusal did not name the measure. Now the SQL parser reads them."""
    from rankkit.specs import measure_specs

    _, train, run = _tables()
    asked = rankkit.evaluate(None, run, ["Novelty(cutoff=4)", "tailshare(tail = 4)@4"], interactions=train)
    named = rankkit.evaluate(None, run, ["Novelty@4", "TailShare(tail=4)@4"], interactions=train)
    assert list(asked.measure.unique()) == ["Novelty@4", "tailshare(tail = 4)@4"]
    assert asked.value.tolist() == named.value.tolist()
    sql = rankkit.connect().execute("SELECT rankkit.parse_measures(['Novelty(cutoff=4)'], beyond := true)").fetchone()[0]
    assert sql == measure_specs(None, ["Novelty@4"], beyond=True)
    said = r"measure TailShare\(tail=0\)@4: tail must be a share in \(0, 1\] or a popularity above 1, got 0.0"
    with pytest.raises(rankkit.RankkitError, match=f"^{said}$"):
        rankkit.evaluate(None, run, ["TailShare(tail=0)@4"], interactions=train)
    with pytest.raises(Exception, match=said):
        rankkit.connect().execute("SELECT rankkit.parse_measures(['TailShare(tail=0)@4'], beyond := true)").fetchall()


def test_a_coverage_interval_holds_its_value():
    """A resample of 60 users holds about 38 distinct ones, so each covers fewer items: the percentile
    interval was [0.56, 0.66] around a Coverage@5 of 0.79. Moved by the bootstrap's bias, it holds it."""
    import numpy as np

    rng = np.random.default_rng(7)
    run = pd.DataFrame([(f"u{u}", f"i{i}", float(rng.random())) for u in range(60) for i in rng.choice(200, 10, replace=False)],
                       columns=["query_id", "doc_id", "score"])
    catalog = pd.DataFrame({"item_id": [f"i{i}" for i in range(200)]})
    row = rankkit.evaluate(None, run, ["Coverage@5"], items=catalog, ci=0.9, resamples=200, seed=3).iloc[0]
    assert row.ci_low < row.value == 0.79 < row.ci_high
    assert row.ci_high - row.ci_low == pytest.approx(0.1)  # the bootstrap's spread, kept
