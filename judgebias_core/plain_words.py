"""The statistical terms a reader who does not code should not meet first, in one place.

Verdict lines, the report's "In short" and chart titles are written without them; the rule behind each statement
(which test, which correction, which interval) goes into the fold "How this was decided". Tests read every such
sentence on the bundled data (tests/test_plain_words.py, tests/test_browser_plain_words.py) and fail on any term
listed here.
"""

from __future__ import annotations

import re

# Names of methods, tests, corrections and model statistics. Matched as whole words, case-insensitive, except the
# short acronyms in CASE_SENSITIVE (so "PC / 2" is caught but "pc" inside a word is not).
TERMS: tuple[str, ...] = (
    "Holm", "Benjamini", "Hochberg", "Bonferroni", "family-wise", "false discovery rate", "FDR",
    "cluster-robust", "clustered", "design effect", "Wilson", "CR1", "Clopper-Pearson", "McNemar",
    "AIC", "R²", "R^2", "post-selection", "stepwise", "PC / 2", "PPI", "PPI++", "prediction-powered",
    "bootstrap", "percentile", "studentized", "p-value", "p-values", "p =", "p <", "corrected p", "permutation p",
    "kappa", "Cohen", "Krippendorff", "alpha", "Spearman", "Kendall", "Pearson", "rho", "tau",
    "log-odds", "logit", "fixed effects", "Bradley-Terry", "maximum-likelihood", "ridge", "Landis",
    "CI", "standard error", "standard errors", "null hypothesis", "degenerate",
)
CASE_SENSITIVE: frozenset[str] = frozenset({"AIC", "CI", "CR1", "FDR", "PPI", "PPI++", "PC / 2", "tau", "rho",
                                            "alpha"})


def _pattern(term: str) -> re.Pattern[str]:
    # Whole words: a term never matches inside a longer word ("ci" in "decided", "tau" in "restaurant").
    flags = 0 if term in CASE_SENSITIVE else re.IGNORECASE
    return re.compile(r"(?<![\w])" + re.escape(term) + r"(?![\w+])", flags)


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((term, _pattern(term)) for term in TERMS)


def terms_in(text: str) -> list[str]:
    """The listed terms that ``text`` contains (empty when it reads plainly)."""
    return [term for term, pattern in _PATTERNS if pattern.search(text)]


def first_sentences(text: str, count: int = 2) -> str:
    """The first ``count`` sentences of ``text`` (a sentence ends at '. ', '! ' or '? ')."""
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    return " ".join(parts[:count])
