"""Metrics: pure functions from store queries or frames to result dataclasses (never imports engine/ or judges/)."""
