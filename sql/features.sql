-- The per-query features several measures share, declared once; each measure's file declares its
-- value from these and the features only it uses. rankkit.measures reads the declarations and
-- rankkit.compose writes one statement holding just the features the measures asked for need, each
-- computed once as a column. Nothing here is a macro: this file is comments only.
--
-- In an expression, {name} is a feature or an input and {s.name} a parameter of the prelude (the
-- composer writes the measure's value as a literal); '-- feature: name [param=value] := ...' is the
-- variant used when the parameter (or a convention: ties, queries) has that value, NULL for none.
-- A line of '--' and at least four spaces continues the declaration above it.
--
-- Every feature is one list expression over a query's judged documents in rank order (its ranks and
-- grades) and its qrels grades: a plan of a few operators, whose cost is its rows, where a window per
-- feature cost milliseconds each even on a few thousand rows. What windows did, indexes do: the j-th
-- relevant document has j - 1 relevant ones above it, the t-th judged document t - 1 judged ones.
-- Sums are rankkit.ordered_sum in rank order, running sums rankkit.running_sum, as trec_eval adds
-- them; a sum may add 0.0 for a document it skips (x + 0.0 is x, and an ordered sum never holds -0.0).
-- A macro whose argument is used twice (running_sum) gets a feature, not an expression: DuckDB
-- substitutes a macro's argument at each of its uses.

-- The inputs: per system and query (run), from rankkit.ranks; per query (query), from the qrels.
-- input: ranks        run    the ranks of the query's judged documents retrieved, in rank order
-- input: grades       run    their grades, in the same order
-- input: num_ret      run    the documents the query retrieved (0 for a query the run lacks, queries := 'qrels')
-- input: retrieved    run    whether the run has the query at all
-- input: tie_firsts   run    ties := 'average': the first rank of each judged document's group of equal scores
-- input: tie_sizes    run    ties := 'average': the size of that group
-- input: cum          run    ties := 'average': cum[r], the discounts of ranks 1..r added up
-- input: qrels_grades query  the query's qrels grades, best first

-- What the qrels give, once per query whatever the number of systems: the relevant and the judged
-- non-relevant documents, and the ideal gains (trec_eval's ideal=qrels: every judged document of
-- positive gain, best first).
-- feature: num_rel := len(list_filter({qrels_grades}, lambda g: g >= {s.rel}))
-- feature: num_nonrel := len(list_filter({qrels_grades}, lambda g: g >= 0 AND g < {s.rel}))
-- feature: ideal := list_reverse_sort(list_filter(list_transform(list_filter({qrels_grades}, lambda g: g >= 0),
--     lambda g: rankkit.gain(g, {s.gain}, {s.gains})), lambda x: x > 0))

-- The cutoff: the judged documents within k are a prefix of the lists, n_cut long.
-- feature: n_cut [k=NULL] := len({ranks})
-- feature: n_cut := len(list_filter({ranks}, lambda r: r <= {s.k}))
-- feature: ret_k := least({num_ret}, coalesce({s.k}, {num_ret}))
-- the gain of each judged document
-- feature: gains := list_transform({grades}, lambda g: rankkit.gain(g, {s.gain}, {s.gains}))

-- The ranks of the relevant documents within the cutoff: the j-th has j - 1 relevant above it.
-- feature: rel_ranks := list_filter({ranks}[:{n_cut}], lambda r, t: {grades}[t] >= {s.rel})
-- feature: rel_ret := coalesce(len({rel_ranks}), 0)
-- feature: first_rel := {rel_ranks}[1]
-- the judged non-relevant documents within the cutoff (grade from 0 to below rel)
-- feature: nonrel_ret := len(list_filter({grades}[:{n_cut}], lambda g: g >= 0 AND g < {s.rel}))
-- the judged documents within the cutoff judged >= 0 (pooled)
-- feature: pooled_ret := len(list_filter({grades}[:{n_cut}], lambda g: g >= 0))

-- bpref, infAP: the judged documents that are relevant or judged non-relevant (grade >= 0), and where
-- the relevant ones are among them
-- feature: rated_grades := list_filter({grades}, lambda g: g >= {s.rel} OR g >= 0)
-- feature: rel_rated_at := list_filter(range(1, len({rated_grades}) + 1), lambda u: {rated_grades}[u] >= {s.rel})
-- bpref: each relevant document loses the share of judged non-relevant ones above it
-- feature: bpref_sum := rankkit.ordered_sum(list_transform({rel_rated_at}, lambda u, j:
--     1.0E0 - rankkit.ratio(least(u - j, {num_rel}), least({num_rel}, {num_nonrel}))))

-- AP's sum of the precisions at each relevant document
-- feature: ap_sum := rankkit.ordered_sum(list_transform({rel_ranks}, lambda r, j: j * 1.0E0 / r))

-- Interpolated precision: after the j-th relevant document retrieved, the best precision at or below it.
-- feature: precisions := list_transform({rel_ranks}, lambda r, j: j * 1.0E0 / r)
-- feature: curve := CASE WHEN len({precisions}) > 0 THEN list_transform({precisions}, lambda x, j: list_max({precisions}[j:])) END

-- DCG within the cutoff, and the ideal DCG: of the ideal gains (ideal=qrels), or of the retrieved
-- judged documents by grade, best first (ideal=run).
-- feature: dcg := rankkit.ordered_sum(list_transform({gains}[:{n_cut}], lambda x, t: x / rankkit.discount({ranks}[t])))
-- feature: idcg := rankkit.ordered_sum(list_transform({ideal}[:coalesce({s.k}, len({ideal}))], lambda x, pos: x / rankkit.discount(pos)))
-- feature: idcg [ideal=run] := rankkit.ordered_sum(list_transform(list_reverse_sort({grades})[:coalesce({s.k}, len({grades}))],
--     lambda g, pos: rankkit.gain(g, {s.gain}, {s.gains}) / rankkit.discount(pos)))
-- ties := 'average' (McSherry and Najork, ECIR 2008; scikit-learn's dcg_score): a judged document in a
-- group of equal scores spanning ranks [a, b] is equally likely at each of those ranks, so it gains
-- g * (discounts of ranks a..min(b, k)) / (b - a + 1); the discounts of ranks a..b are cum[b] - cum[a - 1].
-- feature: dcg [ties=average] := rankkit.ordered_sum(list_transform({gains}, lambda x, t:
--     CASE WHEN rankkit.tie_last({tie_firsts}[t], {tie_sizes}[t], {s.k}) >= {tie_firsts}[t]
--          THEN x * ({cum}[rankkit.tie_last({tie_firsts}[t], {tie_sizes}[t], {s.k})] - coalesce({cum}[{tie_firsts}[t] - 1], 0.0E0))
--               / {tie_sizes}[t]
--          ELSE 0.0E0 END))

-- ndcg_rel, G: where the judged documents that gain (or lose) something are, and their gains; the
-- ideal DCG at each rank
-- feature: gain_at := CASE WHEN len({ideal}) > 0 THEN list_filter(range(1, len({gains}) + 1), lambda t: {gains}[t] <> 0) END
-- feature: gain_values := list_transform({gain_at}, lambda t: {gains}[t])
-- feature: idcg_terms := list_transform({ideal}, lambda x, pos: x / rankkit.discount(pos))
-- feature: idcg_so_far := rankkit.running_sum({idcg_terms})
