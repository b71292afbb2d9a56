"""`python -m bench.merges --split test --embedder static`."""

from bench.merges.cli import main

main()
