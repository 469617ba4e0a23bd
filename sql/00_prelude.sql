-- rankkit prelude: the catalog, the shared parameters and the helpers every measure uses.
--
-- Macros live in an attached in-memory catalog so they never collide with DuckDB built-ins and
-- nothing is written into a user's database file.
--
-- The parameters a measure may take; each measure's header says which of these it accepts.
-- param: k      INTEGER := NULL      cutoff: only the top k ranks count (no cutoff: the whole ranked list)
-- param: rel    DOUBLE  := 1         relevance level: a document is relevant when its grade >= rel
-- param: gain   VARCHAR := 'linear'  gain of a grade: linear (rel, trec_eval's) or exp (2^rel - 1, gdeval's)
-- param: ideal  VARCHAR := 'qrels'   ideal ordering: qrels (every judged document, trec_eval's) or run (retrieved documents only, scikit-learn's)
-- param: empty  VARCHAR := 'zero'    a query whose ideal DCG is 0: zero (scores 0, trec_eval's) or skip (left out of the mean)
-- param: max    DOUBLE  := 4         top of the grading scale for ERR's stopping probability (gdeval's 4)

ATTACH IF NOT EXISTS ':memory:' AS rankkit;

-- Negative grades mean judged-but-unusable: they never gain.
CREATE OR REPLACE MACRO rankkit.gain(grade, gain := 'linear') AS
    CASE
        WHEN grade IS NULL OR grade <= 0 THEN 0.0E0
        WHEN gain = 'exp' THEN pow(2.0E0, grade) - 1.0E0
        ELSE grade * 1.0E0
    END;

-- A sum in a fixed order: the values of an ordered list() added left to right. trec_eval adds a
-- query's terms in rank order and the queries' values in query order; sum() and avg() add them in
-- whatever order DuckDB's threads meet the rows, so their last bit, and sometimes a printed digit,
-- would change from run to run. Use as ordered_sum(list(x ORDER BY rank)); NULL for no values.
CREATE OR REPLACE MACRO rankkit.ordered_sum(terms) AS
    list_reduce(terms::DOUBLE[], lambda total, x: total + x, 0.0E0);

-- The DCG discount of rank i (ranks start at 1).
CREATE OR REPLACE MACRO rankkit.discount(i) AS log2(i + 1.0E0);

-- ERR's probability that a user stops at a document of this grade, for a scale topping at max.
CREATE OR REPLACE MACRO rankkit.stop_probability(grade, max := 4) AS
    (pow(2.0E0, least(greatest(coalesce(grade, 0.0E0), 0.0E0), max)) - 1.0E0) / pow(2.0E0, max);

-- Guarded division: DuckDB gives inf/NaN and Spark raises, we want the measure's convention.
CREATE OR REPLACE MACRO rankkit.ratio(numerator, denominator, otherwise := 0.0E0) AS
    CASE WHEN denominator > 0 THEN numerator * 1.0E0 / denominator ELSE otherwise END;

-- For the list macros (sql/lists): a cutoff k as given (NULL: none), or an error when it is not a
-- positive integer.
CREATE OR REPLACE MACRO rankkit.list_cutoff(k) AS
    CASE WHEN k IS NULL OR (k >= 1 AND k = floor(k)) THEN k::BIGINT
         ELSE error('rankkit: the cutoff k must be a positive integer, got ' || k) END;

-- The ranks 1..n of a list cut at k (k NULL: the whole list).
CREATE OR REPLACE MACRO rankkit.list_ranks(grades, k) AS
    range(1, least(len(grades), coalesce(rankkit.list_cutoff(k), len(grades))) + 1);
