"""verify against reports from strangers (issue 32): every stored number, label and flag a report
shows forged one at a time must not hold, naming it; a crafted record (a glob of /, a directory, a
device, a FIFO, 10^9 resamples, a string for a number, a field nobody knows, a missing input) is
refused at once with one line, never a traceback, a walk of the file system or a long bootstrap."""

from __future__ import annotations

import copy
import json
import os
import warnings
from pathlib import Path

import pytest

import rankkit
from rankkit.cli import main
from rankkit.errors import InputError
from rankkit.report.verify import KEYS, LIMITS
from test_agreement_report import QRELS
from test_report import write_inputs


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("hostile-verify")


@pytest.fixture(scope="module")
def made(folder) -> dict:
    """A report made on the command line (3 systems, slices, a baseline), as a JSON document."""
    files = write_inputs(folder / "inputs")
    out = folder / "report.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["report", str(files["qrels"]), *map(str, files["runs"].values()), "-m", "nDCG@10", "-m", "AP",
                     "-m", "NumRelRet", "--baseline", "bm25", "--by", "category", "--queries", str(files["topics"]),
                     "-o", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def agreed(folder) -> dict:
    """A report made in Python with a second judgment table and three systems: the agreement section."""
    (folder / "qrels_a.txt").write_text(QRELS)
    # a second judge for whom d5 and d6 alone are relevant: down and mixed swap places (test_agreement_report)
    (folder / "second.txt").write_text("".join(f"q{q} 0 d{d} {2 if d >= 5 else 0}\n"
                                               for q in range(1, 9) for d in range(1, 7)))
    runs = {}
    for n, name in enumerate(("up", "down", "mixed")):
        path = folder / f"{name}.run"
        path.write_text("".join(f"q{q} Q0 d{d} 0 {(d if n == 0 else -d if n == 1 else (d * 7 + q) % 5)} {name}\n"
                                for q in range(1, 9) for d in range(1, 7)))
        runs[name] = str(path)
    made = rankkit.report(str(folder / "qrels_a.txt"), runs, ["P@3", "AP"], second_qrels=str(folder / "second.txt"),
                          resamples=300)
    return json.loads(made.to_json())


def _save(document: dict, path: Path) -> Path:
    path.write_text(json.dumps(document))
    return path


def test_both_reports_hold_and_count_what_they_compare(made, agreed, tmp_path, capsys):
    for document in (made, agreed):
        outcome = rankkit.verify(_save(document, tmp_path / "honest.json"))
        assert outcome.holds, str(outcome)
        numbers = _numbers(document)
        assert outcome.checked >= numbers > 100 and outcome.labels > 100
        assert f"all {outcome.checked} numbers and {outcome.labels} labels and flags" in str(outcome)
    assert main(["verify", str(tmp_path / "honest.json")]) == 0
    assert " holds: " in capsys.readouterr().out


def _numbers(document) -> int:
    if isinstance(document, dict):
        return sum(_numbers(value) for value in document.values())
    if isinstance(document, list):
        return sum(_numbers(value) for value in document)
    return int(isinstance(document, (int, float)) and not isinstance(document, bool))


# ---- forged values: each kind, one at a time --------------------------------------------------------

def _row(table: str, index: int = 0, **where):
    """The row of ``table`` to forge: the ``index``-th of those matching ``where``."""
    def pick(document):
        rows = [row for row in document[table] if all(row.get(k) == v for k, v in where.items())]
        return rows[index]
    return pick


def _add(table: str, column: str, amount: float = 0.03125, **where):
    def forge(document):
        row = _row(table, **where)(document)
        row[column] = (row[column] or 0) + amount
    return forge


def _set(table: str, column: str, value, **where):
    def forge(document):
        _row(table, **where)(document)[column] = value
    return forge


def _flip(table: str, column: str, **where):
    def forge(document):
        row = _row(table, **where)(document)
        row[column] = not row[column]
    return forge


def _record(*path, value=None, change=None):
    def forge(document):
        target = document["record"]
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = change(target[path[-1]]) if change else value
    return forge


