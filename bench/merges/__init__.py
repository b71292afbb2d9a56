"""The merge benchmark: does consolidation merge restatements, and only restatements?

Each labelled pair (bench/data/merges.json) is retained into a bank of its own: two
distinct facts must stay apart and both stay findable; a fact said twice in other words
should become one observation. `data` reads the file, `score` judges what the store
holds and what recall returns, `run` drives a real embedded store, `render` writes the
tables and the report section, `cli` is `sediment-bench merges` and `python -m
bench.merges`.
"""
