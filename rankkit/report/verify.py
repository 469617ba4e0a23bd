"""verify(): recompute a saved report from the inputs and options its record names, and say whether
everything it shows holds, or which input changed and which values differ.

A report is data from someone else: its JSON is checked field by field before anything is read
(types, known fields only, bounded sizes and resamples), its inputs must be regular files it
names, and every table, label, flag and record field is compared with the report made again from
them. The few fields that say how the report was made and cannot be made again (the date, the
versions, the call as written, the paths as given) are checked for their form, and the call for
agreeing with the record."""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from rankkit.conventions import Conventions
from rankkit.errors import InputError, RankkitError
from rankkit.measures import BETTER

__all__ = ["verify", "Verification", "LIMITS", "export"]

# Recomputing on another machine may sum in another order: the last bits may differ.
TOLERANCE = 1e-9
# What verify agrees to do for a report it did not make: refused beyond, naming the field.
LIMITS = {
    "report_bytes": 1 << 30,  # the report's JSON
    "input_bytes": 64 << 30,  # each input file, hashed and read again
    "inputs": 1000,  # files a record names
    "measures": 200,
    # bootstrap and permutation draws: ten times the default 10,000 (more would take minutes for each
    # measure and system of a large query set)
    "resamples": 100_000,
    "text": 100_000,  # characters of any one string in the record (the call, a title, a warning)
}
# Each table's rows are matched by these columns (the slices' also by their ``by`` column), so that a
# row's values are compared with the same row made again, whatever the order.
KEYS = {"aggregate": ("measure", "system"),
        "per_query": ("measure", "system", "query_id"),
        "comparison": ("measure", "system", "baseline"),
        "coverage": ("measure", "system"),
        "slices": ("measure", "system"),
        "agreement": ("measure",),
        "agreement_per_query": ("query_id",),
        "leaderboards": ("system",),
        "correlations": ("top",),
        "swaps": ("above_a", "below_a"),
        "sweep": ("point",)}
# agreement_tables: the agreement section as the CSV and Parquet files beside a report hold it
EXPORTED_KEYS = {"agreement": ("measure",), "agreement_per_query": ("query_id",), "leaderboards": ("system",),
                 "correlations": ("among",), "swaps": ("higher_under_a", "lower_under_a")}
RECORD = {"rankkit", "duckdb", "python", "date", "call", "conventions", "measures", "coverage", "statistics", "by",
          "columns", "systems", "inputs", "warnings"}
OPTIONAL = {"engine", "sweep"}  # a report of values computed by Spark names it; one with a fusion sweep, its settings
# a sweep's record: its options (verify passes them back, each of this kind or None) and what it found
SWEEP_OPTIONS = {"method": str, "measure": str, "norm": str, "step": float, "grid": list, "holdout": float}
SWEEP_FOUND = {"ci", "best", "best_single", "best_single_mean", "points", "held_out"}
STATISTICS = {"test", "correction", "alpha", "ci", "interval", "difference_interval", "seed", "resamples",
              "baseline"}
INPUT = {"role", "name", "kind", "path", "given", "rows", "queries", "sha256", "files"}
ROLES = ("qrels", "second_qrels", "run", "items", "interactions", "queries")
# Stated, not made again: how the report was made. Their form is checked; the rest is recomputed.
VERSION = re.compile(r"[0-9A-Za-z.+!_-]{1,64}")
ENGINE = re.compile(r"spark \(pyspark [0-9A-Za-z.+!_-]{1,64}\)")
SHA256 = re.compile(r"[0-9a-f]{64}")
SHOWN = 10  # differing values named in the message; the rest are counted
PATH_SHOWN = 4096  # characters of a path said in a message (other text from a report: 120)
_CHUNK = 1 << 20