def _both(*forges):
    def forge(document):
        for each in forges:
            each(document)
    return forge


def _swap_labels(document):
    first, second = document["record"]["measures"][:2]
    first["label"], second["label"] = second["label"], first["label"]


def _swap_measures(document):
    """nDCG@10 and AP renamed into each other everywhere: tables, record and call."""
    swap = {"nDCG@10": "AP", "AP": "nDCG@10"}
    for name in KEYS:
        for row in document[name]:
            if row.get("measure") in swap:
                row["measure"] = swap[row["measure"]]
    for measure in document["record"]["measures"]:
        if measure["name"] in swap:
            measure["name"], measure["label"] = swap[measure["name"]], swap[measure["label"]]


def _call(old: str, new: str):
    def forge(document):
        assert old in document["record"]["call"]
        document["record"]["call"] = document["record"]["call"].replace(old, new)
    return forge


def _duplicate_row(document):
    document["aggregate"].append(dict(document["aggregate"][0]))


def _drop_row(document):
    del document["comparison"][0]


def _rename_query(document):
    row = _row("per_query")(document)
    row["query_id"] = "q99"


def _swap_slice(document):
    row = _row("slices")(document)
    row["category"] = "long" if row["category"] == "short" else "short"


def _swap_sides(document):
    row = _row("comparison")(document)
    row["system"], row["baseline"] = row["baseline"], row["system"]


def _swap_run_names(document):
    first, _, third = document["record"]["inputs"][1:4]
    first["name"], third["name"] = third["name"], first["name"]


def _swap_systems(document):
    systems = document["record"]["systems"]
    systems[0], systems[1] = systems[1], systems[0]


