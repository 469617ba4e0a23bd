-- list:      cg
-- signature: rankkit.cg(grades, k, gain := 'linear')
-- summary:   cumulative gain of a list of grades in rank order: the sum of the gains of the top k (k NULL: all)
-- example:   rankkit.cg([3, 2, 3, 0, 1, 2], 6) = 11
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002
--
-- Scalar list macros are for ad-hoc SQL over grades already in rank order; the table macro of the
-- same name (sql/metrics/cg.sql) ranks a run and judges it first. A NULL grade is unjudged: gain 0.

CREATE OR REPLACE MACRO rankkit.cg(grades, k, gain := 'linear') AS
    coalesce(list_sum([rankkit.gain(grades[i], gain) FOR i IN rankkit.list_ranks(grades, k)]), 0.0E0);
