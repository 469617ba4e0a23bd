"""``rankkit demo``: a generated sample (qrels and two systems), evaluated end to end, offline."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import IO

import pandas as pd

from rankkit._files import replacing, write_text
from rankkit.errors import InputError

__all__ = ["write_sample", "run_demo", "DEMO_MEASURES"]

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
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file in the way, no permission: said as every write error is
        raise InputError(f"{folder}: cannot make the folder: {error.strerror}") from None
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
    out.write(f"rankkit demo: {queries} queries, 2 systems, sample data in {folder}/{again}\n\n")
    out.write(table.to_string(float_format=lambda v: f"{v:.4f}") + "\n\n")
    out.write(f"per-query results: {per_query_path} ({len(made.per_query)} rows)\n")
    report_path = made.save(folder / "report.html")
    _record(folder, [report_path])
    out.write(f"report: {report_path}\n")
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


def _refuse_changed(folder: Path) -> list[str]:
    """The demo's files already in ``folder``, each as the demo wrote it; refused (an InputError naming
    them, before anything is written) if one was changed since or was not written by the demo."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder}: is a file, not a folder for the demo; give -o another folder")
    present = [name for name in DEMO_FILES if os.path.lexists(folder / name)]
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