# (id, report, forgery, table named, column named)
FORGERIES = [
    ("aggregate value", "made", _add("aggregate", "value"), "aggregate", "value"),
    ("aggregate interval low", "made", _add("aggregate", "ci_low"), "aggregate", "ci_low"),
    ("aggregate interval high", "made", _add("aggregate", "ci_high", -0.03125), "aggregate", "ci_high"),
    ("aggregate query count", "made", _add("aggregate", "queries", 1), "aggregate", "queries"),
    ("aggregate of a count (sum)", "made", _add("aggregate", "value", 1, measure="NumRelRet"), "aggregate", "value"),
    ("aggregate extra column", "made", _set("aggregate", "note", "best of all"), "aggregate", "note"),
    ("aggregate row twice", "made", _duplicate_row, "aggregate", "rows"),
    ("per query value", "made", _add("per_query", "value", 0.5), "per_query", "value"),
    ("per query id", "made", _rename_query, "per_query", "rows"),
    ("slice value", "made", _add("slices", "value"), "slices", "value"),
    ("slice query count", "made", _add("slices", "queries", 2), "slices", "queries"),
    ("slice label", "made", _swap_slice, "slices", "rows"),
    ("significance flag", "made", _flip("comparison", "significant"), "comparison", "significant"),
    ("p-value", "made", _set("comparison", "p_value", 0.5), "comparison", "p_value"),
    ("adjusted p", "made", _set("comparison", "p_adjusted", 0.001), "comparison", "p_adjusted"),
    ("difference", "made", _add("comparison", "diff"), "comparison", "diff"),
    ("difference interval", "made", _add("comparison", "ci_high"), "comparison", "ci_high"),
    ("effect size", "made", _add("comparison", "effect"), "comparison", "effect"),
    ("system mean in the comparison", "made", _add("comparison", "mean"), "comparison", "mean"),
    ("wins", "made", _add("comparison", "wins", 1), "comparison", "wins"),
    ("comparison sides swapped", "made", _swap_sides, "comparison", "rows"),
    ("comparison row dropped", "made", _drop_row, "comparison", "rows"),
    ("coverage", "made", _add("coverage", "value"), "coverage", "value"),
    ("measure labels swapped", "made", _swap_labels, "record", "measures[0].label"),
    ("measures swapped everywhere", "made", _swap_measures, "aggregate", "value"),
    ("measure definition", "made", _record("measures", 0, "summary", value="reciprocal rank"), "record",
     "measures[0].summary"),
    ("measure cutoff", "made", _record("measures", 0, "k", value=5), "record", "measures[0].k"),
    ("measure combined by sum", "made", _record("measures", 0, "aggregate", value="sum"), "record",
     "measures[0].aggregate"),
    ("measure citation", "made", _record("measures", 1, "cite", value="Someone, 2099"), "record",
     "measures[1].cite"),
    ("system order (letters)", "made", _swap_systems, "record", "systems[0]"),
    ("interval named", "made", _record("statistics", "interval", value="t"), "record", "statistics.interval"),
    ("difference interval named", "made", _record("statistics", "difference_interval", value="bootstrap"), "record",
     "statistics.difference_interval"),
    ("alpha", "made", _record("statistics", "alpha", value=0.5), "record", "call (alpha)"),
    ("seed", "made", _record("statistics", "seed", value=7), "record", "call (seed)"),
    ("test, record and call alike", "made",
     _both(_record("statistics", "test", value="wilcoxon"), _call("--test t", "--test wilcoxon")),
     "comparison", "p_value"),
    ("correction, record and call alike", "made",
     _both(_record("statistics", "correction", value="none"), _call("--correction holm", "--correction none")),
     "comparison", "p_adjusted"),
    ("baseline", "made", _record("statistics", "baseline", value="hybrid"), "record", "call (baseline)"),
    ("tie rule", "made", _record("conventions", "ties", value="rank"), "record", "call (conventions)"),
    ("input rows", "made", _record("inputs", 0, "rows", change=lambda n: n + 1), "record", "inputs[0].rows"),
    ("input queries", "made", _record("inputs", 1, "queries", change=lambda n: n - 1), "record", "inputs[1].queries"),
    ("run names swapped", "made", _swap_run_names, "record", "call (runs)"),
    ("input path as given", "made", _record("inputs", 0, "given", value="official-qrels.txt"), "record",
     "call (qrels)"),
    ("warnings", "made", _record("warnings", value=["all good"]), "record", "warnings"),
    ("coverage cutoffs", "made", _record("coverage", value=["Judged@10"]), "record", "coverage"),
    ("title", "made", lambda document: document.update(title="Dense wins"), "record", "call (title)"),
    ("call: test", "made", _call("--test t", "--test wilcoxon"), "record", "call (test)"),
    ("call: measures", "made", _call("-m AP", "-m P@5"), "record", "call (measures)"),
    ("call: not a call", "made", _record("call", value="rm -rf /"), "record", "call (call)"),
    ("label agreement", "agreed", _add("agreement", "value"), "agreement", "value"),
    ("label agreement mean", "agreed", _add("agreement", "mean"), "agreement", "mean"),
    ("label agreement interval", "agreed", _add("agreement", "ci_low", -0.03125, measure="kappa"), "agreement",
     "ci_low"),
    ("label agreement queries", "agreed", _add("agreement", "queries", 1), "agreement", "queries"),
    ("per-query kappa", "agreed", _set("agreement_per_query", "kappa_linear", -0.5), "agreement_per_query",
     "kappa_linear"),
    ("per-query pairs", "agreed", _add("agreement_per_query", "pairs", 1), "agreement_per_query", "pairs"),
    ("leaderboard value", "agreed", _add("leaderboards", "value_a"), "leaderboards", "value_a"),
    ("leaderboard rank", "agreed", _add("leaderboards", "rank_b", 1), "leaderboards", "rank_b"),
    ("correlation", "agreed", _add("correlations", "kendall_tau_b", -0.5), "correlations", "kendall_tau_b"),
    ("swapped pairs count", "agreed", _add("correlations", "swaps", 1), "correlations", "swaps"),
    ("swap p adjusted", "agreed", _set("swaps", "p_adjusted", 0.001), "swaps", "p_adjusted"),
    ("swap significance", "agreed", _flip("swaps", "significant"), "swaps", "significant"),
    ("exported agreement", "agreed",
     lambda d: d["agreement_tables"]["agreement"][0].update(over_all_pairs=0.99), "agreement_tables.agreement",
     "over_all_pairs"),
    ("exported description", "agreed",
     lambda d: d["agreement_tables"]["agreement"][0].update(description="perfect"), "agreement_tables.agreement",
     "description"),
    ("exported swap flag", "agreed",
     lambda d: d["agreement_tables"]["swaps"][0].update(significant_under_a=not d["agreement_tables"]["swaps"][0][
         "significant_under_a"]), "agreement_tables.swaps", "significant_under_a"),
    ("exported judgment table name", "agreed",
     lambda d: d["agreement_tables"]["leaderboards"][0].update(qrels_b="gold.txt"), "agreement_tables.leaderboards",
     "qrels_b"),
    ("second judgment table as given", "agreed", _record("inputs", 1, "given", value="gold.txt"), "record",
     "call (second_qrels)"),
]


