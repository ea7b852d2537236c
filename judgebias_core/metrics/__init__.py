"""Metrics: pure functions from frames or typed inputs to result dataclasses (no store, no duckdb, no engine)."""
