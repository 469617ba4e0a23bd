"""ir_measures or ranx as a user's script: qrels and run files in, the five means printed (fresh-process
figure, as pytrec_script.py for pytrec_eval).

    python bench/peer_script.py ir_measures|ranx QRELS RUN
"""

import sys

from worker import irm_compute, ranx_compute

library, qrels_path, run_path = sys.argv[1:4]
if library == "ir_measures":
    import ir_measures

    loaded = list(ir_measures.read_trec_qrels(qrels_path)), list(ir_measures.read_trec_run(run_path))
    values = irm_compute(ir_measures, loaded)
elif library == "ranx":
    import ranx

    loaded = ranx.Qrels.from_file(qrels_path, kind="trec"), ranx.Run.from_file(run_path, kind="trec")
    values = ranx_compute(ranx, loaded)
else:
    raise SystemExit(f"peer_script.py: expected ir_measures or ranx, got {library}")
for measure, value in values.items():
    print(f"{measure}\t{value!r}")