@pytest.mark.parametrize("name, which, forge, table, column", FORGERIES, ids=[f[0] for f in FORGERIES])
def test_a_forged_value_does_not_hold_and_is_named(name, which, forge, table, column, made, agreed, tmp_path,
                                                   capsys):
    document = copy.deepcopy({"made": made, "agreed": agreed}[which])
    forge(document)
    assert document != {"made": made, "agreed": agreed}[which]
    path = _save(document, tmp_path / "forged.json")
    outcome = rankkit.verify(path)
    text = str(outcome)
    assert not outcome.holds and text.startswith(f"{path}: does not hold")
    named = [item for item in outcome.moved if item["table"] == table and item["column"] == column]
    assert named, text
    if outcome.moved.index(named[0]) < 10:  # the message names the first ten, and counts the rest
        assert f"moved: {table} " in text and f" {column}: " in text
    assert not outcome.changed  # the inputs are the ones recorded: only the report was forged
    # the report made again shows the recomputed value, never the forged one
    if table in KEYS and column in ("value", "significant", "p_value", "p_adjusted"):
        key = named[0]["key"]
        frame = getattr(outcome.report, table)
        again = frame[(frame[list(KEYS[table])].astype(str).apply(tuple, axis=1)) == key[:len(
            KEYS[table])]]
        assert again[column].tolist()[0] == pytest.approx(named[0]["now"], nan_ok=True)
    assert main(["verify", str(path)]) == 1
    assert "does not hold" in capsys.readouterr().out


def test_stated_fields_are_checked_for_their_form_not_recomputed(made, tmp_path):
    """The date and versions say how a report was made; verify cannot make them again, so a plausible
    one holds (the README says so), and one that is not a date or a version is refused."""
    document = copy.deepcopy(made)
    document["record"].update(date="2020-02-02T02:02:02+00:00", rankkit="0.0.9")
    assert rankkit.verify(_save(document, tmp_path / "r.json")).holds
    for field, value in (("date", "yesterday"), ("rankkit", "\x1b]0;pwned\x07"), ("engine", "spark; rm -rf /")):
        document = copy.deepcopy(made)
        document["record"][field] = value
        with pytest.raises(InputError, match=f"record.{field}: ") as caught:
            rankkit.verify(_save(document, tmp_path / "r.json"))
        assert "\x1b" not in str(caught.value) and "\x07" not in str(caught.value)


def test_an_input_that_changed_still_names_the_values_that_moved(made, folder, tmp_path):
    document = copy.deepcopy(made)
    document["record"]["inputs"][0]["sha256"] = "0" * 64
    outcome = rankkit.verify(_save(document, tmp_path / "r.json"))
    text = str(outcome)
    assert not outcome.holds and "input changed: qrels" in text and not outcome.moved
    assert f"the {outcome.checked} numbers and {outcome.labels} labels and flags still agree" in text
    assert outcome.checked > 100


