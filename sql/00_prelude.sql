-- rankkit prelude: the catalog, the shared parameters and the helpers every measure uses.
--
-- Macros live in an attached in-memory catalog so they never collide with DuckDB built-ins and
-- nothing is written into a user's database file.
--
-- The parameters several measures take; a parameter one measure alone takes is declared in its file
-- (sql/metrics/NAME.sql), the same way, and each measure's header says which parameters it takes. A
-- declaration is a parameter's every fact: its name, type, default and description, and on the lines
-- below it either the words it takes (values:), or a condition its value must meet and what it must be
-- (check: condition ; words), or the spec's value made of it (made: type := expression), or the
-- parameter whose spec field holds it (held:); and, where it is not a number or a list of numbers, the
-- text a trec_eval-style name carries as its value (text: a regular expression). rankkit.measures reads
-- these; rankkit.macros writes from them rankkit.spec, the rankkit.checked_<name> macros, the name
-- parser's patterns and arguments, and the table and list macros' signatures.
-- param: k      BIGINT  := NULL      cutoff: only the top k ranks count (no cutoff: the whole ranked list)
--     check: k >= 1 AND k = floor(k) AND k < 9223372036854775807  ; the cutoff must be a positive integer below 2^63 - 1
--     text: [0-9]+(?:\.[0-9]*)?
-- param: rel    DOUBLE  := 1         relevance level: a document is relevant when its grade >= rel
--     check: isfinite(rel::DOUBLE)  ; rel must be a number
-- param: gain   VARCHAR := 'linear'  gain of a grade: linear (rel, trec_eval's) or exp (2^rel - 1, gdeval's)
--     values: linear, exp
-- param: discount VARCHAR := 'log2' DCG's discount of rank r: log2 (log2(r + 1), trec_eval's) or original (log2(max(r, 2)): Järvelin and Kekäläinen's first form, LensKit's)
--     values: log2, original
-- param: denom  VARCHAR := 'all'     what AP and R divide by, where the libraries part: all (every relevant document in the qrels, trec_eval's), min (min(k, relevant documents): AP of RecBole, Spark MLlib, Microsoft Recommenders; R of LensKit), retrieved (the relevant documents retrieved within k: torchmetrics' AP; R is then 1 when one is retrieved) or listed (min(relevant documents, documents retrieved within k): LensKit's AP)
--     values: all, min, retrieved, listed
-- param: empty  VARCHAR := 'zero'    a user (query) with no relevant item in the qrels, for the measures of relevant items found: zero (scores 0: trec_eval's, torchmetrics' empty_target_action='neg'), skip (left out of the mean), one (scores 1: 'pos') or error (refused, naming the user: 'error'); nDCG's: its ideal DCG is 0
--     values: zero, skip, one, error
-- param: scored VARCHAR := 'any'     which ranked items may count as relevant: any (trec_eval's) or positive (only those scored above 0, at the score precision, each keeping its rank: torchmetrics' precision, recall, AP and reciprocal rank, whose torch.where(preds > 0, target, 0) zeroes the others' targets)
--     values: any, positive
-- param: ideal  VARCHAR := 'qrels'   ideal ordering: qrels (every judged document, trec_eval's) or run (retrieved documents only, scikit-learn's)
--     values: qrels, run
-- param: max    DOUBLE  := 4         top of the grading scale for ERR's stopping probability (gdeval's 4)
--     check: max::DOUBLE > 0 AND max::DOUBLE <= 1000  ; max must be a positive number up to 1000 (2^max stays finite)
-- param: levels DOUBLE[] := [0,.1,.2,.3,.4,.5,.6,.7,.8,.9,1] recall levels averaged by 11pt_avg (trec_eval's 11 points)
--     check: len(levels) > 0 AND len([x FOR x IN levels IF x IS NULL OR NOT isfinite(x::DOUBLE) OR x < 0 OR x > 1]) = 0  ; recall levels must be numbers from 0 to 1
-- param: p      DOUBLE  := 0.9       persistence of rank-biased precision: the chance of reading on (trec_eval's 0.9)
--     check: isfinite(p::DOUBLE) AND p::DOUBLE >= 0 AND p::DOUBLE <= 1  ; p must be a number from 0 to 1
-- param: gains  VARCHAR := NULL      gain per relevance level as trec_eval writes it ('1=3,2=9,4=4.5'); other levels gain their grade
--     made: STRUCT(level DOUBLE, gain DOUBLE)[] := rankkit.gain_map(trim(gains::VARCHAR, '[] '), measure)
--     text: -?[0-9]+=[-+]?[0-9]*\.?[0-9]+(?:,-?[0-9]+=[-+]?[0-9]*\.?[0-9]+)*
-- param: docs   BIGINT  := 0         documents in the collection (trec_eval -N): the non-relevant missed documents of utility
--     check: docs >= 0 AND docs = floor(docs)  ; the number of documents must be an integer >= 0
-- param: alpha  DOUBLE  := 0.5       redundancy intolerance of the diversity measures (ndeval's -alpha): a subtopic met again gains (1 - alpha) times what it gained before
--     check: isfinite(alpha::DOUBLE) AND alpha::DOUBLE >= 0 AND alpha::DOUBLE <= 1  ; alpha must be a number from 0 to 1
-- param: patience DOUBLE  := 0.5       patience of NRBP (ndeval's -beta, ir_measures' beta): the chance of reading on to the next rank
--     check: isfinite(patience::DOUBLE) AND patience::DOUBLE >= 0 AND patience::DOUBLE <= 1  ; patience must be a number from 0 to 1
-- param: T      DOUBLE  := 1         the gain a C/W/L user wants (INSQ, INST; cwl_eval's T, ir_measures' default 1): a user wanting more reads deeper
--     check: isfinite(T::DOUBLE) AND T::DOUBLE > 0  ; T must be a positive number
-- param: bottom DOUBLE  := 0         bottom of the grading scale of the C/W/L measures (SDCG, INSQ, INST; ir_measures' min_rel): a grade gains (grade - bottom) / (max - bottom), clipped to [0, 1]
--     check: isfinite(bottom::DOUBLE)  ; bottom must be a number, the bottom of the grading scale

ATTACH IF NOT EXISTS ':memory:' AS rankkit;

-- Negative grades mean judged-but-unusable: they never gain. gains, trec_eval's gain per relevance
-- level (a list of {level, gain}, see rankkit.gain_map), overrides the gain of the levels it names.
CREATE OR REPLACE MACRO rankkit.gain(grade, gain := 'linear', gains := NULL) AS
    CASE
        WHEN gains IS NOT NULL AND grade >= 0 THEN coalesce([x.gain FOR x IN gains IF x.level = grade][1], grade * 1.0E0)
        ELSE rankkit.graded_gain(grade, gain)
    END;

-- The gain without gains: what a definition without them calls (features.sql's [gains=NULL] variants),
-- as binding the lookup in a lambda was a cost of every small evaluation's planning.
-- Exponential gain refuses a grade above rankkit.top_exp_grade(): 2^1024 is no double (inf), and a sum
-- of gains of 2^1001 and more can overflow, either making the mean NaN (inf / inf) without a word.
CREATE OR REPLACE MACRO rankkit.graded_gain(grade, gain := 'linear') AS
    CASE
        WHEN grade IS NULL OR grade <= 0 THEN 0.0E0
        WHEN gain = 'exp' THEN CASE WHEN grade <= rankkit.top_exp_grade() THEN pow(2.0E0, grade) - 1.0E0
            ELSE error('rankkit: grade ' || grade || ' is too large for exponential gain (2^grade - 1): up to '
                       || rankkit.top_exp_grade() || ', the gains and their sums stay finite numbers; '
                       || 'gain=linear, or gains=level=gain, take larger grades') END
        ELSE grade * 1.0E0
    END;

-- The largest grade exponential gain takes: 2^1000 x 2^23 judged documents of a query is still below
-- the largest double (about 2^1024), so no query's DCG or IDCG becomes inf.
CREATE OR REPLACE MACRO rankkit.top_exp_grade() AS 1000;

-- Interpolated precision at a recall level (trec_eval's iprec_at_recall): curve[j] is the best
-- precision at or after the j-th relevant document retrieved; the level stands for
-- round(level x num_rel) relevant documents (trec_eval 10's lround; 9 added 0.9 and truncated), and
-- a level beyond the relevant documents retrieved reads 0.
CREATE OR REPLACE MACRO rankkit.interpolated_precision(curve, level, num_rel) AS
    CASE WHEN curve IS NULL OR round(level * num_rel) > len(curve) THEN 0.0E0
         ELSE curve[greatest(round(level * num_rel), 1)::BIGINT] END;

-- Geometric means (gm_map, gm_bpref) floor each query's value at trec_eval's 0.00001, so a query
-- scoring 0 counts as log(0.00001) rather than sending the mean to 0.
CREATE OR REPLACE MACRO rankkit.geometric_floor() AS 1.0E-5;

-- A query's term in a geometric mean: the log of its value, floored (the mean is exp of the terms' mean).
CREATE OR REPLACE MACRO rankkit.geometric_term(value) AS ln(greatest(value, rankkit.geometric_floor()));

-- A sum in a fixed order: the values of an ordered list() added left to right. trec_eval adds a
-- query's terms in rank order and the queries' values in query order; sum() and avg() add them in
-- whatever order DuckDB's threads meet the rows, so their last bit, and sometimes a printed digit,
-- would change from run to run. Use as ordered_sum(list(x ORDER BY rank)); NULL for no values.
CREATE OR REPLACE MACRO rankkit.ordered_sum(terms) AS
    list_reduce(terms::DOUBLE[], lambda total, x: total + x, 0.0E0);

-- The running sums of an ordered list, left to right, as trec_eval keeps its running totals: element
-- t is ordered_sum(terms[:t]) bit for bit (0.0 + x is x). Each term rides in a one-element list
-- because DuckDB 1.5's list_reduce keeps the element type for its accumulator.
CREATE OR REPLACE MACRO rankkit.running_sum(terms) AS
    CASE WHEN len(terms) > 0
         THEN list_reduce(list_transform(terms::DOUBLE[], lambda x: [x]), lambda sums, x: list_append(sums, sums[-1] + x[1]))
         ELSE []::DOUBLE[] END;

-- The DCG discount of rank i (ranks start at 1): log2(i + 1), or log2(max(i, 2)) (discount := 'original',
-- LensKit's lenskit/metrics/ranking/_dcg.py: the weight 1 / max(log2(i), 1)).
CREATE OR REPLACE MACRO rankkit.discount(i, discount := 'log2') AS
    CASE WHEN discount = 'original' THEN log2(greatest(i, 2.0E0)) ELSE log2(i + 1.0E0) END;

-- The span of a C/W/L grading scale from bottom to max, which must rise (else an error).
CREATE OR REPLACE MACRO rankkit.grade_span(max, bottom) AS
    CASE WHEN max > bottom THEN max - bottom
         ELSE error('rankkit: the grading scale must rise: max (' || max || ') must be above bottom (' || bottom || ')') END;

-- ERR's probability that a user stops at a document of this grade, for a scale topping at max.
CREATE OR REPLACE MACRO rankkit.stop_probability(grade, max := 4) AS
    (pow(2.0E0, least(greatest(coalesce(grade, 0.0E0), 0.0E0), max)) - 1.0E0) / pow(2.0E0, max);

-- The value of a measure for a user (query) without a relevant item, by the empty rule (param empty): a
-- per-measure parameter, not a convention, because it means something only for the measures of
-- relevant items found (a count such as num_ret, or fallout, has its own answer), and torchmetrics sets
-- it per metric (its FallOut's default is 'pos', the others' 'neg'). skip: NULL, left out of the mean.
CREATE OR REPLACE MACRO rankkit.empty_value(rule, query_id) AS
    CASE WHEN rule = 'zero' THEN 0.0E0 WHEN rule = 'one' THEN 1.0E0
         WHEN rule = 'error' THEN error('rankkit: ' || coalesce('the user (query) ''' || query_id || '''', 'the list')
              || ' has no relevant item in the qrels; empty=error refuses it (empty=zero, skip or one scores it)') END;

-- Guarded division: DuckDB gives inf/NaN and Spark raises, we want the measure's convention.
CREATE OR REPLACE MACRO rankkit.ratio(numerator, denominator, otherwise := 0.0E0) AS
    CASE WHEN denominator > 0 THEN numerator * 1.0E0 / denominator ELSE otherwise END;

