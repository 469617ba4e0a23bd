"""``rankkit demo``: a generated sample (qrels and two systems), evaluated end to end, offline."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from rankkit._files import replacing, write_text
from rankkit.errors import InputError
from rankkit.safe.terminal import visible

__all__ = ["write_sample", "run_demo", "DEMO_MEASURES", "write_recsys_sample", "run_recsys_demo"]

DEMO_MEASURES = ["nDCG@10", "AP", "RR@10", "P@10", "R@100", "bpref"]
_DOCS_PER_QUERY = 100


def write_sample(folder: Path, queries: int = 300, seed: int = 2024) -> dict[str, Path]:
    """Write ``qrels.txt``, ``bm25.run`` and ``dense.run`` (TREC text) and ``topics.csv`` (a query
    table: query_id, category) into ``folder``.

    Each query has 40 judged documents with grades 0 to 3; each system retrieves 100 documents.
    The "dense" system sees the grades with less noise than "bm25", so it should win. Scores are
    multiples of 1/8, so some tie, as real scores do. A query's category says whether it has few
    (under 18) or many relevant documents, an attribute to slice by.
    """
    rng = random.Random(seed)
    _make_folder(folder)
    paths = {name: folder / name for name in ("qrels.txt", "bm25.run", "dense.run", "topics.csv")}
    qrels_lines, runs, topics = [], {"bm25": [], "dense": []}, ["query_id,category"]
    for q in range(1, queries + 1):
        qid = f"q{q:03d}"
        pool = [f"d{q:03d}_{d:04d}" for d in range(400)]
        grades = {doc: rng.choices((0, 1, 2, 3), weights=(55, 25, 13, 7))[0] for doc in rng.sample(pool, 40)}
        qrels_lines += [f"{qid} 0 {doc} {grade}" for doc, grade in sorted(grades.items())]
        relevant = sum(grade > 0 for grade in grades.values())
        topics.append(f"{qid},{'few relevant' if relevant < 18 else 'many relevant'}")
        for system, noise in (("bm25", 2.2), ("dense", 1.4)):
            scored = {doc: grades.get(doc, -0.3) + rng.gauss(0, noise) for doc in pool}
            top = sorted(scored.items(), key=lambda item: -item[1])[:_DOCS_PER_QUERY]
            runs[system] += [f"{qid} Q0 {doc} {rank} {round(score * 8) / 8:g} {system}"
                             for rank, (doc, score) in enumerate(top, start=1)]
    write_text(paths["qrels.txt"], "\n".join(qrels_lines) + "\n")
    write_text(paths["topics.csv"], "\n".join(topics) + "\n")
    for system in runs:
        write_text(paths[f"{system}.run"], "\n".join(runs[system]) + "\n")
    return paths


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file in the way, no permission: said as every write error is
        raise InputError(f"{folder}: cannot make the folder: {error.strerror}") from None


def run_demo(folder: Path, queries: int, out: IO[str]) -> pd.DataFrame:
    """Generate the sample, evaluate both systems, print the table, write per-query results and a report;
    return the aggregate (with its intervals). The measures are evaluated once, by the report: its
    aggregate and per-query values are what evaluate returns (evaluating them apart as well took
    two more passes over the runs)."""
    import rankkit

    started = time.perf_counter()
    earlier = _refuse_changed(folder)
    paths = write_sample(folder, queries)
    _record(folder, paths.values())
    con = rankkit.connect()
    qrels = rankkit.read_qrels(paths["qrels.txt"], con=con)
    runs_of = {name: rankkit.read_run(paths[f"{name}.run"], con=con) for name in ("bm25", "dense")}
    made = rankkit.report(qrels, runs_of, DEMO_MEASURES, baseline="bm25", con=con,
                          title=f"rankkit demo: {queries} queries, bm25 and dense")
    per_query_path = folder / "per_query.csv"
    with replacing(per_query_path) as partial:
        made.per_query.to_csv(partial, index=False)
    runs = runs_of["bm25"].union(runs_of["dense"])
    _record(folder, [per_query_path, *_write_other_forms(con, runs, folder)])
    table = made.aggregate.pivot(index="system", columns="measure", values="value")[DEMO_MEASURES]
    again = " (the files of an earlier demo, unchanged since, written again)" if earlier else ""
    out.write(f"rankkit demo: {queries} queries, 2 systems, sample data in {visible(folder)}/{again}\n\n")
    out.write(table.to_string(float_format=lambda v: f"{v:.4f}") + "\n\n")
    out.write(f"per-query results: {visible(per_query_path)} ({len(made.per_query)} rows)\n")
    report_path = made.save(folder / "report.html")
    _record(folder, [report_path])
    out.write(f"report: {visible(report_path)}\n")
    out.write("also: run.csv and run.parquet (both runs, with a system column), topics.csv (query attributes), "
              "rankkit.sql (the macros for the duckdb shell)\n")
    out.write(f"done in {time.perf_counter() - started:.2f} s\n")
    return made.aggregate


def _write_other_forms(con, runs, folder: Path) -> list[Path]:
    """The sample in the other forms the documentation's examples read, so that each runs in the demo folder:
    both runs as one table with a system column (run.csv, run.parquet) and the macro script (rankkit.sql,
    what ``rankkit macros > rankkit.sql`` writes)."""
    from rankkit.macros import script

    table = runs.select("system, query_id, doc_id, rank, score").order("system, query_id, rank")
    with replacing(folder / "run.csv") as partial:
        table.write_csv(str(partial))
    with replacing(folder / "run.parquet") as partial:
        table.write_parquet(str(partial))
    write_text(folder / "rankkit.sql", script())
    return [folder / "run.csv", folder / "run.parquet", folder / "rankkit.sql"]


# ---- a folder written again ------------------------------------------------------------------------

# What the demo wrote, by file name, and each file's sha256: a second run rewrites a file only while it
# is as the demo left it, never one a user changed (or put there)
MANIFEST = ".rankkit-demo.json"
DEMO_FILES = ("qrels.txt", "bm25.run", "dense.run", "topics.csv", "per_query.csv", "run.csv", "run.parquet",
              "rankkit.sql", "report.html")


def _refuse_changed(folder: Path, names=DEMO_FILES) -> list[str]:
    """The demo's files already in ``folder``, each as the demo wrote it; refused (an InputError naming
    them, before anything is written) if one was changed since or was not written by the demo."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder}: is a file, not a folder for the demo; give -o another folder")
    present = [name for name in names if os.path.lexists(folder / name)]
    written = _manifest(folder)
    changed = [name for name in present if written.get(name) is None or written[name] != _sha256(folder / name)]
    if changed:
        raise InputError(f"{folder}: {', '.join(changed)} changed since rankkit demo wrote "
                         f"{'them' if len(changed) > 1 else 'it'} (or {'were' if len(changed) > 1 else 'was'} "
                         f"not written by it): nothing overwritten; move {'them' if len(changed) > 1 else 'it'} "
                         f"away, or give -o another folder")
    return present