def test_the_report_made_again_exports_the_recomputed_tables(made, tmp_path, capsys):
    """A re-export from Report.load shows what the file holds, forged or not; verify's report, and
    rankkit verify -o, show the numbers made again, and -o writes nothing for a report that does not hold."""
    document = copy.deepcopy(made)
    document["slices"][0]["value"] = 0.987654
    forged = _save(document, tmp_path / "forged.json")
    assert "0.9877" in rankkit.Report.load(forged).to_markdown()  # load renders the file as it is
    outcome = rankkit.verify(forged)
    assert not outcome.holds and "0.9877" not in outcome.report.to_markdown()
    assert main(["verify", str(forged), "-o", str(tmp_path / "again.md")]) == 1
    assert not (tmp_path / "again.md").exists()
    assert "does not hold" in capsys.readouterr().out
    honest = _save(made, tmp_path / "honest.json")
    assert main(["verify", str(honest), "-o", str(tmp_path / "again.docx")]) == 2  # before recomputing
    assert "a report is written as .html" in capsys.readouterr().err
    assert main(["verify", str(honest), "-o", str(tmp_path / "again.md")]) == 0
    assert f"wrote {tmp_path / 'again.md'}" in capsys.readouterr().out
    assert (tmp_path / "again.md").read_text() == rankkit.verify(honest).report.to_markdown()
    qrels = made["record"]["inputs"][0]["path"]
    before = Path(qrels).read_bytes()
    assert main(["verify", str(honest), "-o", str(honest)]) == 2
    assert main(["verify", str(honest), "-o", qrels.replace(".txt", ".md")]) == 0  # beside it: fine
    assert Path(qrels).read_bytes() == before


# ---- crafted records: refused at once, one line, exit 2 --------------------------------------------

def _input_path(value, files: int | None = 1, index: int = 0):
    def forge(document):
        document["record"]["inputs"][index].update(path=value, files=files)
    return forge


def _statistics(**values):
    def forge(document):
        document["record"]["statistics"].update(values)
    return forge


def _many_inputs(document):
    document["record"]["inputs"] = [dict(document["record"]["inputs"][1]) for _ in range(1001)]