@dataclass
class Verification:
    """The outcome of :func:`verify`: ``holds``, the inputs whose sha256 changed, the values that differ
    from the report made again (``moved``), how many numbers and labels were compared, and ``report``:
    the report made again from the inputs (with the record's date, versions, call and paths), to export
    in place of the file's own tables."""

    path: str
    holds: bool
    changed: list[dict] = field(default_factory=list)  # role, name, path, recorded, now
    moved: list[dict] = field(default_factory=list)  # table, key, column, recorded, now
    checked: int = 0  # numbers compared
    labels: int = 0  # labels, names, flags and other words compared
    report: object = None

    def __bool__(self) -> bool:
        return self.holds

    def __str__(self) -> str:
        counted = f"{self.checked} numbers and {self.labels} labels and flags"
        if self.holds:
            return f"{_said(self.path, PATH_SHOWN)}: holds: all {counted} recomputed from the recorded inputs agree"
        lines = [f"{_said(self.path, PATH_SHOWN)}: does not hold"]
        for item in self.changed:
            lines.append(f"  input changed: {_input(item)}: sha256 {_said(item['recorded'])} in the record, "
                         f"{item['now']} now")
        for item in self.moved[:SHOWN]:
            key = ", ".join(_said(part) for part in item["key"])
            said, held = item.get("says", ("", ""))
            lines.append(f"  moved: {item['table']} {key}{' ' if key else ''}{_said(item['column'])}: "
                         f"{said + ' ' if said else ''}{_shown(item['recorded'])}"
                         f"{' in the report' if not said else ''}, {held + ' ' if held else ''}"
                         f"{_shown(item['now'])}{' recomputed' if not held else ''}")
        if len(self.moved) > SHOWN:
            lines.append(f"  ... and {len(self.moved) - SHOWN} more values differ")
        if not self.moved and self.changed:
            lines.append(f"  the {counted} still agree")
        else:
            lines.append(f"  {len(self.moved)} of the {counted} differ")
        return "\n".join(lines)


def _input(item: dict) -> str:
    name = f" {_said(item['name'])}" if item.get("name") else ""
    path = f" ({_said(item['path'], PATH_SHOWN)})" if item.get("path") else ""
    return f"{item['role']}{name}{path}"


def _said(value, most: int = 120) -> str:
    """Text from the report, safe to print: control characters written as escapes, long text cut."""
    from rankkit.safe.terminal import visible

    text = visible(str(value))
    return text if len(text) <= most else text[: most - 1] + "…"


def _shown(value) -> str:
    if value is None:
        return "none"
    if value is _ABSENT:
        return "absent"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        return f"'{_said(value, 60)}'"
    if isinstance(value, (dict, list)):
        return _said(json.dumps(value), 60)
    return str(value)


class _Absent:
    def __repr__(self) -> str:
        return "absent"


_ABSENT = _Absent()


# ---- the report as untrusted data ----------------------------------------------------------------

def _refuse(path, message: str):
    raise InputError(f"{_said(path, PATH_SHOWN)}: cannot be verified: {message}")


