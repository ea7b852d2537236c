"""Analyses: one function per analysis, joining ``store/*_queries.py`` reads (one ``StoreReader``) to the pure
``metrics/`` functions. Pages (through ``ui.state.cached``), the CLI and the report call these."""