def _manifest(folder: Path) -> dict[str, str]:
    """The demo's record of what it wrote in ``folder`` (none when missing or unreadable)."""
    try:
        written = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return written if isinstance(written, dict) else {}


def _record(folder: Path, paths) -> None:
    """Add the files just written to the record, right after each step: a demo stopped halfway leaves
    a record of what it did write."""
    written = _manifest(folder)
    written.update({Path(path).name: _sha256(Path(path)) for path in paths})
    write_text(folder / MANIFEST, json.dumps(written, indent=1, sort_keys=True) + "\n")


def _sha256(path: Path) -> str | None:
    import hashlib

    try:
        with open(path, "rb") as file:
            return hashlib.file_digest(file, "sha256").hexdigest()
    except OSError:  # a dangling link, a file that cannot be read: not what the demo wrote
        return None


# ---- the recommender sample: rankkit demo --recsys ------------------------------------------------------

RECSYS_FOLDER = "recsys"
RECSYS_MEASURES = ["nDCG@10", "HitRate@10", "R@10", "AP@10", "AP(denom=min)@10", "Novelty@10", "ILD@10"]
RECSYS_SYSTEM_LEVEL = ["Coverage@10"]
RECSYS_FILES = ("interactions.parquet", "train.parquet", "test.parquet", "items.parquet", "pop.parquet",
                "itemknn.parquet", "recs.parquet")
GENRES = ("action", "animation", "comedy", "documentary", "drama", "horror", "romance", "sci-fi")
_ITEMS, _TOP = 400, 20
# The sample holds a users x items matrix (and one of scores per recommender) in memory: 20,000 users are
# about 200 MB in all; more would fill a laptop's memory long before they said more than 300 do.
MAX_USERS = 20_000


