"""A recommender peer as a user's script: the benchmark's Parquet files in, the means printed as
``measure<TAB>value`` (fresh-process figure for bench/recsys.py).

    python bench/recsys_peer.py torchmetrics DIR    # nDCG@10, R@10, HitRate@10 (torchmetrics has no
                                                    # coverage or novelty)
    python bench/recsys_peer.py recommenders DIR    # nDCG@10, R@10, Coverage@10, Novelty@10
                                                    # (python_evaluation has no hit rate)
    python bench/recsys_peer.py duckdb DIR          # the five, one plain DuckDB statement (the floor)
    python bench/recsys_peer.py rankkit-python DIR [LIMIT]  # the five, rankkit.evaluate under memory_limit=LIMIT
                                                    # (default 2GB; the floor's too)

DIR holds test.parquet (user_id, item_id, rating), recs.parquet (user_id, item_id, prediction: each
user's top 100) and train.parquet (user_id, item_id: the log that defines popularity).
"""

import sys

import pandas as pd

K = 10


def torchmetrics_values(folder: str) -> dict[str, float]:
    """Each user's recommendations labelled by the test (a left merge), the test's items that were not
    recommended appended with a score below every recommendation (else torchmetrics' recall would not
    count them), then the retrieval metrics grouped by user."""
    import torch
    from torchmetrics.retrieval import RetrievalHitRate, RetrievalNormalizedDCG, RetrievalRecall

    test = pd.read_parquet(f"{folder}/test.parquet", columns=["user_id", "item_id"])
    recs = pd.read_parquet(f"{folder}/recs.parquet", columns=["user_id", "item_id", "prediction"])
    test["target"] = True
    rows = recs.merge(test, on=["user_id", "item_id"], how="outer")
    rows["target"] = rows["target"].fillna(False).astype(bool)
    rows["prediction"] = rows["prediction"].fillna(-1.0)
    preds = torch.from_numpy(rows["prediction"].to_numpy("float32"))
    target = torch.from_numpy(rows["target"].to_numpy(bool))
    indexes = torch.from_numpy(rows["user_id"].to_numpy("int64"))
    metrics = {"nDCG@10": RetrievalNormalizedDCG(top_k=K), "R@10": RetrievalRecall(top_k=K),
               "HitRate@10": RetrievalHitRate(top_k=K)}
    return {name: float(metric(preds, target, indexes=indexes)) for name, metric in metrics.items()}


def recommenders_values(folder: str) -> dict[str, float]:
    """python_evaluation's functions on the DataFrames as read; catalog_coverage and novelty take the
    top k recommendations, cut here as a Recommenders user cuts them."""
    from recommenders.evaluation import python_evaluation as pe

    test = pd.read_parquet(f"{folder}/test.parquet")
    recs = pd.read_parquet(f"{folder}/recs.parquet")
    train = pd.read_parquet(f"{folder}/train.parquet")
    columns = {"col_user": "user_id", "col_item": "item_id"}
    scored = {**columns, "col_rating": "rating", "col_prediction": "prediction", "k": K}
    top = recs.sort_values(["user_id", "prediction"], ascending=[True, False]).groupby("user_id").head(K)
    return {"nDCG@10": pe.ndcg_at_k(test, recs, **scored), "R@10": pe.recall_at_k(test, recs, **scored),
            "Coverage@10": pe.catalog_coverage(train, top, **columns),
            "Novelty@10": pe.novelty(train, top, **columns)}


FLOOR = """
SET memory_limit = '{limit}';
WITH top AS (
    SELECT user_id, item_id, row_number() OVER (PARTITION BY user_id ORDER BY prediction DESC, item_id) AS r
    FROM '{folder}/recs.parquet' QUALIFY r <= {k}),
relevant AS (SELECT user_id, count(*) AS n FROM '{folder}/test.parquet' GROUP BY user_id),
hits AS (SELECT user_id, r FROM top JOIN '{folder}/test.parquet' USING (user_id, item_id)),
users AS (
    SELECT user_id, any_value(n) AS n, coalesce(sum(1 / log2(r + 1)), 0) AS dcg, count(r) AS hit
    FROM relevant LEFT JOIN hits USING (user_id) GROUP BY user_id),
popularity AS (
    SELECT item_id, -log2(count(*) / sum(count(*)) OVER ()) AS novelty
    FROM '{folder}/train.parquet' GROUP BY item_id)
SELECT avg(dcg / list_sum(list_transform(range(1, least(n, {k}) + 1), lambda i: 1 / log2(i + 1)))),
       avg(hit / n), avg((hit > 0)::INTEGER),
       (SELECT count(DISTINCT item_id) FROM top) / (SELECT count(DISTINCT item_id) FROM '{folder}/train.parquet'),
       (SELECT avg(coalesce(novelty, 0)) FROM top LEFT JOIN popularity USING (item_id))
FROM users
"""


def duckdb_values(folder: str, limit: str) -> dict[str, float]:
    """What evaluation cannot go below: the five in one plain statement written for this input's shape
    (every user has k recommendations and a test item; no checks, no options), under the same memory
    limit as rankkit."""
    import duckdb

    con = duckdb.connect()
    *settings, statement = FLOOR.format(folder=folder, k=K, limit=limit).strip().split(";\n")
    for setting in settings:
        con.execute(setting)
    row = con.execute(statement).fetchone()
    return dict(zip(["nDCG@10", "R@10", "HitRate@10", "Coverage@10", "Novelty@10"], row))


def rankkit_values(folder: str, limit: str) -> dict[str, float]:
    """rankkit's Python API, the files given as paths: the run read once for all five measures (the
    command line reads it again for the beyond-accuracy ones)."""
    import rankkit

    con = rankkit.connect(memory_limit=limit)
    found = rankkit.evaluate(f"{folder}/test.parquet", f"{folder}/recs.parquet",
                             ["nDCG@10", "R@10", "HitRate@10", "Coverage@10", "Novelty@10"], con=con,
                             interactions=f"{folder}/train.parquet")
    return dict(zip(found["measure"], found["value"]))


if __name__ == "__main__":
    library, folder, *limit = sys.argv[1:]
    compute = {"torchmetrics": torchmetrics_values, "recommenders": recommenders_values,
               "duckdb": duckdb_values, "rankkit-python": rankkit_values}.get(library)
    if compute is None:
        raise SystemExit(f"recsys_peer.py: expected torchmetrics, recommenders, duckdb or rankkit-python, got {library}")
    given = {"duckdb": limit[:1] or ["2GB"], "rankkit-python": limit[:1] or ["2GB"]}.get(library, [])
    for measure, value in compute(folder, *given).items():
        print(f"{measure}\t{float(value)!r}")