def _document(path: Path) -> dict:
    """The report's JSON, read once: a regular file of bounded size holding a rankkit report."""
    from rankkit.report.model import FORMAT_VERSION, TABLES

    named = _said(path, PATH_SHOWN)
    try:  # opened once, without waiting for a writer: a FIFO is refused, never read
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError(f"{named}: no such file") from None
    except OSError as error:
        raise InputError(f"{named}: cannot be read ({error.strerror})") from None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{named}: not a regular file: a report is a JSON file "
                             f"(rankkit report ... -o report.json)")
        if info.st_size > LIMITS["report_bytes"]:
            raise InputError(f"{named}: {info.st_size} bytes, more than a report verify reads "
                             f"({LIMITS['report_bytes']} bytes)")
        with os.fdopen(os.dup(handle), "rb") as file:
            data = file.read(LIMITS["report_bytes"] + 1)
    except OSError as error:
        raise InputError(f"{named}: cannot be read ({error.strerror})") from None
    finally:
        os.close(handle)
    if len(data) > LIMITS["report_bytes"]:
        raise InputError(f"{named}: more than a report verify reads ({LIMITS['report_bytes']} bytes)")
    try:
        document = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise InputError(f"{named}: not a rankkit report saved as JSON ({_said(error)})") from None
    if not isinstance(document, dict) or document.get("rankkit_report") != FORMAT_VERSION:
        raise InputError(f"{named}: not a rankkit report (expected a JSON object with \"rankkit_report\": "
                         f"{FORMAT_VERSION})")
    unknown = set(document) - {"rankkit_report", "title", "record", "agreement_tables", *TABLES}
    if unknown:
        _refuse(path, f"it carries a field verify does not know: {_said(sorted(unknown)[0])}")
    _expect(path, "title", document.get("title"), str)
    _expect(path, "record", document.get("record"), dict)
    for name in TABLES:
        _rows(path, name, document.get(name, []))
    exported = document.get("agreement_tables", {})
    _expect(path, "agreement_tables", exported, dict)
    for name, rows in exported.items():
        if name not in EXPORTED_KEYS:
            _refuse(path, f"it carries a field verify does not know: agreement_tables.{_said(name)}")
        _rows(path, f"agreement_tables.{name}", rows)
    return document


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _rows(path, name: str, rows) -> None:
    _expect(path, name, rows, list)
    for i, row in enumerate(rows):
        _expect(path, f"{name}[{i}]", row, dict)
        for column, value in row.items():
            if not (value is None or isinstance(value, (str, int, float, bool))):
                _refuse(path, f"{name}[{i}].{_said(column)}: expected a number, a string or null, "
                              f"found {_kind(value)}")


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true or false", int: "an integer",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _expect(path, name: str, value, kind, *, none: bool = False):
    """The field's value when it has the type expected (bool is not a number here); refused otherwise."""
    if value is None and none:
        return value
    expected = {str: "a string", dict: "an object", list: "a list", int: "an integer", float: "a number",
                bool: "true or false"}[kind]
    good = (isinstance(value, (int, float)) and not isinstance(value, bool) if kind is float
            else isinstance(value, int) and not isinstance(value, bool) if kind is int
            else isinstance(value, kind))
    if not good:
        _refuse(path, f"{name}: expected {expected}{' or null' if none else ''}, found {_kind(value)}"
                      + (f" {_shown(value)}" if isinstance(value, (str, int, float)) else ""))
    if kind is str and len(value) > LIMITS["text"]:
        _refuse(path, f"{name}: {len(value)} characters, more than verify reads ({LIMITS['text']})")
    return value


def _checked_record(path, record: dict) -> dict:
    """Every field of the record of a known type and within bounds, before any input is read."""
    missing = sorted(RECORD - set(record))
    if missing:
        _refuse(path, f"record.{missing[0]}: missing")
    unknown = sorted(set(record) - RECORD - OPTIONAL)
    if unknown:
        _refuse(path, f"it carries a field verify does not know: record.{_said(unknown[0])}")
    for name in ("rankkit", "duckdb", "python"):
        if not VERSION.fullmatch(_expect(path, f"record.{name}", record[name], str)):
            _refuse(path, f"record.{name}: {_shown(record[name])} is not a version")
    try:
        datetime.datetime.fromisoformat(_expect(path, "record.date", record["date"], str))
    except ValueError:
        _refuse(path, f"record.date: {_shown(record['date'])} is not a date (ISO 8601)")
    if "engine" in record and not ENGINE.fullmatch(_expect(path, "record.engine", record["engine"], str)):
        _refuse(path, f"record.engine: {_shown(record['engine'])} is not an engine rankkit names")
    _expect(path, "record.call", record["call"], str)
    _expect(path, "record.by", record["by"], str, none=True)
    for name in ("coverage", "systems", "warnings"):
        for i, item in enumerate(_expect(path, f"record.{name}", record[name], list)):
            _expect(path, f"record.{name}[{i}]", item, str)
    for key, value in _expect(path, "record.columns", record["columns"], dict).items():
        _expect(path, f"record.columns.{_said(key)}", value, str, none=True)
    _checked_statistics(path, _expect(path, "record.statistics", record["statistics"], dict))
    _checked_conventions(path, _expect(path, "record.conventions", record["conventions"], dict))
    measures = _expect(path, "record.measures", record["measures"], list)
    if not measures or len(measures) > LIMITS["measures"]:
        _refuse(path, f"record.measures: {len(measures)} measures; verify recomputes 1 to {LIMITS['measures']}")
    for i, measure in enumerate(measures):
        _expect(path, f"record.measures[{i}].name", _expect(path, f"record.measures[{i}]", measure, dict).get("name"),
                str)
        for key, value in _expect(path, f"record.measures[{i}].params", measure.get("params"), dict).items():
            _expect(path, f"record.measures[{i}].params.{_said(key)}", value, str, none=True)
        # which way it is better (the tables' bold reads it); a report made before the record kept it has none
        if "better" in measure and _expect(path, f"record.measures[{i}].better", measure["better"], str) not in BETTER:
            _refuse(path, f"record.measures[{i}].better: {_shown(measure['better'])} is not one of {', '.join(BETTER)}")
    _checked_inputs(path, _expect(path, "record.inputs", record["inputs"], list))
    if "sweep" in record:
        _checked_sweep(path, _expect(path, "record.sweep", record["sweep"], dict))
    return record


