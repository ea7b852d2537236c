"""Statistical primitives behind judgebias's intervals, tests and sentences.

Pure functions on counts and arrays: this package imports numpy, scipy, statsmodels and pandas only (never the store,
DuckDB or Streamlit), so every metric, page, gate and report can share one definition of each interval and test.
docs/METHODS.md ("Inference") states each rule with its source.
"""