def write_recsys_sample(folder: Path, users: int = 300, seed: int = 2024) -> dict[str, Path]:
    """Write a recommender sample as Parquet into ``folder``: ``interactions`` (user_id, item_id, rating,
    timestamp), its split by time (each user's last fifth of interactions held out: ``train``, ``test``),
    the catalog ``items`` (item_id, category, features) and two recommenders' top 20 from the train log,
    ``pop`` (the most popular items the user has not seen) and ``itemknn`` (items that co-occur with the
    user's, per the square root of their popularity), also as one table with a system column, ``recs``.

    Users favour two genres, items are popular on a Zipf-like curve: itemknn should find more of the
    held-out items than pop, and recommend more of the catalog, less popular items."""
    if isinstance(users, bool) or not isinstance(users, int) or not 1 <= users <= MAX_USERS:
        raise InputError(f"the recommender sample takes 1 to {MAX_USERS:,} users (its users x items matrices are "
                         f"held in memory), got {users!r}")
    rng = np.random.default_rng(seed)
    items = _catalog(rng)
    log = _interactions(rng, items, users)
    train, test = _split_by_time(log)
    seen = _seen(train, users)
    recs = pd.concat([_top(_popularity_scores(seen), seen, "pop"), _top(_itemknn_scores(seen), seen, "itemknn")])
    tables = {"interactions": log, "train": train, "test": test,
              "items": items.drop(columns="weight"), "pop": recs[recs.system == "pop"].drop(columns="system"),
              "itemknn": recs[recs.system == "itemknn"].drop(columns="system"), "recs": recs}
    _make_folder(folder)
    paths = {}
    for name, table in tables.items():
        paths[name] = folder / f"{name}.parquet"
        with replacing(paths[name]) as partial:
            table.reset_index(drop=True).to_parquet(partial, index=False)
    return paths


def _catalog(rng) -> pd.DataFrame:
    """Items with a genre, a small feature vector (a noisy genre direction) and a popularity weight."""
    genre = rng.integers(len(GENRES), size=_ITEMS)
    direction = np.eye(len(GENRES))[:, :4] + np.eye(len(GENRES))[:, 4:]  # two genres share each axis
    features = np.round(direction[genre] + rng.uniform(0, 0.5, size=(_ITEMS, 4)), 2)
    return pd.DataFrame({"item_id": [f"i{i:03d}" for i in range(1, _ITEMS + 1)],
                         "category": [GENRES[g] for g in genre], "features": list(features),
                         "weight": 1 / rng.permutation(np.arange(1, _ITEMS + 1)) ** 0.6})


def _interactions(rng, items: pd.DataFrame, users: int) -> pd.DataFrame:
    """Each user's 10 to 60 items, ten times likelier in their two genres; rated higher there; at
    times spread over 2024, in order."""
    rows = []
    start = pd.Timestamp("2024-01-01").value // 10**9
    for u in range(1, users + 1):
        liked = set(rng.choice(len(GENRES), size=2, replace=False))
        in_liked = items.category.map(GENRES.index).isin(liked).to_numpy()
        weights = items.weight.to_numpy() * np.where(in_liked, 10.0, 1.0)
        count = int(rng.integers(10, 61))
        chosen = rng.choice(_ITEMS, size=count, replace=False, p=weights / weights.sum())
        ratings = np.where(in_liked[chosen], rng.choice([3, 4, 5], size=count, p=[0.2, 0.4, 0.4]),
                           rng.choice([1, 2, 3, 4], size=count, p=[0.2, 0.3, 0.3, 0.2]))
        times = start + rng.integers(0, 300 * 86400) + np.cumsum(rng.integers(600, 3 * 86400, size=count))
        rows.append(pd.DataFrame({"user_id": f"u{u:03d}", "item_id": items.item_id.to_numpy()[chosen],
                                  "rating": ratings, "timestamp": pd.to_datetime(times, unit="s")}))
    return pd.concat(rows, ignore_index=True)