def _checked_sweep(path, sweep: dict) -> None:
    fields = set(SWEEP_OPTIONS) | SWEEP_FOUND
    missing, unknown = sorted(fields - set(sweep)), sorted(set(sweep) - fields)
    if missing:
        _refuse(path, f"record.sweep.{missing[0]}: missing")
    if unknown:
        _refuse(path, f"it carries a field verify does not know: record.sweep.{_said(unknown[0])}")
    for name, kind in SWEEP_OPTIONS.items():
        _expect(path, f"record.sweep.{name}", sweep[name], kind, none=name not in ("method", "measure", "step"))


def _checked_statistics(path, stats: dict) -> None:
    missing = sorted(STATISTICS - set(stats))
    if missing:
        _refuse(path, f"record.statistics.{missing[0]}: missing")
    unknown = sorted(set(stats) - STATISTICS)
    if unknown:
        _refuse(path, f"it carries a field verify does not know: record.statistics.{_said(unknown[0])}")
    for name in ("test", "correction", "difference_interval"):
        _expect(path, f"record.statistics.{name}", stats[name], str)
    for name in ("interval", "baseline"):
        _expect(path, f"record.statistics.{name}", stats[name], str, none=True)
    alpha = _expect(path, "record.statistics.alpha", stats["alpha"], float)
    if not 0 < alpha < 1:
        _refuse(path, f"record.statistics.alpha: {alpha!r} is not between 0 and 1")
    ci = _expect(path, "record.statistics.ci", stats["ci"], float, none=True)
    if ci is not None and not 0 < ci < 1:
        _refuse(path, f"record.statistics.ci: {ci!r} is not between 0 and 1")
    seed = _expect(path, "record.statistics.seed", stats["seed"], int, none=True)
    if seed is not None and not 0 <= seed < 2**64:
        _refuse(path, f"record.statistics.seed: {seed} is not between 0 and 2^64")
    resamples = _expect(path, "record.statistics.resamples", stats["resamples"], int)
    if not 1 <= resamples <= LIMITS["resamples"]:
        _refuse(path, f"record.statistics.resamples: {resamples} is not between 1 and {LIMITS['resamples']}, "
                      f"the most verify draws")


def _checked_conventions(path, conventions: dict) -> None:
    kinds = {"ties": (str, False), "scores": (str, False), "depth": (int, True), "queries": (str, False),
             "rel": (float, False), "duplicates": (str, False), "judged_only": (bool, False), "docs": (int, False),
             "pack": (str, True)}
    unknown = sorted(set(conventions) - set(kinds))
    if unknown:
        _refuse(path, f"it carries a field verify does not know: record.conventions.{_said(unknown[0])}")
    for name, value in conventions.items():
        kind, none = kinds[name]
        _expect(path, f"record.conventions.{name}", value, kind, none=none)
    if conventions.get("depth") is not None and conventions["depth"] < 1:
        _refuse(path, f"record.conventions.depth: {conventions['depth']} is not a positive integer")


