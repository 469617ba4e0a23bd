"""The beyond-accuracy measures (Coverage@k, Entropy@k, Gini@k, Novelty@k, ARP@k, TailShare@k, ILD@k):
their names read by the name parser every name goes through (rankkit.specs.measure_specs, beyond=True: specs whose
``level`` is set, from their declarations, sql/metrics/beyond/*.sql), the side tables (``items``, the
catalog; ``interactions``, the training log) read and checked, and the statement that calls the file's
table macros. They read the run's top k and those tables, never the qrels, so they are evaluated beside
the measures the composer writes (rankkit.compose), not by it; evaluate() joins the two."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rankkit import _engine as duckdb
from rankkit.dialect import DUCKDB
from rankkit.errors import InputError, MeasureError, warn
from rankkit.io.catalog import first_message, is_table, path_literal, table_ident, temp_name
from rankkit.io.columns import describe
from rankkit.io.files import csv_reader
from rankkit.io.sources import is_frame
from rankkit.measures import Measure, beyond_measures as declared, label as label_of, measure_of, spec_params
from rankkit.names import ALIASES

__all__ = ["declared", "split", "spec", "label", "refuse_missing", "SideTables", "rows", "top_tables",
           "system_intervals"]

EVERY = 2147483647  # no cutoff: the whole list
BOOTSTRAP_ROWS = 10 ** 9  # a system-level interval ranks every resample's users again: above this, none
SIDES = {"items": "the catalog: an item id, optionally features or a category",
         "interactions": "the training log: user and item"}


def split(measures, *, rel: float = 1, docs: int = 0, text: bool = False, pack: str | None = None) -> tuple[list, list[str]]:
    """The names asked for, as (the composer's, these); the order of each kept. They are read by the name parser
    (rankkit.specs.measure_specs) at once, with the options the composer reads the others with (``rel``, ``docs``,
    ``text``), so that it finds them parsed; these are named as the parser names them (Novelty(cutoff=10), in
    ir_measures' spelling, is Novelty@10), and under a ``pack`` for what they compute where it sets one of
    their parameters (ShannonEntropy@10 under recbole is Entropy(formula=recbole)@10). Anything but a name or
    a list or tuple of them is left to the name parser to refuse (and a generator unread)."""
    from rankkit.specs import measure_specs, packed
    from rankkit.trec import _split as names_in, given as written  # one string may hold several names ("nDCG@10 Novelty@10")

    given = [measures] if isinstance(measures, str) else list(measures) if isinstance(measures, (list, tuple)) else []
    names = [name for each in given for name in names_in(each)]
    strings = [name for name in written(names) if isinstance(name, str)]  # an ir_measures object as its name
    if not strings:
        return names, []
    found = {s["measure"]: s for s in measure_specs(None, strings, rel=rel, docs=docs, text=text, beyond=True)
             if s["level"] is not None}
    these = {name: found[name] for name in names if isinstance(name, str) and name in found}
    if len({id(s) for s in these.values()}) < len(found):  # a name the parser wrote otherwise: each read alone
        these.update({name: s for name in names if isinstance(name, str) and name not in these
                      for s in _alone(name, rel, docs, text) if s["level"] is not None})
    these = dict(zip(these, packed(list(these.values()), pack)))
    _known.update({s["measure"]: s for s in these.values()})
    return [n for n in names if not isinstance(n, str) or n not in these], [these[n]["measure"] for n in names
                                                                            if isinstance(n, str) and n in these]


# The spec of each of these measures split() or label() has named, by that name: the parser's answer to the list
# they were asked in, where parsing each name alone would be a statement each
_known: dict[str, dict] = {}


def spec(name: str) -> dict:
    """The name parser's spec of one of these measures (split's names, label's); MeasureError for another."""
    if name not in _known:
        from rankkit.specs import measure_specs

        found = measure_specs(None, [name], text=True, beyond=True)
        if len(found) != 1 or found[0]["level"] is None:
            raise MeasureError(f"measure {name}: not a beyond-accuracy measure (Coverage@10, Novelty@10 ...)")
        _known[name] = found[0]
    return _known[name]


def _alone(name: str, rel: float, docs: int, text: bool) -> list[dict]:
    """One name's specs, of a list the parser read whole: none for a trec_eval form of none (P.), which the list
    may hold beside others."""
    from rankkit.specs import measure_specs

    try:
        return measure_specs(None, [name], rel=rel, docs=docs, text=text, beyond=True)
    except MeasureError:
        return []


def _measure(name: str) -> Measure:
    return measure_of(spec(name)["metric"])


def label(name: str) -> str:
    """One name for a measure however it was written: ``novelty@10`` is ``Novelty@10``; a parameter at its
    default is not written (``Entropy(formula=recommenders)@10`` is ``Entropy@10``): the registry's label of
    its spec (rankkit.measures.label), which the parser reads back to the same spec."""
    found = spec(name)
    named = label_of(found)
    _known.setdefault(named, found)
    return named


class SideTables:
    """The side tables given, each read as a view of ``con`` and checked: a missing id column or a
    feature column that holds no numbers is an InputError naming the table and the column."""

    def __init__(self, con: duckdb.DuckDBPyConnection, items=None, interactions=None):
        self.con, self.views, self.names, self.labels, self.columns = con, [], {}, {}, {}
        try:
            for side, source in (("items", items), ("interactions", interactions)):
                if source is not None:
                    self._read(side, source)
        except BaseException:
            self.close()
            raise

    def _read(self, side: str, source) -> None:
        name = temp_name(side)
        if is_frame(source):
            self.con.register(name + "_frame", source)
            raw, label = name + "_frame", f"the {side} DataFrame"
            self.views.append(("frame", raw))
        elif duckdb.is_relation(source):
            source.create_view(name + "_relation", replace=True)
            raw, label = name + "_relation", f"the {side} relation"
            self.views.append(("view", raw))
        elif isinstance(source, str) and is_table(self.con, source):
            raw, label = table_ident(source), f"{side} table {source}"
        elif isinstance(source, (str, Path)) and Path(source).is_file():
            suffix = "".join(Path(source).suffixes[-2:]).lower().removesuffix(".gz")
            fmt = "parquet" if suffix.endswith((".parquet", ".pq")) else suffix[-3:]
            if fmt not in ("parquet", "csv", "tsv"):
                raise InputError(f"{side}: {source}: expected a Parquet, CSV or TSV file with a header")
            label = f"{side} {source}"
            raw = f"read_parquet({path_literal(source)})" if fmt == "parquet" else csv_reader(Path(source), fmt, label)
        elif isinstance(source, (str, Path)):
            raise InputError(f"{side}: {source}: no such file (nor a table of the connection)")
        else:
            raise InputError(f"{side}: expected a Parquet/CSV/TSV path, a DataFrame, a DuckDB relation or a table "
                             f"name, got {type(source).__name__}")
        columns = describe(self.con, raw, label)
        self._check(side, label, columns)
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM {raw}")
        self.views.append(("view", name))
        self.names[side], self.labels[side] = name, label
        self.columns[side] = {column.lower() for column, _ in columns}

    def _check(self, side: str, label: str, columns: list) -> None:
        present = {column.lower(): kind for column, kind in columns}
        for needed in ("item_id",) + (("user_id",) if side == "interactions" else ()):
            if not any(alias in present for alias in ALIASES[needed]):
                raise InputError(f"{label}: no {needed} column (also recognised: {', '.join(ALIASES[needed][1:])}); "
                                 f"columns are {', '.join(c for c, _ in columns)}")
        for alias in ALIASES["features"] if side == "items" else ():
            kind = present.get(alias)
            if kind is not None and kind != "VARCHAR" and not re.fullmatch(
                    r"(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\))(\[\d*\])", kind):
                raise InputError(f"{label}: column {alias}: expected a LIST or ARRAY of numbers (a feature vector), "
                                 f"got {kind}")

    def has(self, side: str, column: str) -> bool:
        return any(alias in self.columns.get(side, ()) for alias in ALIASES[column])

    def close(self) -> None:
        for kind, name in reversed(self.views):
            if kind == "frame":
                self.con.unregister(name)
            else:
                self.con.execute(f"DROP VIEW IF EXISTS {name}")


def refuse_missing(names: list[str], given: set[str]) -> None:
    """A measure none of whose side tables is among those ``given`` (items, interactions): refused before
    anything is read, naming the measure and the option."""
    for text in names:
        _table_for(_measure(text), text, given)


def _table_for(measure: Measure, text: str, given) -> str | None:
    """The side table the measure reads: the first of its needs given; refused when none is."""
    for side in measure.needs:
        if side in given:
            return side
    if measure.needs:
        options = " or ".join(f"{side}= (--{side}: {SIDES[side]})" for side in measure.needs)
        raise MeasureError(f"measure {text} needs {options}; none was given")
    return None


def _call(text: str, sides: SideTables, run: str, ties: str, ranked: bool = False) -> tuple[str, str | None]:
    """The table macro call of one measure, from its spec, and the side table it reads. ``ranked``: ``run`` is
    a top table already (its rank column by ``ties``, k rows a list at most), read without ranking it again."""
    found, measure = spec(text), _measure(text)
    side = _table_for(measure, text, sides.names)
    macro = measure.metric  # its file's stem: rankkit.tail_share
    if "similarity" in measure.params:  # ILD's picks the table macro (rankkit.ild_features ...); not an option of one
        macro += "_" + _similarity(text, found["similarity"], side, sides)
        side = "interactions" if macro == "ild_cooccurrence" else "items"
    args = [f"'{run}'"] + ([f"'{sides.names[side]}'"] if side else [])
    options = {"k": str(found["k"] or EVERY), "ties": f"'{ties}'"} | ({"ranked": "true"} if ranked else {})
    # checked by the parser: a word of the parameter's declaration, or a number
    options.update({name: DUCKDB.literal(found[name], spec_params()[name].type)
                    for name in measure.params if name not in ("k", "similarity")})
    return f"rankkit.{macro}({', '.join(args + [f'{n} := {v}' for n, v in options.items()])})", side


def _similarity(text: str, asked: str, side: str, sides: SideTables) -> str:
    """ILD's similarity: as asked, or (auto) the items' features, else their category, else co-occurrence."""
    if asked == "auto":
        if side == "items" and sides.has("items", "features"):
            return "features"
        if side == "items" and sides.has("items", "category"):
            return "category"
        if "interactions" in sides.names:
            return "cooccurrence"
        raise MeasureError(f"measure {text}: the items have no features or category column, and no interactions= "
                           f"(--interactions) was given for co-occurrence")
    needed = "interactions" if asked == "cooccurrence" else "items"
    if needed not in sides.names or (asked != "cooccurrence" and not sides.has("items", asked)):
        raise MeasureError(f"measure {text} needs {needed}= (--{needed}) with a {asked} column" if needed == "items"
                           else f"measure {text} needs interactions= (--interactions)")
    return asked


def rows(con, names: list[str], sides: SideTables, run: str, ties: str, per_query: bool,
         tops: dict | None = None) -> list[tuple]:
    """The measures' rows: per query (measure, system, query_id, value, level) or aggregate (measure,
    system, value, queries, level); a per-user measure's aggregate is its mean over the users that have a
    value. Items recommended that the catalog lacks are warned of once, with their number. ``tops``: the
    run's top tables (top_tables), when the caller reads them more than once; else made here."""
    if tops is None:
        with top_tables(con, names, run, ties) as tops:
            return rows(con, names, sides, run, ties, per_query, tops)
    found, on_items = [], {}
    for text in names:
        k = spec(text)["k"]
        found += _measure_rows(con, text, sides, tops.get(k) or run, ties, per_query, on_items, ranked=k in tops)
    if on_items:
        k = max(on_items.values())
        _warn_absent(con, on_items, sides, tops.get(k) or run, ties, ranked=k in tops)
    return found


@contextmanager
def top_tables(con, names: list[str], run: str, ties: str, cutoff: int | None = None) -> Iterator[dict]:
    """Per cutoff k of the measures named, the run's top k ranked once into a temp table in rankkit's own
    run columns (ranked again by each macro, it gives the same top k): every measure reads it instead of
    sorting the whole run again. A measure without a cutoff reads the run itself. ``cutoff``: one more
    k, for other measures (rankkit.evaluate.beyond_tops), unless a table of a larger one is made."""
    if ties not in ("trec", "rank"):  # their lists are the run's top k, one order of it
        raise MeasureError(f"ties={ties} does not apply to {names[0]}: its top k is one ordering (ties trec or rank)")
    tops = {}
    try:
        cutoffs = {spec(text)["k"] for text in names} - {None}
        for k in sorted(cutoffs | ({cutoff} if cutoff and not any(k >= cutoff for k in cutoffs) else set())):
            tops[k] = temp_name(f"beyond_top{k}")
            con.execute(f"CREATE TEMP TABLE {tops[k]} AS {_top_select(run, ties, k)}")
        yield tops
    finally:
        for name in tops.values():
            con.execute(f"DROP TABLE IF EXISTS {name}")


def _top_select(run: str, ties: str, k: int) -> str:
    """The run's top k by rankkit.ranked's order: under trec_eval's rule (a checked run has no NULL) by
    rankkit.top_loaded's top-k aggregate, which sorts no whole list."""
    if ties != "trec":
        return (f"SELECT system, query_id, doc_id, score, rank FROM rankkit.ranked('{run}', ties := '{ties}') "
                f"WHERE rank <= {k}")
    return f"FROM rankkit.top_loaded('{run}', {k})"


def _measure_rows(con, text: str, sides: SideTables, run: str, ties: str, per_query: bool, on_items: dict,
                  ranked: bool = False) -> list:
    """One measure's rows (see rows), its cutoff noted in ``on_items`` when it reads the catalog; ``ranked``:
    ``run`` is its top table (see _call)."""
    found, k = [], spec(text)["k"]
    call, side = _call(text, sides, run, ties, ranked)
    if side == "items":
        on_items[text] = k or EVERY
    try:
        if spec(text)["level"] == "system":
            if not per_query:
                found += [(text, s, v, n, "system") for s, v, n in con.execute(f"FROM {call} ORDER BY system").fetchall()]
        elif per_query:
            found += [(text, s, q, v, "user") for s, q, v in con.execute(f"FROM {call} ORDER BY system, query_id").fetchall()]
        else:
            found += [(text, s, v, n, "user") for s, v, n in con.execute(
                f"SELECT system, avg(value), count(value) FROM {call} GROUP BY system ORDER BY system").fetchall()]
    except duckdb.Error as error:
        raise InputError(_named(first_message(error), sides)) from None
    return found


def _warn_absent(con, on_items: dict, sides: SideTables, run: str, ties: str, ranked: bool = False) -> None:
    """Items recommended (in the largest top k of the measures that read the catalog) that it lacks."""
    k = max(on_items.values())
    absent = con.execute(f"SELECT sum(absent) FROM rankkit.absent_items('{run}', '{sides.names['items']}', "
                         f"k := {k}, ties := '{ties}', ranked := {str(ranked).lower()})").fetchone()[0]
    if absent:
        warn(f"{', '.join(on_items)}: {absent} item{'s' if absent > 1 else ''} recommended "
             f"{f'in the top {k} ' if k < EVERY else ''}{'are' if absent > 1 else 'is'} not in "
             f"{sides.labels['items']} (summed over systems): Coverage and Gini leave them out, ILD counts their "
             f"similarities 0")


def _named(message: str, sides: SideTables) -> str:
    """An SQL message with the side table's temp name replaced by what the caller gave."""
    message = re.sub(r"^[\w ]*Error: ", "", message)
    for side, name in sides.names.items():
        message = message.replace(f"{side} {name}", sides.labels[side])
    return message


def system_intervals(con, text: str, sides: SideTables, run: str, ties: str, level: float, seed: int | None,
                     resamples: int) -> dict:
    """A system-level measure's bootstrap interval over users, per system: each resample of the users (as
    every interval draws them) is a system of a run made of the drawn users' lists (a user drawn twice
    counted twice), evaluated by the measure's own macro; the percentile interval is moved by the
    bootstrap's bias (rankkit.stats.recentred_bootstrap_ci): a resample holds fewer distinct users, so
    Coverage's resamples all fell below its value and its interval lay wholly under it."""
    import numpy as np
    import pandas as pd

    from rankkit.stats import recentred_bootstrap_ci

    k, found = spec(text)["k"], {}
    for (system,) in con.execute(f"SELECT DISTINCT system FROM {run} ORDER BY system").fetchall():
        users = [q for (q,) in con.execute(f"SELECT DISTINCT query_id FROM {run} WHERE system IS NOT DISTINCT FROM ? "
                                           f"ORDER BY query_id", [system]).fetchall()]
        if len(users) * resamples * min(k or EVERY, 1000) > BOOTSTRAP_ROWS:
            warn(f"{text}: no interval for system {system}: its bootstrap would rank {len(users)} users "
                 f"{resamples} times; ask for fewer resamples")
            found[system] = (float("nan"), float("nan"))
            continue
        lists = temp_name("beyond_lists")
        # the system's top k only, ranked: each resample reads these rows as they are
        con.execute(f"CREATE TEMP TABLE {lists} AS SELECT system, query_id, doc_id, score, rank FROM "
                    f"rankkit.ranked('{run}', ties := '{ties}') WHERE system IS NOT DISTINCT FROM ? "
                    f"AND rank <= {k or EVERY}", [system])

        def statistic(drawn, axis=-1):
            one = np.ndim(drawn) == 1  # scipy asks for the statistic of the sample itself, then of batches
            drawn = np.atleast_2d(drawn).astype(int)
            draws = pd.DataFrame({"draw": np.repeat(np.arange(drawn.shape[0]), drawn.shape[1]),
                                  "copy": np.tile(np.arange(drawn.shape[1]), drawn.shape[0]),
                                  "query_id": np.asarray(users, dtype=object)[drawn.ravel()]})
            name, resampled = temp_name("beyond_draws"), temp_name("beyond_resampled")
            con.register(name, draws)
            con.execute(f"CREATE TEMP VIEW {resampled} AS SELECT r.* REPLACE (d.draw::VARCHAR AS system, "
                        f"r.query_id || '#' || d.copy AS query_id) FROM {lists} r JOIN {name} d USING (query_id)")
            try:
                call, _ = _call(text, sides, resampled, ties, ranked=True)
                values = dict(con.execute(f"SELECT system::INTEGER, value FROM {call}").fetchall())
            finally:
                con.execute(f"DROP VIEW {resampled}")
                con.unregister(name)
            out = np.array([values.get(b, np.nan) for b in range(drawn.shape[0])], dtype=float)
            return out[0] if one else out

        try:
            found[system] = recentred_bootstrap_ci(np.arange(len(users), dtype=float), statistic, level, seed,
                                                   resamples)
        finally:
            con.execute(f"DROP TABLE {lists}")
    return found