def _split_by_time(log: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each user's last fifth of interactions (at least one), by time, held out."""
    log = log.sort_values(["user_id", "timestamp"], kind="stable")
    order = log.groupby("user_id").cumcount(ascending=False)
    held = order < np.ceil(log.groupby("user_id").item_id.transform("size") / 5)
    return log[~held].reset_index(drop=True), log[held].reset_index(drop=True)


def _seen(train: pd.DataFrame, users: int) -> pd.DataFrame:
    """The train log as a users x items 0/1 matrix (integers: the scores below are exact on any machine)."""
    user = train.user_id.str[1:].astype(int) - 1
    item = train.item_id.str[1:].astype(int) - 1
    matrix = np.zeros((users, _ITEMS), dtype=np.int64)
    matrix[user, item] = 1
    return pd.DataFrame(matrix, index=[f"u{u:03d}" for u in range(1, users + 1)],
                        columns=[f"i{i:03d}" for i in range(1, _ITEMS + 1)])


def _popularity_scores(seen: pd.DataFrame) -> pd.DataFrame:
    """Every user the same scores: the item's interactions in the train log."""
    return pd.DataFrame(np.tile(seen.to_numpy().sum(axis=0), (len(seen), 1)).astype(float),
                        index=seen.index, columns=seen.columns)


def _itemknn_scores(seen: pd.DataFrame) -> pd.DataFrame:
    """Item-to-item co-occurrence with the user's items, summed, over the square root of the item's
    popularity (an item nobody saw scores 0)."""
    matrix = seen.to_numpy()
    together = matrix.T @ matrix
    np.fill_diagonal(together, 0)
    popularity = np.sqrt(np.maximum(matrix.sum(axis=0), 1))
    return pd.DataFrame(np.round((matrix @ together) / popularity, 4), index=seen.index, columns=seen.columns)


def _top(scores: pd.DataFrame, seen: pd.DataFrame, system: str) -> pd.DataFrame:
    """Each user's top 20 items not in their train log, as system, user_id, item_id, rank, score; equal
    scores by item id descending, trec_eval's order: the rank column is the order rankkit evaluates."""
    long = scores.mask(seen.astype(bool)).stack().dropna()  # the items seen masked out (pandas 3 keeps them NaN)
    long = long.rename("score").rename_axis(["user_id", "item_id"]).reset_index()
    long = long.sort_values(["user_id", "score", "item_id"], ascending=[True, False, False], kind="stable")
    long = long.groupby("user_id").head(_TOP)
    long.insert(0, "system", system)
    long.insert(3, "rank", long.groupby("user_id").cumcount() + 1)
    return long[["system", "user_id", "item_id", "rank", "score"]]


def run_recsys_demo(folder: Path, users: int, out: IO[str]) -> pd.DataFrame:
    """Write the recommender sample into ``folder``, evaluate both recommenders on the held-out
    interactions (accuracy and beyond: the catalog and the train log as side tables), comparing itemknn
    with pop user by user (compare's pass; Coverage, one value a system, evaluated apart), print the
    table; return it (a row a measure: pop, itemknn, diff, p)."""
    import rankkit
    from rankkit.compare import compare

    started = time.perf_counter()
    earlier = _refuse_changed(folder, RECSYS_FILES)
    paths = write_recsys_sample(folder, users)
    _record(folder, paths.values())
    sides = {"items": paths["items"], "interactions": paths["train"]}
    paired = compare(paths["test"], paths["recs"], RECSYS_MEASURES, baseline="pop", **sides)
    whole = rankkit.evaluate(paths["test"], paths["recs"], RECSYS_SYSTEM_LEVEL, **sides)
    table = _recsys_table(paired, whole)
    again = " (the files of an earlier demo, unchanged since, written again)" if earlier else ""
    out.write(f"rankkit demo --recsys: {users} user{'s' if users > 1 else ''}, {_ITEMS} items, "
              f"2 recommenders' top {_TOP}, sample data in {visible(folder)}/{again}\n\n")
    out.write(table.to_string(float_format=lambda v: f"{v:.4f}", na_rep="",
                              formatters={"p": lambda p: "" if pd.isna(p) else f"{p:.1e}"}) + "\n\n")
    out.write("p: paired t-test over the users (rankkit compare); Coverage@10 is one value per system\n")
    out.write(f"files: {', '.join(path.name for path in paths.values())}\n")
    out.write(f"done in {time.perf_counter() - started:.2f} s\n")
    return table


def _recsys_table(paired: pd.DataFrame, whole: pd.DataFrame) -> pd.DataFrame:
    """A row a measure: pop, itemknn, their difference and its paired t-test p (none for a system-level
    measure, one value per system)."""
    rows = paired.set_index("measure")[["baseline_mean", "mean", "diff", "p_adjusted"]]
    rows.columns = ["pop", "itemknn", "diff", "p"]
    system_level = whole.pivot(index="measure", columns="system", values="value")[["pop", "itemknn"]]
    system_level["diff"] = system_level["itemknn"] - system_level["pop"]
    table = pd.concat([rows, system_level])
    table.index.name = None
    table.columns.name = None
    return table