def _checked_inputs(path, inputs: list) -> None:
    if not inputs or len(inputs) > LIMITS["inputs"]:
        _refuse(path, f"record.inputs: {len(inputs)} inputs; verify reads 1 to {LIMITS['inputs']}")
    for i, item in enumerate(inputs):
        where = f"record.inputs[{i}]"
        _expect(path, where, item, dict)
        missing, unknown = sorted(INPUT - set(item)), sorted(set(item) - INPUT)
        if missing:
            _refuse(path, f"{where}.{missing[0]}: missing")
        if unknown:
            _refuse(path, f"it carries a field verify does not know: {where}.{_said(unknown[0])}")
        if item["role"] not in ROLES:
            _refuse(path, f"{where}.role: {_shown(item['role'])} is not one of {', '.join(ROLES)}")
        for name in ("name", "given", "path", "sha256"):
            _expect(path, f"{where}.{name}", item[name], str, none=True)
        for name in ("rows", "queries", "files"):
            _expect(path, f"{where}.{name}", item[name], int, none=True)
        if item["kind"] != "file":
            _refuse(path, f"{_input(item)} was a {_said(item['kind'])}, not a file: only a report of files can be "
                          f"recomputed")
        if item["files"] != 1 or item["path"] is None:
            _refuse(path, f"{where}: {_input(item)} is a folder or a glob of {item['files']} files; verify reads "
                          f"regular files only, each named in the record")
        if item["sha256"] is None or not SHA256.fullmatch(item["sha256"]):
            _refuse(path, f"{where}.sha256: {_shown(item['sha256'])} is not a sha256")
    roles = [item["role"] for item in inputs]
    order = [role for role in ("qrels", "second_qrels") if role in roles] + ["run"] * roles.count("run")
    order += [role for role in ("items", "interactions") if role in roles] + ["queries"] * roles.count("queries")
    if roles != order or roles.count("qrels") != 1 or not roles.count("run") or any(
            roles.count(role) > 1 for role in ("second_qrels", "items", "interactions", "queries")):
        _refuse(path, f"record.inputs: roles {', '.join(roles)}; a report reads one qrels, at most one second_qrels, "
                      f"runs, at most one items, interactions and queries, in that order")
    runs = [item for item in inputs if item["role"] == "run"]
    if any(item["name"] is None for item in runs) and len(runs) > 1:
        _refuse(path, "record.inputs: several runs, one without a name")


def input_path(report: Path, recorded: str) -> Path:
    """Where an input is: its recorded path, absolute as rankkit records it; a relative path is taken
    from the report's folder (a report and its inputs sent together in one folder)."""
    path = Path(recorded)
    return path if path.is_absolute() else report.resolve().parent / path


def _fingerprint(report: Path, item: dict) -> str:
    """sha256 of the regular file an input names, opened once (a FIFO or device is refused, never read)."""
    path = input_path(report, item["path"])
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO opens without a writer
    except FileNotFoundError:
        _refuse(report, f"{_input(item)}: no such file")
    except OSError as error:
        _refuse(report, f"{_input(item)}: cannot be read ({error.strerror})")
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            _refuse(report, f"{_input(item)}: not a regular file; verify reads regular files only")
        if info.st_size > LIMITS["input_bytes"]:
            _refuse(report, f"{_input(item)}: {info.st_size} bytes, more than verify reads "
                            f"({LIMITS['input_bytes']} bytes)")
        digest, size = hashlib.sha256(), 0
        for chunk in iter(lambda: os.read(handle, _CHUNK), b""):
            size += len(chunk)
            if size > LIMITS["input_bytes"]:  # a file that grows as it is read (under /proc)
                _refuse(report, f"{_input(item)}: more than {LIMITS['input_bytes']} bytes, more than verify reads")
            digest.update(chunk)
    except OSError as error:
        _refuse(report, f"{_input(item)}: cannot be read ({error.strerror})")
    finally:
        os.close(handle)
    return digest.hexdigest()


