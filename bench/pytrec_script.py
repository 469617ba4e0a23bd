"""pytrec_eval as a user's script: qrels and run files in, the five means printed (fresh-process figure).

    python bench/pytrec_script.py QRELS RUN
"""

import sys

import pytrec_eval

from worker import pytrec_compute

with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
for measure, value in pytrec_compute(pytrec_eval, (qrels, run)).items():
    print(f"{measure}\t{value!r}")
