"""The recommender libraries' measures (issue 35), each asked for by its parameters, against the library
where it is installed and otherwise against its formula restated from its source (the file cited).

One seeded interaction table serves every test: users without relevant items, users with fewer than k
recommendations, and distinct scores (the libraries break ties each its own way: argsort, input order)."""

from __future__ import annotations

import json
import math
import random
import re

import pandas as pd
import pytest

import rankkit

K = 5


def interactions(seed: int = 35):
    """held-out (user, item, rating) and recommended (user, item, score): per user, its items in rank order
    and which of them are relevant, with the number of relevant items it holds out."""
    rng = random.Random(seed)
    held, recommended, users = [], [], {}
    for u in range(40):
        user = f"u{u}"
        items = [f"i{j}" for j in rng.sample(range(60), rng.randint(1, 9))]       # some fewer than K
        relevant = set(rng.sample(range(60), rng.choice([0, 0, 1, 2, 3, 8])))      # some none, some > K
        held += [(user, f"i{j}", 1) for j in relevant]
        scores = rng.sample(range(1, 1000), len(items))                            # distinct, > 0
        ranked = [item for _, item in sorted(zip(scores, items), reverse=True)]
        recommended += [(user, item, float(score)) for score, item in zip(scores, items)]
        users[user] = ([item in {f"i{j}" for j in relevant} for item in ranked], len(relevant))
    qrels = pd.DataFrame(held, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(recommended, columns=["query_id", "doc_id", "score"])
    return qrels, run, users


@pytest.fixture(scope="module")
def table():
    return interactions()


pytestmark = pytest.mark.filterwarnings("ignore:the run DataFrame.*no judgments:UserWarning")


def recbole_map(hits: list[bool], n_rel: int, k: int) -> float:
    """RecBole 1.2's MAP@k (recbole/evaluator/metrics.py, MAP.metric_info): the precisions at the hits
    within k, summed (sum_pre), over min(k, the user's relevant items) (actual_len). Spark MLlib 3.5's
    meanAveragePrecisionAt (mllib/.../evaluation/RankingMetrics.scala: precSum / min(labSet.size, k)) and
    Microsoft Recommenders 1.2's map_at_k (recommenders/evaluation/python_evaluation.py) divide alike."""
    found, total = 0, 0.0
    for rank, hit in enumerate(hits[:k], start=1):
        if hit:
            found += 1
            total += found / rank
    return total / min(k, n_rel) if n_rel else 0.0


def torchmetrics_ap(hits: list[bool], k: int) -> float:
    """torchmetrics 1.x's retrieval_average_precision (src/torchmetrics/functional/retrieval/
    average_precision.py): the top k by score, then the mean over the hits among them of (j / rank),
    0 when none is in the top k: divided by the relevant items retrieved."""
    positions = [rank for rank, hit in enumerate(hits[:k], start=1) if hit]
    return sum(j / rank for j, rank in enumerate(positions, start=1)) / len(positions) if positions else 0.0


def trec_eval_ap(hits: list[bool], n_rel: int, k: int) -> float:
    found, total = 0, 0.0
    for rank, hit in enumerate(hits[:k], start=1):
        if hit:
            found += 1
            total += found / rank
    return total / n_rel if n_rel else 0.0


AP_FORMULAS = {f"AP@{K}": trec_eval_ap, f"AP(denom=min)@{K}": recbole_map,
               f"AP(denom=retrieved)@{K}": lambda hits, n_rel, k: torchmetrics_ap(hits, k)}


def test_ap_denominators_give_each_library_its_number(table):
    """0.1007 (trec_eval), 0.1083 (RecBole, Spark, Microsoft Recommenders) and 0.3965 (torchmetrics) on
    the issue's input: one sum, three denominators, each asked for by AP's denom parameter."""
    qrels, run, users = table
    frame = rankkit.evaluate(qrels, run, list(AP_FORMULAS), per_query=True)
    assert len(frame) == len(AP_FORMULAS) * qrels["query_id"].nunique()
    for measure, user, value in zip(frame["measure"], frame["query_id"], frame["value"]):
        hits, n_rel = users[user]
        assert value == pytest.approx(AP_FORMULAS[measure](hits, n_rel, K), abs=1e-9), (measure, user)


def lenskit_ndcg(hits: list[bool], n_rel: int, k: int) -> float:
    """LensKit 2026's NDCG@k with its defaults (src/lenskit/metrics/ranking/_dcg.py, _binary_dcg and
    fixed_dcg; _weighting.py, LogRankWeight: 1 / log2(max(rank, 2))): each held-out item recommended in
    the top k gains 1, over the same of min(k, held-out items) items."""
    def weight(rank):
        return 1.0 / math.log2(max(rank, 2))
    return sum(weight(rank) for rank, hit in enumerate(hits[:k], start=1) if hit) / sum(map(weight, range(1, min(k, n_rel) + 1)))


def test_the_original_discount_is_lenskits(table):
    """nDCG(discount=original): log2(max(rank, 2)), Järvelin and Kekäläinen's first form and LensKit's."""
    qrels, run, users = table
    frame = rankkit.evaluate(qrels, run, [f"nDCG(discount=original)@{K}"], per_query=True)
    assert len(frame) == qrels["query_id"].nunique()
    for user, value in zip(frame["query_id"], frame["value"]):
        hits, n_rel = users[user]
        assert value == pytest.approx(lenskit_ndcg(hits, n_rel, K), abs=1e-12), user


# LensKit 2026 (src/lenskit/metrics/ranking; it needs Python >= 3.12.5, so no dev extra): its list metrics
# restated, each held-out item relevant. _pr.py: Precision over the items recommended within k, Recall over
# min(k, test items); _map.py: AveragePrecision over min(test items, items recommended within k);
# _recip.py, _hit.py: RecipRank and Hit as rankkit's.
LENSKIT = {
    f"nDCG@{K}": (f"nDCG(discount=original)@{K}", lenskit_ndcg),
    f"P@{K}": (f"P(short=retrieved)@{K}", lambda hits, n_rel, k: sum(hits[:k]) / len(hits[:k])),
    f"R@{K}": (f"R(denom=min)@{K}", lambda hits, n_rel, k: sum(hits[:k]) / min(k, n_rel)),
    f"AP@{K}": (f"AP(denom=listed)@{K}", lambda hits, n_rel, k: recbole_map(hits, n_rel, k) * min(k, n_rel)
                / min(n_rel, len(hits[:k]))),
    f"RR@{K}": (f"RR@{K}", lambda hits, n_rel, k: next((1 / r for r, hit in enumerate(hits[:k], start=1) if hit), 0.0)),
    f"HitRate@{K}": (f"HitRate@{K}", lambda hits, n_rel, k: float(any(hits[:k]))),
}


def test_lenskit_numbers(table):
    """conventions="lenskit": each measure named for the parameters it takes, each user's value LensKit's;
    every recommendation list counts, one without test data scoring 0 (RunAnalysis: bulk.py, list_summary)."""
    qrels, run, users = table
    frame = rankkit.evaluate(qrels, run, list(LENSKIT), per_query=True, conventions="lenskit")
    formulas = dict(LENSKIT.values())
    assert sorted(set(frame["measure"])) == sorted(formulas)
    assert len(frame) == len(LENSKIT) * run["query_id"].nunique() > len(LENSKIT) * qrels["query_id"].nunique()
    for measure, user, value in zip(frame["measure"], frame["query_id"], frame["value"]):
        hits, n_rel = users[user]
        theirs = formulas[measure](hits, n_rel, K) if n_rel else 0.0
        assert value == pytest.approx(theirs, abs=1e-12), (measure, user)


def test_hit_rate_names_the_same_value_as_success(table):
    qrels, run, users = table
    frame = rankkit.evaluate(qrels, run, ["HitRate@5", "HR@5", "Hit@5", "hit_rate@5", "Success@5"], per_query=True)
    values = frame.pivot(index="query_id", columns="measure", values="value")
    assert (values.nunique(axis=1) == 1).all()
    for user, value in values["HitRate@5"].items():
        assert value == float(any(users[user][0][:5]))


# torchmetrics' functional retrieval measures see one user's recommended items and their targets, nothing
# else: the qrels are the judgments of the items recommended (relevant ones held out but not recommended
# are unknown to it), and a user with no relevant item among them scores 0 (its classes' default
# empty_target_action="neg"). Its ideal DCG is over the items given (ideal=run), its AP divided by the
# relevant items in the top k (denom=retrieved), its precision by k even when fewer were recommended, and
# its precision, recall, AP and reciprocal rank count no item scored 0 or below (scored=positive).
# conventions="torchmetrics" asks for all of them by the plain names.
TORCHMETRICS = {f"nDCG@{K}": "retrieval_normalized_dcg", f"AP@{K}": "retrieval_average_precision",
                f"P@{K}": "retrieval_precision", f"R@{K}": "retrieval_recall", f"RR@{K}": "retrieval_reciprocal_rank",
                f"HitRate@{K}": "retrieval_hit_rate"}
PACKED = {f"nDCG(ideal=run)@{K}", f"AP(denom=retrieved, scored=positive)@{K}", f"P(scored=positive)@{K}",
          f"R(scored=positive)@{K}", f"RR(scored=positive)@{K}", f"HitRate@{K}"}


def scored_table(seed: int = 35):
    """Recommended items with their judgments, as torchmetrics sees them: scores below 0 and exactly 0,
    relevant items among them, users without a relevant item. Ties only among items not relevant (their
    order changes no value, where torchmetrics' topk and argsort order ties each its own way): a relevant
    item's score is a half, distinct within its user, a non-relevant one's an integer."""
    rng = random.Random(seed)
    rows = []
    for u in range(30):
        zero_relevant = rng.random() < 0.3  # 0.0 is then a relevant item's score, no other item's
        halves = [x + 0.5 for x in range(-4, 6)] + [0.0] * zero_relevant
        integers = [-3.0, -1.0, 1.0, 2.0, 4.0] + [0.0] * (not zero_relevant)
        n_rel = rng.choice([0, 1, 2, 3])
        scores = rng.sample(halves, n_rel) + [rng.choice(integers) for _ in range(rng.randint(1, 7))]
        rows += [(f"u{u}", f"i{j}", score, int(j < n_rel)) for j, score in enumerate(scores)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score", "relevance"])


@pytest.mark.parametrize("scores", ["above 0, distinct", "0 and below, tied"])
def test_torchmetrics_numbers(table, scores):
    torch = pytest.importorskip("torch")
    functional = pytest.importorskip("torchmetrics.functional.retrieval")
    qrels = judged_recommendations(table[1], table[2]) if scores == "above 0, distinct" else scored_table()
    run = qrels[["query_id", "doc_id", "score"]]
    frame = rankkit.evaluate(qrels[["query_id", "doc_id", "relevance"]], run, list(TORCHMETRICS), per_query=True,
                             conventions="torchmetrics")
    assert set(frame["measure"]) == PACKED
    assert len(frame) == len(TORCHMETRICS) * qrels["query_id"].nunique()
    for measure, user, value in zip(frame["measure"], frame["query_id"], frame["value"]):
        mine = qrels[qrels["query_id"] == user]
        preds = torch.tensor(mine["score"].tolist(), dtype=torch.float64)
        target = torch.tensor(mine["relevance"].tolist())
        function = TORCHMETRICS[re.sub(r"\(.*\)", "", measure)]
        theirs = getattr(functional, function)(preds, target, top_k=K).item()
        # torchmetrics computes in float32 (utilities/checks.py, _check_retrieval_functional_inputs casts
        # scores and graded targets to it): it agrees to float32's resolution, and the formulas restated
        # in float64 above (AP's denominators) to 1e-9
        assert value == pytest.approx(theirs, abs=1e-6), (measure, user)


def test_scored_positive_is_torchmetrics_rule_alone():
    """scored=positive asked for alone, without the pack: an item scored 0 or below is not relevant but keeps
    its rank, for precision, recall, AP and reciprocal rank; the seeded users it decides differ from trec_eval's."""
    qrels = scored_table()
    run = qrels[["query_id", "doc_id", "score"]]
    names = [f"P@{K}", f"R@{K}", f"AP@{K}", f"RR@{K}"]
    plain = rankkit.evaluate(qrels, run, names, per_query=True)
    alone = rankkit.evaluate(qrels, run, [re.sub("@", "(scored=positive)@", name) for name in names], per_query=True)
    found = qrels[qrels["score"] > 0]  # relevant only if scored above 0, each at its rank among all the items
    ranked = qrels.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    ranked = ranked.assign(rank=ranked.groupby("query_id").cumcount() + 1, hit=ranked.index.isin(found.index)
                           & (ranked["relevance"] > 0))
    for user, rows in ranked.groupby("query_id"):
        hits, n_rel = rows["hit"].tolist()[:K], rows["relevance"].sum()
        expected = [sum(hits) / K, sum(hits) / n_rel if n_rel else 0.0, trec_eval_ap(hits, n_rel, K),
                    next((1 / r for r, hit in enumerate(hits, 1) if hit), 0.0)]
        got = alone[alone["query_id"] == user]["value"].tolist()
        assert got == pytest.approx(expected, abs=1e-12), user
    assert (plain["value"].to_numpy() != alone["value"].to_numpy()).sum() >= 10
    # the trace says it rank by rank: such an item is not relevant there, and adds nothing to precision
    trace = rankkit.trace(qrels, run, sorted(set(qrels["query_id"])), K, scored="positive")
    ranked = trace[trace["rank"].notna()]
    assert (ranked["relevant"] == ((ranked["grade"] > 0) & (ranked["score"] > 0))).all()
    assert ((ranked["grade"] > 0) & (ranked["score"] <= 0)).sum() >= 3
    # on Spark: tests/test_spark_differential.py (the torchmetrics pack, scores at and below 0)


def test_the_torchmetrics_pack_reads_scores_in_float32_as_torchmetrics_does():
    """torchmetrics casts scores to float32 before it asks whether they are above 0 (utilities/checks.py): a
    score of 1e-46 is 0 there, so the relevant item it ranks first is not counted; so under the pack."""
    torch = pytest.importorskip("torch")
    functional = pytest.importorskip("torchmetrics.functional.retrieval")
    qrels = pd.DataFrame({"query_id": ["u"] * 2, "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = qrels[["query_id", "doc_id"]].assign(score=[1e-46, -1.0])
    theirs = functional.retrieval_precision(torch.tensor([1e-46, -1.0], dtype=torch.float64), torch.tensor([1, 0]),
                                            top_k=1).item()
    mine = rankkit.evaluate(qrels, run, "P@1", conventions="torchmetrics")["value"].item()
    assert mine == theirs == 0.0
    assert rankkit.evaluate(qrels, run, "P(scored=positive)@1")["value"].item() == 1.0  # double: above 0


TORCHMETRICS_CLASSES = {"HitRate": "RetrievalHitRate", "AP": "RetrievalMAP", "P": "RetrievalPrecision",
                        "R": "RetrievalRecall", "RR": "RetrievalMRR", "nDCG": "RetrievalNormalizedDCG"}


@pytest.mark.parametrize("action, empty", [("neg", "zero"), ("skip", "skip"), ("pos", "one")])
def test_torchmetrics_empty_target_action_is_the_empty_rule(table, action, empty):
    """torchmetrics' retrieval classes score a user with no positive target by empty_target_action (default
    'neg': src/torchmetrics/retrieval/base.py, RetrievalMetric.compute): rankkit's measure parameter empty,
    on the users of the seeded table whose recommended items hold no relevant one (judged, all 0)."""
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    _, run, users = table
    qrels = judged_recommendations(run, users)
    assert (qrels.groupby("query_id")["relevance"].sum() == 0).sum() >= 5  # users the rule decides
    names = [f"{name}(empty={empty})@{K}" for name in TORCHMETRICS_CLASSES]
    frame = rankkit.evaluate(qrels[["query_id", "doc_id", "relevance"]], run, names, conventions="torchmetrics")
    indexes = torch.tensor(qrels["query_id"].str[1:].astype(int).tolist())
    preds, target = torch.tensor(qrels["score"].tolist()), torch.tensor(qrels["relevance"].tolist())
    for name, value in zip(TORCHMETRICS_CLASSES, frame["value"]):
        metric = getattr(retrieval, TORCHMETRICS_CLASSES[name])(top_k=K, empty_target_action=action)
        assert value == pytest.approx(metric(preds, target, indexes=indexes).item(), abs=1e-6), name
    with pytest.raises(rankkit.RankkitError, match="the user \\(query\\) 'u[0-9]+' has no relevant item in the qrels"):
        rankkit.evaluate(qrels[["query_id", "doc_id", "relevance"]], run, [f"HitRate(empty=error)@{K}"])


def judged_recommendations(run, users):
    """The run with each recommended item's judgment (1: held out for the user), as torchmetrics sees them."""
    relevant = {(user, item) for user, (hits, _) in users.items()
                for item, hit in zip(ranked_items(run, user), hits) if hit}
    return run.assign(relevance=[int((u, i) in relevant) for u, i in zip(run["query_id"], run["doc_id"])])


def ranked_items(run, user):
    mine = run[run["query_id"] == user].sort_values("score", ascending=False)
    return mine["doc_id"].tolist()


# Microsoft Recommenders' python_evaluation (1.2.1): every held-out row is a relevant item, the mean is over
# the users in both tables (rankkit's queries="both"), the top k by prediction; nDCG binary (its natural-log
# discount gives the same ratio as log2), MAP@k divided by min(k, relevant items). It installs only without
# its dependencies (pip install --no-deps recommenders: cornac, lightgbm, scikit-surprise ... otherwise), so
# it is no dev extra: its MAP@k is recbole_map above.
RECOMMENDERS = {f"P@{K}": "precision_at_k", f"R@{K}": "recall_at_k", f"nDCG@{K}": "ndcg_at_k", f"AP@{K}": "map_at_k"}


def test_microsoft_recommenders_numbers(table):
    python_evaluation = pytest.importorskip("recommenders.evaluation.python_evaluation")
    qrels, run, _ = table
    frame = rankkit.evaluate(qrels, run, list(RECOMMENDERS), conventions="recommenders")
    assert frame["measure"].tolist() == [f"P@{K}", f"R@{K}", f"nDCG@{K}", f"AP(denom=min)@{K}"]
    truth = qrels.rename(columns={"query_id": "userID", "doc_id": "itemID", "relevance": "rating"})
    predicted = run.rename(columns={"query_id": "userID", "doc_id": "itemID", "score": "prediction"})
    for measure, value in zip(frame["measure"], frame["value"]):
        theirs = getattr(python_evaluation, RECOMMENDERS[re.sub(r"\(.*\)", "", measure)])(truth, predicted, k=K)
        assert value == pytest.approx(theirs, abs=1e-9), measure


def test_a_pack_by_name_on_the_command_line_is_recorded_and_verified(table, tmp_path, capsys):
    """--conventions recbole: AP@5 is computed and named AP(denom=min)@5, the report records the pack,
    and verify recomputes the same numbers from the record."""
    from rankkit.cli import main

    qrels, run, _ = table
    qrels.assign(iteration="0")[["query_id", "iteration", "doc_id", "relevance"]].to_csv(
        tmp_path / "held.qrels", sep=" ", header=False, index=False)
    for name, scores in (("a", run["score"]), ("b", -run["score"])):
        run.assign(q0="Q0", rank=1, score=scores, tag=name)[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
            tmp_path / f"{name}.run", sep=" ", header=False, index=False)
    files = [str(tmp_path / "held.qrels"), str(tmp_path / "a.run"), str(tmp_path / "b.run")]
    assert main(["report", "--conventions", "recbole", *files, "-m", "AP@5", "-m", "HR@5", "-o", str(tmp_path / "r.json")]) == 0
    record = json.loads((tmp_path / "r.json").read_text())["record"]
    assert record["conventions"]["pack"] == "recbole"
    assert [m["name"] for m in record["measures"]][:2] == ["AP(denom=min)@5", "HR@5"]
    assert main(["verify", str(tmp_path / "r.json")]) == 0
    assert "holds" in capsys.readouterr().out
    with pytest.raises(rankkit.RankkitError, match="unknown conventions 'elliot': known libraries recbole"):
        rankkit.evaluate(qrels, run, ["AP@5"], conventions="elliot")


def test_queries_run_counts_the_users_without_test_items_as_torchmetrics_and_lenskit_do(table, tmp_path, capsys):
    """torchmetrics and LensKit score every user they are given: the users of the seeded run with no held-out
    item count 0 under their packs (queries='run'), and on the command line (--query-set run)."""
    from rankkit.cli import main

    qrels, run, users = table
    empty = [user for user, (_, n_rel) in users.items() if n_rel == 0]
    assert empty and not set(empty) & set(qrels["query_id"])
    mean = rankkit.evaluate(qrels, run, [f"HitRate@{K}"], conventions="torchmetrics")["value"].item()
    assert mean == pytest.approx(sum(any(hits[:K]) for hits, _ in users.values()) / len(users))
    assert rankkit.evaluate(qrels, run, [f"HitRate@{K}"], queries="run")["value"].item() == mean
    qrels.to_csv(tmp_path / "q.csv", index=False)
    run.to_csv(tmp_path / "r.csv", index=False)
    assert main(["eval", str(tmp_path / "q.csv"), str(tmp_path / "r.csv"), "-m", f"HitRate@{K}", "--query-set", "run"]) == 0
    assert capsys.readouterr().out.split() == ["num_q", "all", str(len(users)), f"HitRate@{K}", "all", f"{mean:.4f}"]


def test_rankkit_measures_says_what_each_pack_changes(capsys):
    from rankkit.cli import main

    assert main(["measures", "HitRate"]) == 0
    said = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("--conventions")]
    assert said == ["--conventions spark: empty=zero (Spark MLlib 3.5 RankingMetrics)",
                    "--conventions torchmetrics: empty=zero, queries=run, scores=float32 (torchmetrics 1.9)",
                    "--conventions lenskit: empty=zero, queries=run (LensKit 2026.4)"]
    assert main(["measures", "RR"]) == 0
    assert "--conventions torchmetrics: empty=zero, scored=positive, queries=run, scores=float32 (torchmetrics 1.9)" in capsys.readouterr().out
    # the beyond-accuracy measures' too
    assert main(["measures", "diversity"]) == 0
    assert "--conventions recommenders: similarity=cooccurrence (Microsoft Recommenders 1.2.1)" in capsys.readouterr().out


def test_a_score_beyond_float32s_range_is_infinite_at_float32_precision():
    """A score beyond float32's largest (1e39, 3.5e38) is +-inf once cast, in torchmetrics (torch's float())
    and trec_eval 9 alike: so at scores='float32' (the torchmetrics pack's), not a cast error. The two
    largest tie at inf, so doc_id breaks the tie (trec): b before a; at double precision a leads."""
    qrels = pd.DataFrame({"query_id": ["u", "u"], "doc_id": ["a", "c"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["u"] * 3, "doc_id": ["a", "b", "c"], "score": [1e39, 3.5e38, -1e39]})
    assert rankkit.evaluate(qrels, run, "P@1")["value"].item() == 1.0
    assert rankkit.evaluate(qrels, run, "P@1", scores="float32")["value"].item() == 0.0
    frame = rankkit.evaluate(qrels, run, ["P@1", "RR"], conventions="torchmetrics")  # -inf: not above 0
    assert frame["value"].tolist() == [0.0, 0.5]