# ---- verify ------------------------------------------------------------------------------------------

def verify(path: str | Path, *, con=None) -> Verification:
    """Recompute the report saved at ``path`` (JSON) from the files its record names.

    Returns a :class:`Verification`, true when everything the report shows holds; ``str()`` of it
    says which input changed and which values differ. A report that cannot be recomputed (made from
    DataFrames or tables, an input missing or not a regular file, a field of the wrong type, a field
    verify does not know, a bound passed) is an :class:`InputError` naming the field or file.
    """
    from rankkit.report.build import build
    from rankkit.report.model import Report

    path = Path(path)
    document = _document(path)
    record = _checked_record(path, document["record"])
    inputs = record["inputs"]
    changed = []
    for item in inputs:
        now = _fingerprint(path, item)
        if now != item["sha256"]:
            changed.append({**item, "recorded": item["sha256"], "now": now})
    runs_items = [item for item in inputs if item["role"] == "run"]
    files = {id(item): str(input_path(path, item["path"])) for item in inputs}
    runs = ({item["name"]: files[id(item)] for item in runs_items} if runs_items[0]["name"] is not None
            else files[id(runs_items[0])])
    queries = next((files[id(item)] for item in inputs if item["role"] == "queries"), None)
    second_qrels = next((files[id(item)] for item in inputs if item["role"] == "second_qrels"), None)
    sides = {side: next((files[id(item)] for item in inputs if item["role"] == side), None)
             for side in ("items", "interactions")}
    stats = record["statistics"]
    try:
        conventions = Conventions.from_dict(record["conventions"])
        again = build(files[id(inputs[0])], runs, [m["name"] for m in record["measures"]], baseline=stats["baseline"],
                      test=stats["test"], correction=stats["correction"], alpha=stats["alpha"], ci=stats["ci"],
                      seed=stats["seed"], resamples=stats["resamples"], by=record["by"], queries=queries,
                      title=document["title"], con=con, columns=record["columns"] or None,
                      conventions=conventions, call=record["call"], second_qrels=second_qrels,
                      sweep={name: record["sweep"][name] for name in SWEEP_OPTIONS} if "sweep" in record else None,
                      **sides)
    except RankkitError as error:
        _refuse(path, f"recomputing it from its record: {error}")
    read_as = {files[id(item)]: item["given"] for item in inputs}
    made = Report(title=document["title"], record=_stated(again.record, record, read_as),
                  **{name: getattr(again, name) for name in KEYS})
    moved, counts = _call(record, document["title"], con), [0, 0]
    _compare_document(document, json.loads(made.to_json()), moved, counts)
    return Verification(str(path), not changed and not moved, changed, moved, counts[0], counts[1], made)


def export(outcome: Verification, path: str | Path) -> list[Path]:
    """Write the report made again (``outcome.report``: the recomputed tables) to ``path``, in the format
    its suffix names, for a report that holds; never over the report or one of its inputs."""
    if not outcome.holds:
        raise InputError(f"{_said(outcome.path)}: does not hold: verify writes only a report that holds")
    path = Path(path)
    report_path = Path(outcome.path)
    read = [report_path] + [input_path(report_path, item["path"]) for item in outcome.report.record["inputs"]]
    written = outcome.report.written(path)
    for target in written:
        for source in read:
            if target.resolve() == source.resolve() or (target.exists() and os.path.samefile(target, source)):
                raise InputError(f"-o {_said(target)}: is {'the report' if source == report_path else 'an input'} "
                                 f"verify read; write the report made again to another file")
    outcome.report.save(path)
    return written


