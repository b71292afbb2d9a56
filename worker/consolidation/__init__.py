"""Consolidation: pure `decide` over a neighbourhood, `apply` to the store."""
