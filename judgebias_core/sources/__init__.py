"""Data sources: the bundled real datasets and user uploads, turned into store records."""
