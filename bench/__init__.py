"""Benchmarks, run as `sediment-bench ...` (see docs/benchmarks.md for the latest figures)."""
