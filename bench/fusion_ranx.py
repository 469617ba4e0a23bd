"""ranx's fuse on seeded runs, written to tests/golden/fusion_ranx.json for tests/test_fusion.py.

    python bench/fusion_ranx.py

ranx (numba) takes tens of seconds to import and compile on a busy machine, more than the test suite can
spend: its answers are recorded here, with the runs they answer, and the test compares rankkit's fusion
with them. Run again after changing the runs or upgrading ranx.

The runs: three systems, four queries, each system ranking its own subset of twelve documents (so
documents are absent from some systems, and the systems have different depths), with distinct scores
(no ties: ranx orders ties by its sort, rankkit by trec_eval's rule). For condorcet, separate runs in
which every system ranks the same documents, near one base order: ranx sorts with the pairwise
majority as comparator, which is an order only when the majority has no cycle (the test checks it
has none), and counts a system that ranks neither document of a pair for the second one.

And ranx's optimize_fusion (wsum over min-max scores, weights on the simplex in steps of 0.1, nDCG@5)
on the first runs with seeded graded qrels: its best weights, and each point's nDCG@5 as ranx's fuse and
evaluate give it (its optimization report prints three decimals).
"""

import importlib.metadata
import json
from pathlib import Path

import numpy as np
import ranx
from ranx import Qrels, Run

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "fusion_ranx.json"
SYSTEMS = ["bm25", "dense", "splade"]
WEIGHTS = [0.2, 0.5, 0.3]
SCORE_METHODS = ["sum", "mnz", "max", "min", "med", "anz", "wsum", "wmnz"]
NORMS = ["min-max", "max", "sum", "zmuv", "rank", "borda"]


def seeded_runs(seed: int, overlap: bool) -> dict:
    rng = np.random.default_rng(seed)
    runs = {}
    for s, system in enumerate(SYSTEMS):
        run = {}
        for q in range(4):
            docs = [f"d{i:02d}" for i in range(12)] if not overlap else [f"d{i:02d}" for i in range(6)]
            if not overlap:
                docs = list(rng.choice(docs, size=4 + 2 * s + q % 2, replace=False))
                scores = rng.normal(10 * (s + 1), 3 * (s + 1), size=len(docs))
            else:  # a base order (d00 best), each system's scores near it
                scores = -np.arange(len(docs)) + rng.normal(0, 0.8, size=len(docs))
            run[f"q{q}"] = {doc: float(score) for doc, score in zip(docs, scores)}
        runs[system] = run
    return runs


def fused(runs: dict, method: str, norm: str | None) -> dict:
    params = {"weights": WEIGHTS} if method in ("wsum", "wmnz") else {}
    result = ranx.fuse([Run(runs[system], name=system) for system in SYSTEMS], norm=norm, method=method, params=params)
    # each query's documents in ranx's order, with their scores
    return {q: [[doc, score] for doc, score in docs.items()] for q, docs in result.to_dict().items()}


def optimized(runs: dict) -> dict:
    rng = np.random.default_rng(38)
    qrels = {f"q{q}": {f"d{i:02d}": int(grade) for i, grade in enumerate(rng.integers(0, 3, size=12)) if grade > 0}
             for q in range(4)}
    listed = [Run(runs[system], name=system) for system in SYSTEMS]
    best = ranx.optimize_fusion(Qrels(qrels), listed, norm="min-max", method="wsum", metric="ndcg@5", step=0.1,
                                show_progress=False)
    points = {}
    for a in range(11):
        for b in range(11 - a):
            weights = [a / 10, b / 10, (10 - a - b) / 10]
            fused_run = ranx.fuse(listed, norm="min-max", method="wsum", params={"weights": weights})
            points["/".join(f"{w:.1f}" for w in weights)] = float(ranx.evaluate(Qrels(qrels), fused_run, "ndcg@5"))
    return {"qrels": qrels, "best": [float(w) for w in best["weights"]], "points": points}


def main() -> None:
    runs = seeded_runs(36, overlap=False)
    cases = [{"method": method, "norm": "min-max", "fused": fused(runs, method, "min-max")}
             for method in [*SCORE_METHODS, "rrf", "isr", "bordafuse"]]
    cases += [{"method": method, "norm": norm, "fused": fused(runs, method, norm)}
              for norm in [None, *NORMS] for method in ("sum", "mnz", "med") if norm != "min-max"]
    voting = seeded_runs(37, overlap=True)
    data = {"ranx": importlib.metadata.version("ranx"), "systems": SYSTEMS,
            "weights": WEIGHTS, "runs": runs, "cases": cases, "condorcet_runs": voting,
            "condorcet": fused(voting, "condorcet", "min-max"), "optimize": optimized(runs)}
    OUT.write_text(json.dumps(data, indent=0) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