def _stated(again: dict, record: dict, read_as: dict[str, str | None]) -> dict:
    """The record made again, with what only the making can say taken from the report: the date,
    the versions, the engine, the call and each input's paths (their form already checked). The
    warnings name the inputs as verify read them (``read_as``: path read, path given): as given."""
    stated = {**again, **{name: record[name] for name in ("date", "rankkit", "duckdb", "python", "call")}}
    warnings = []
    for text in again["warnings"]:
        for read in sorted(read_as, key=len, reverse=True):
            text = text.replace(read, read_as[read]) if read_as[read] is not None else text
        warnings.append(text)
    stated["warnings"] = warnings
    if "engine" in record:
        stated["engine"] = record["engine"]
    # (each input's sha256 is compared with its file's, as an input that changed, not a value that differs)
    stated["inputs"] = [{**item, "path": old["path"], "given": old["given"], "sha256": old["sha256"]}
                        if isinstance(old, dict) else item
                        for item, old in zip(again["inputs"], record["inputs"] + [None] * len(again["inputs"]))]
    return stated


def _call(record: dict, title: str, con) -> list[dict]:
    """The call as written must ask for what the record holds (the options verify recomputed with):
    each option they disagree on, as a value that differs."""
    from rankkit._sql import connect
    from rankkit.io import default_connection
    from rankkit.report.call import call_disagreements

    con = connect(con) if con is not None else default_connection()
    return [{"table": "record", "key": (), "column": f"call ({option})", "recorded": said, "now": held,
             "says": ("the call says", "the report")} for option, said, held in call_disagreements(record, title, con)]


# ---- comparing the report with the report made again ---------------------------------------------

def _compare_document(saved: dict, made: dict, moved: list, counts: list) -> None:
    order = ["rankkit_report", "title", "record", *KEYS, "agreement_tables"]  # the record, then the tables
    for name in sorted(set(saved) | set(made), key=lambda name: (order.index(name) if name in order else 99, name)):
        if name in KEYS:
            keys = KEYS[name] + ((made["record"]["by"],) if name == "slices" and made["record"]["by"] else ())
            _compare_rows(name, saved.get(name, []), made.get(name, []), keys, moved, counts)
        elif name == "agreement_tables":
            old, new = saved.get(name, {}), made.get(name, {})
            for table in sorted(set(old) | set(new)):
                _compare_rows(f"agreement_tables.{table}", old.get(table, []), new.get(table, []),
                              EXPORTED_KEYS[table], moved, counts)
        else:
            _compare_value(name, (), saved.get(name, _ABSENT), made.get(name, _ABSENT), moved, counts)


def _compare_rows(table: str, saved: list, made: list, keys: tuple, moved: list, counts: list) -> None:
    old, new = _index(saved, keys), _index(made, keys)
    for key in sorted(old.keys() | new.keys(), key=str):
        rows_old, rows_new = old.get(key, []), new.get(key, [])
        if len(rows_old) != 1 or len(rows_new) != 1:
            counts[1] += 1
            moved.append({"table": table, "key": key, "column": "rows", "recorded": len(rows_old),
                          "now": len(rows_new)})
            continue
        a, b = rows_old[0], rows_new[0]
        for column in list(b) + [c for c in a if c not in b]:
            _compare_value(table, key, a.get(column, _ABSENT), b.get(column, _ABSENT), moved, counts, column)


def _index(rows: list, keys: tuple) -> dict:
    index: dict = {}
    for row in rows:
        index.setdefault(tuple(str(row.get(k)) for k in keys), []).append(row)
    return index


def _compare_value(table: str, key: tuple, a, b, moved: list, counts: list, column: str = "") -> None:
    """Numbers to TOLERANCE, everything else exactly; objects and lists field by field."""
    if isinstance(a, dict) and isinstance(b, dict):
        for name in list(b) + [n for n in a if n not in b]:
            _compare_value(table, key, a.get(name, _ABSENT), b.get(name, _ABSENT), moved, counts,
                           f"{column}.{name}" if column else str(name))
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _compare_value(table, key, x, y, moved, counts, f"{column}[{i}]")
        return
    number = _is_number(b) or (_is_number(a) and b is None)
    counts[0 if number else 1] += 1
    if not _same(a, b):
        moved.append({"table": table, "key": key, "column": column, "recorded": a, "now": b})


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(a, b) -> bool:
    if _is_number(a) and _is_number(b):
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            return False
        return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))
    return type(a) is type(b) and a == b
