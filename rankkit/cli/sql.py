"""``rankkit sql``: the one SQL statement computing measures, for the duckdb shell or Spark SQL."""

from __future__ import annotations

import argparse

from rankkit.arguments import UsageError, column_mapping, conventions_of


def run(args: argparse.Namespace) -> int:
    """Print the one statement computing the measures over the two tables."""
    from rankkit.specs import measure_specs, packed
    from rankkit.io import default_connection
    from rankkit.spark import ANALYSER_PASSES
    from rankkit.spark_dialect import QRELS_COLUMNS, RUN_COLUMNS, duckdb_statement, refuse_beyond, statement

    if args.dialect == "spark":  # the DuckDB dialect's refusal names the table macros that compute them
        refuse_beyond(args.measures)
    # --conventions: the pack's measure parameters and conventions, as rankkit eval computes under it
    conventions = conventions_of(args)
    specs = packed(measure_specs(default_connection(), args.measures, rel=conventions.rel, docs=args.docs),
                   conventions.pack)
    options = dict(per_query=args.per_query, ties=conventions.ties, depth=conventions.depth,
                   judged_only=args.judged_only, queries=conventions.queries, scores=conventions.scores)
    columns, known = column_mapping(args), list(dict.fromkeys(RUN_COLUMNS + QRELS_COLUMNS))
    for theirs, ours in columns.items():  # the statement reads rankkit's columns only: none is ignored
        if ours not in known:
            raise UsageError(f"--column {theirs}={ours or ''}: expected one of {', '.join(known)}")
    if args.dialect == "duckdb":
        if not args.system:
            raise UsageError("--no-system is for --dialect spark: rankkit.ranks reads a system column where there is one")
        print(duckdb_statement(specs, qrels=args.qrels_table, run=args.run_table, columns=columns, **options))
        return 0
    names = {ours: ours for ours in RUN_COLUMNS + QRELS_COLUMNS if ours not in ("rank", "system")}
    names["system"] = "system" if args.system else None
    if args.ties == "rank":  # the statement reads the run's rank column only when the ties ask for it
        names["rank"] = "rank"
    for theirs, ours in columns.items():
        names[ours] = theirs
    # the run's system column, unless mapped or refused, is read where the table has one (as DuckDB's macros)
    # built before anything is printed: a table name that cannot be quoted is refused alone
    text = statement(specs, qrels=args.qrels_table, run=args.run_table,
                     qrels_columns={c: names[c] for c in QRELS_COLUMNS},
                     run_columns={c: names.get(c) for c in RUN_COLUMNS}, check=True,
                     optional_system=names["system"] == "system", **options)
    print(f"-- Spark 3.5: SET spark.sql.analyzer.maxIterations = {ANALYSER_PASSES} first, for many measures")
    print(text + ";")
    return 0
