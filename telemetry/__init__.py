"""Telemetry: metrics in Redis, Prometheus exposition, slow-call and impression logs.

Metadata only: nothing here stores memory or query text."""