# (id, forgery, what the one line names)
CRAFTED = [
    ("glob of the root", _input_path("/**"), "qrels (/**): no such file"),
    ("glob recorded as many files", _input_path("/**", files=4000), "is a folder or a glob of 4000 files"),
    ("the root folder", _input_path("/"), "qrels (/): not a regular file"),
    ("a device", _input_path("/dev/zero"), "qrels (/dev/zero): not a regular file"),
    ("a missing input", _input_path("/nonexistent/qrels.txt"), "qrels (/nonexistent/qrels.txt): no such file"),
    ("a missing run", _input_path("/nonexistent/bm25.run", index=1), "run bm25 (/nonexistent/bm25.run): no such file"),
    ("10^9 resamples", _statistics(resamples=10**9), "record.statistics.resamples: 1000000000 is not between 1 and"),
    ("resamples as text", _statistics(resamples="10000"), "record.statistics.resamples: expected an integer, found a "
                                                          "string"),
    ("resamples as true", _statistics(resamples=True), "record.statistics.resamples: expected an integer"),
    ("alpha as text", _statistics(alpha="0.05"), "record.statistics.alpha: expected a number"),
    ("alpha above 1", _statistics(alpha=5), "record.statistics.alpha: 5 is not between 0 and 1"),
    ("interval level 2", _statistics(ci=2.0), "record.statistics.ci: 2.0 is not between 0 and 1"),
    ("negative seed", _statistics(seed=-1), "record.statistics.seed: -1 is not between"),
    ("test as a list", _statistics(test=["t"]), "record.statistics.test: expected a string, found a list"),
    ("unknown statistic", _statistics(bonus=1), "a field verify does not know: record.statistics.bonus"),
    ("measures as text", _record("measures", value="AP"), "record.measures: expected a list"),
    ("no measures", _record("measures", value=[]), "record.measures: 0 measures"),
    ("a measure named by a number", _record("measures", 0, "name", value=5), "record.measures[0].name: expected a "
                                                                             "string"),
    ("an unknown measure", _record("measures", 0, "name", value="bogus@3"), "recomputing it from its record"),
    ("a measure better sideways", _record("measures", 0, "better", value="sideways"),
     "record.measures[0].better: 'sideways' is not one of higher, lower, none"),
    ("a measure better as a list", _record("measures", 0, "better", value=["lower"]),
     "record.measures[0].better: expected a string, found a list"),
    ("inputs as an object", _record("inputs", value={}), "record.inputs: expected a list"),
    ("1001 inputs", _many_inputs, "record.inputs: 1001 inputs"),
    ("the query table as a run", _record("inputs", 4, "role", value="run"), "record.inputs: several runs, one "
                                                                            "without a name"),
    ("two qrels", _record("inputs", 1, "role", value="qrels"), "record.inputs: roles qrels, qrels, run"),
    ("an input without sha256", lambda d: d["record"]["inputs"][0].pop("sha256"), "record.inputs[0].sha256: missing"),
    ("a sha256 that is not one", _record("inputs", 0, "sha256", value="../../etc"), "record.inputs[0].sha256: "),
    ("an unknown role", _record("inputs", 0, "role", value="oracle"), "record.inputs[0].role: 'oracle' is not one of"),
    ("rows as text", _record("inputs", 0, "rows", value="many"), "record.inputs[0].rows: expected an integer"),
    ("an input from a DataFrame", _record("inputs", 1, "kind", value="DataFrame"), "was a DataFrame, not a file"),
    ("an unknown record field", _record("signature", value="trust me"), "a field verify does not know: "
                                                                        "record.signature"),
    ("an unknown convention", _record("conventions", "magic", value=True), "record.conventions.magic"),
    ("depth as text", _record("conventions", "depth", value="10"), "record.conventions.depth: expected an integer"),
    ("columns as a list", _record("columns", value=["a"]), "record.columns: expected an object"),
    ("a missing field", lambda d: d["record"].pop("statistics"), "record.statistics: missing"),
    ("a record that is a list", lambda d: d.update(record=[]), "record: expected an object"),
    ("a title that is a number", lambda d: d.update(title=5), "title: expected a string"),
    ("an unknown table", lambda d: d.update(extra=[]), "a field verify does not know: extra"),
    ("a table that is text", lambda d: d.update(aggregate="0.9"), "aggregate: expected a list"),
    ("a cell that is a list", lambda d: d["aggregate"][0].update(value=[0.9]), "aggregate[0].value: expected a number, "
                                                                              "a string or null, found a list"),
    ("a call too long", _record("call", value="x" * 200_001), "record.call: 200001 characters"),
]


