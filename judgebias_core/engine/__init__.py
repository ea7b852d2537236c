"""The run engine: plan -> request -> reply -> journal -> store, with retries, cache, cap and resume."""

from judgebias_core.engine.launch import RunOutcome, start_run
from judgebias_core.engine.progress import RunProgress, read_progress, request_cancel

__all__ = ["RunOutcome", "RunProgress", "read_progress", "request_cancel", "start_run"]
