"""A report's call read back: the command line (``rankkit report ...``) or the Python call
(``rankkit.report(...)``) its record shows, parsed without running anything, so that verify can say
whether it asks for what the record holds. verify recomputes from the record; the call is shown
beside it, and a call that says ``--alpha 0.05`` over a record of 0.5 would mislead."""

from __future__ import annotations

import ast
import contextlib
import io
import shlex

from rankkit.errors import RankkitError

__all__ = ["call_disagreements"]


def call_disagreements(record: dict, title: str, con) -> list[tuple[str, object, object]]:
    """Each option the call and the record disagree on: ``(option, what the call says, what the record
    says)``; a call that is not a report's call at all is one disagreement, ``("call", ...)``."""
    from rankkit.arguments import UsageError
    from rankkit.report.sweep import sweep_options
    from rankkit.report.beyond import named
    from rankkit.specs import measure_specs, packed

    call = record["call"]
    try:
        said = _command(call) if call.startswith("rankkit report ") else _python(call)
    except (ValueError, SyntaxError, TypeError, RecursionError, UsageError) as error:  # RankkitError too
        return [("call", str(error), "a rankkit report command line or a rankkit.report(...) call")]
    try:
        said["sweep"] = sweep_options(said["sweep"], said["measures"])
        # the call's measures under the names evaluate gives them (ndcg_cut_10 is nDCG@10), the
        # beyond-accuracy ones under the report's (novelty@10 is Novelty@10)
        others, beyond = named(said["measures"], record["conventions"].get("pack"))
        said["measures"] = ([spec["measure"] for spec in packed(measure_specs(con, others,
                                                                                 rel=record["conventions"]["rel"]),
                                                                    record["conventions"].get("pack"))]
                            if others else []) + beyond
    except (RankkitError, TypeError) as error:
        return [("measures", str(error), [m["name"] for m in record["measures"]])]
    held = _recorded(record, title, said)
    return [(name, said[name], held[name]) for name in said if said[name] != held[name]]


# ---- the command line ----------------------------------------------------------------------------

def _command(call: str) -> dict:
    from rankkit.arguments import baseline_name, column_mapping, command_parser, conventions_of, run_arguments, sweep_of
    from rankkit.report.beyond import asked

    words = shlex.split(call)
    if words[:2] != ["rankkit", "report"]:
        raise ValueError("not a rankkit report command line")
    quiet = io.StringIO()
    try:
        with contextlib.redirect_stderr(quiet), contextlib.redirect_stdout(quiet):
            args = command_parser().parse_args(words[1:])
    except SystemExit:
        said = quiet.getvalue().strip().splitlines()
        raise ValueError(f"not a command line rankkit reads{f' ({said[-1]})' if said else ''}") from None
    runs = run_arguments(args.runs)
    return {"qrels": args.qrels, "second_qrels": args.second_qrels, "queries": args.queries,
            "runs": _runs(runs), "measures": asked(args.measures),
            "baseline": baseline_name(runs, args.baseline), "test": args.test, "correction": args.correction,
            "alpha": args.alpha, "ci": args.ci or None, "seed": args.seed, "resamples": 10000, "by": args.by,
            "title": args.title, "columns": column_mapping(args), "conventions": conventions_of(args).as_dict(),
            "engine": args.engine == "spark", "sweep": sweep_of(args), "items": args.items,
            "interactions": args.interactions}


# ---- the Python call -----------------------------------------------------------------------------

OPTIONS = ("baseline", "test", "correction", "alpha", "ci", "seed", "resamples", "by", "second_qrels", "values",
           "queries", "title", "conventions", "sweep", "items", "interactions")
DEFAULTS = {"baseline": None, "test": "t", "correction": "holm", "alpha": 0.05, "ci": 0.95, "seed": 0,
            "resamples": 10000, "by": None, "second_qrels": None, "queries": None, "title": None, "sweep": None,
            "items": None, "interactions": None}


def _python(call: str) -> dict:
    """``rankkit.report(qrels, runs, measures, option=value ..., conventions=Conventions(...))`` as
    report() writes it: literals only (a DataFrame is shown as ``<DataFrame n rows>``, not a literal)."""
    from rankkit.conventions import Conventions

    tree = ast.parse(call, mode="eval").body
    if not (isinstance(tree, ast.Call) and ast.unparse(tree.func) == "rankkit.report" and len(tree.args) == 3):
        raise ValueError("not a rankkit.report(qrels, runs, measures, ...) call")
    qrels, runs, measures = (ast.literal_eval(arg) for arg in tree.args)
    options = dict(DEFAULTS)
    for keyword in tree.keywords:
        if keyword.arg not in OPTIONS:
            raise ValueError(f"rankkit.report has no option {keyword.arg!r}")
        if keyword.arg == "conventions":
            value = keyword.value
            if not (isinstance(value, ast.Call) and ast.unparse(value.func) == "Conventions" and not value.args):
                raise ValueError("conventions= is not Conventions(...)")
            options["conventions"] = Conventions(**{k.arg: ast.literal_eval(k.value) for k in value.keywords}).as_dict()
        else:
            options[keyword.arg] = ast.literal_eval(keyword.value)
    if "conventions" not in options:
        raise ValueError("the call does not say its conventions")
    if not isinstance(qrels, str):
        raise ValueError("qrels is not a path")
    engine = options.pop("values", None) is not None
    return {"qrels": qrels, "runs": _runs(runs), "measures": [measures] if isinstance(measures, str) else measures,
            **options, "engine": engine}


def _runs(runs) -> list:
    """``[(name, path as given)]``: names from a dict or NAME=PATH; for a list, the names report()
    gives (file stems, made unique); one path alone, None (its stem, or a table's own systems)."""
    from rankkit.report.build import run_names

    if isinstance(runs, dict):
        return [(str(name), path) for name, path in runs.items()]
    if isinstance(runs, (list, tuple)):
        return list(zip(run_names(list(runs)), runs))
    if isinstance(runs, str):
        return [(None, runs)]
    raise ValueError("runs are not paths")


# ---- the record, said the same way ---------------------------------------------------------------

def _recorded(record: dict, title: str, said: dict) -> dict:
    from rankkit.report.build import _title
    from rankkit.report.sweep import DEFAULTS as DEFAULTS_OF_SWEEP

    inputs, stats = record["inputs"], record["statistics"]
    given = {item["role"]: item["given"] for item in inputs}
    runs = [(item["name"], item["given"]) for item in inputs if item["role"] == "run"]
    if said["runs"] and said["runs"][0][0] is None and len(runs) == 1:
        runs = [(None, runs[0][1])]  # one path alone: named by the file, as report() names it
    names = [m["name"] for m in record["measures"]]
    if said["title"] is None:  # no title asked: report() made one of the measures and systems
        said["title"] = _title(names, record["systems"])
    return {"qrels": given.get("qrels"), "second_qrels": given.get("second_qrels"), "queries": given.get("queries"),
            "runs": runs, "measures": names, "baseline": stats["baseline"], "test": stats["test"],
            "correction": stats["correction"], "alpha": stats["alpha"], "ci": stats["ci"], "seed": stats["seed"],
            "resamples": stats["resamples"], "by": record["by"], "title": title, "columns": record["columns"],
            "conventions": record["conventions"], "engine": "engine" in record,
            "sweep": {name: record["sweep"][name] for name in DEFAULTS_OF_SWEEP} if "sweep" in record else None,
            "items": given.get("items"), "interactions": given.get("interactions")}