@pytest.mark.parametrize("name, forge, said", CRAFTED, ids=[c[0] for c in CRAFTED])
def test_a_crafted_record_is_refused_in_one_line(name, forge, said, made, tmp_path, capsys):
    document = copy.deepcopy(made)
    forge(document)
    path = _save(document, tmp_path / "crafted.json")
    assert main(["verify", str(path)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and captured.out == "", captured
    assert lines[0].startswith(f"rankkit verify: {path}: cannot be verified: ") and said in lines[0], lines[0]
    with pytest.raises(InputError):
        rankkit.verify(path)


def test_a_fifo_input_or_report_is_refused_without_opening_it_for_good(made, tmp_path, capsys):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    document = copy.deepcopy(made)
    _input_path(str(fifo), index=2)(document)
    assert main(["verify", str(_save(document, tmp_path / "r.json"))]) == 2
    assert f"run dense_v2 ({fifo}): not a regular file" in capsys.readouterr().err
    assert main(["verify", str(fifo)]) == 2  # the report itself: never opened
    assert "not a regular file" in capsys.readouterr().err
    assert main(["verify", str(tmp_path)]) == 2
    assert "not a regular file" in capsys.readouterr().err


@pytest.mark.parametrize("text, said", [("{", "not a rankkit report saved as JSON"),
                                        ('{"rankkit_report": 1, "value": NaN}', "NaN is not a JSON number"),
                                        ("[" * 100_000 + "]" * 100_000, "not a rankkit report saved as JSON"),
                                        ('{"rankkit_report": 2}', "not a rankkit report"),
                                        ("\xff\xfe", "not a rankkit report saved as JSON")])
def test_a_report_that_is_not_one_is_refused(text, said, tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_bytes(text.encode("latin-1"))
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0]


def test_sizes_past_the_limits_are_refused_naming_the_limit(made, tmp_path, monkeypatch, capsys):
    path = _save(made, tmp_path / "r.json")
    monkeypatch.setitem(LIMITS, "report_bytes", 1000)
    assert main(["verify", str(path)]) == 2
    assert "more than a report verify reads (1000 bytes)" in capsys.readouterr().err
    monkeypatch.setitem(LIMITS, "report_bytes", 1 << 30)
    monkeypatch.setitem(LIMITS, "input_bytes", 100)
    assert main(["verify", str(path)]) == 2
    assert "qrels (" in (err := capsys.readouterr().err) and "more than verify reads (100 bytes)" in err


def test_relative_input_paths_are_taken_from_the_reports_folder(made, folder, tmp_path):
    """A report sent with its inputs in one folder: paths relative to the report's folder."""
    document = copy.deepcopy(made)
    for item in document["record"]["inputs"]:
        target = tmp_path / Path(item["path"]).name
        target.write_bytes(Path(item["path"]).read_bytes())
        item["path"] = Path(item["path"]).name
    elsewhere = Path.cwd()
    assert elsewhere != tmp_path
    assert rankkit.verify(_save(document, tmp_path / "r.json")).holds


def test_a_report_with_warnings_made_from_relative_paths_holds_from_elsewhere(folder, tmp_path, monkeypatch, capsys):
    """Warnings name the inputs as given (run.txt), verify reads them at their recorded paths: the
    warnings still agree. A Python call with a list of runs and trec_eval's names holds too."""
    files = write_inputs(tmp_path / "inputs", queries=6)
    run = files["runs"]["bm25"]
    run.write_text(run.read_text() + "q99 Q0 d01 1 5.0 bm25\n")  # a query nobody judged: a warning
    monkeypatch.chdir(tmp_path / "inputs")
    with pytest.warns(rankkit.RankkitWarning, match="have no judgments"):
        made = rankkit.report("qrels.txt", ["bm25.run", "hybrid.run"], ["ndcg_cut_10", "P.5"], baseline="bm25")
    assert "bm25.run" in made.record["warnings"][0] and str(tmp_path) not in made.record["warnings"][0]
    path = made.save(tmp_path / "r.json")
    assert main(["report", "qrels.txt", "bm25.run", "hybrid.run", "-m", "ndcg_cut_10",
                 "-o", str(tmp_path / "c.json")]) == 0
    monkeypatch.chdir(folder)
    for saved in (path, tmp_path / "c.json"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome = rankkit.verify(saved)
        assert outcome.holds, str(outcome)


@pytest.mark.parametrize("forge", [lambda d: d["aggregate"][0].update(value="high"), lambda d: d.update(per_query="x"),
                                   lambda d: d.update(title=None), lambda d: d.update(record=[])])
def test_report_load_refuses_a_file_that_is_not_a_report_in_one_error(forge, made, tmp_path):
    """Report.load renders a file as it is (README), but a crafted one is an InputError, not a traceback."""
    document = copy.deepcopy(made)
    forge(document)
    with pytest.raises(InputError, match="not a rankkit report"):
        rankkit.Report.load(_save(document, tmp_path / "r.json"))


def test_control_characters_from_a_report_reach_no_terminal(made, tmp_path, capsys):
    """What verify quotes from a report (a forged label, an unknown field's name) is printed with its
    control characters escaped."""
    document = copy.deepcopy(made)
    document["record"]["measures"][0]["label"] = "nDCG\x1b]0;owned\x07@10\n  moved: nothing"
    assert main(["verify", str(_save(document, tmp_path / "r.json"))]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\\x1b]0;owned\\x07" in out
    assert "\n  moved: nothing" not in out
    document = copy.deepcopy(made)
    document["record"]["\x1b[2Jwipe"] = 1
    assert main(["verify", str(_save(document, tmp_path / "r.json"))]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "record.\\x1b[2Jwipe" in err
