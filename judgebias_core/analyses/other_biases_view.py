"""The "Other biases" topic's view: everything the Other biases page, the report's section and `metrics verbosity
--json` show, built once from one store snapshot (issue 24: one view per topic)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from judgebias_core.analyses.other_biases import default_family_mapping, ensemble_verbosity, self_preference, verbosity
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.metrics.self_preference import SelfPreference
from judgebias_core.metrics.verbosity import (
    VerbosityReport,
    VerbosityResult,
    bins_frame,
    verbosity_frame,
    verbosity_report,
)
from judgebias_core.simulated import is_simulated
from judgebias_core.stats.multiple import CorrectedTests
from judgebias_core.store.calibration_queries import judge_simulated
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.phrasing import percent
from judgebias_core.wording.verdict import Verdict
from judgebias_core.wording.verdict_factors import other_biases_verdicts

__all__ = ["ENSEMBLE_JUDGE", "OtherBiasesView", "other_biases_view"]


@dataclass(frozen=True)
class OtherBiasesView:
    """What a reader sees of verbosity and self-preference for ``judges`` in ``studies``: the verbosity report (its
    family of slope tests and their correction), the self-preference result (None when not asked for) under the
    family mapping used, the verdicts (clearest length lean first, then own family), the sentences, the tables and
    the sentences naming each family of tests and its size. ``report.tests`` is the family of the judges asked for;
    ``report_tests`` and ``page_tests`` are the report's and the page's default families of the same slope tests
    (each equal to ``report.tests`` when the judges asked for are that family)."""

    dataset_id: str
    studies: tuple[str, ...]
    judges: tuple[str, ...]
    cluster: str
    control: str
    report: VerbosityReport
    preference: SelfPreference | None
    families: dict[str, str]
    who: dict[str, str]  # a judge's name as sentences give it (simulated judges said to be simulated)
    verdicts: tuple[Verdict, ...]
    verbosity_sentences: tuple[str, ...]
    self_preference_sentences: tuple[str, ...]
    bins: pd.DataFrame  # the longer answer's share per length bin, per judge
    per_judge: pd.DataFrame  # verbosity_frame: counts, shares, slopes and their intervals
    verbosity_family: str  # which slope tests are corrected together, and how
    self_preference_family: str | None
    report_tests: CorrectedTests  # the report's family of slope tests: the judges without their majority vote
    page_tests: CorrectedTests  # the page's default family: the judges and their majority vote (two judges or more)

    @property
    def study(self) -> str:
        return ", ".join(self.studies)

    @property
    def real_judges(self) -> list[str]:
        return [judge for judge in self.judges if judge != ENSEMBLE_JUDGE]

    def shown_judges(self) -> list[VerbosityResult]:
        """The judges with a decisive pair of unequal length: the only ones a length preference can be read of."""
        return [r for r in self.report.judges if r.decisive_pairs > r.equal_length_pairs]

    def corrected(self, tests: CorrectedTests) -> list[float]:
        """Per judge asked for, its slope test's corrected p in ``tests`` (NaN when the family does not hold it)."""
        by_judge = dict(zip(tests.labels, tests.corrected, strict=True))
        return [by_judge.get(r.judge, float("nan")) for r in self.report.judges]

    @property
    def page_families_sentence(self) -> str:
        """The page's family beside the report's, in one sentence (the page corrects the judges it shows)."""
        return _side_by_side(self.report.tests, self.report_tests, "on this page", "the report")

    @property
    def report_families_sentence(self) -> str:
        """The report's family beside the page's default one, in one sentence."""
        return _side_by_side(self.report_tests, self.page_tests, "in this report", "the Other biases page, by default,")


def _count(tests: CorrectedTests) -> str:
    """'4 slope tests (the judges and their majority vote: a, b, c, majority-vote)'. The page offers the judges'
    majority vote as a judge of its own, and so tests its slope too; the report speaks of the judges alone."""
    whose = ("the judges and their majority vote" if ENSEMBLE_JUDGE in tests.labels
             else "the judges without their majority vote")
    return (f"{tests.family_size} slope test{'s' if tests.family_size != 1 else ''} ({whose}: "
            f"{', '.join(tests.labels)})")


def _side_by_side(own: CorrectedTests, other: CorrectedTests, here: str, there: str) -> str:
    """'Corrected p-values: Holm correction over the 4 slope tests on this page (...); the report corrects 3 (...),
    so its corrected p-values can be smaller. Both are in the table.' Holm's corrected p of a test never grows when
    the family loses a test, so the smaller family's are the smaller."""
    if own.labels == other.labels and own.method == other.method:
        return f"Corrected p-values: {own.method_name} over {_count(own)}, the same family {here} and in {there}."
    larger = "smaller" if other.family_size < own.family_size else "larger"
    return (f"Corrected p-values: {own.method_name} over {_count(own)} {here}; {there} corrects "
            f"{_count(other)} with {other.method_name}, so its corrected p-values can be {larger}. Both are in the "
            "table.")


def family_sentence(tests: CorrectedTests, what: str) -> str:
    """Which tests a correction runs over, named, with their number."""
    named = ", ".join(tests.labels)
    if tests.method == "none":
        return f"{what}: no correction for the {tests.family_size} tests shown ({named})."
    return f"{what}: {tests.method_name} over {tests.family_size} test{'s' if tests.family_size != 1 else ''} ({named})."


def verbosity_sentence(report: VerbosityReport, result: VerbosityResult, who: str) -> str:
    """The longer answer's share with its item-clustered interval, and what the corrected slope test allows."""
    unequal = result.decisive_pairs - result.equal_length_pairs
    share = result.longer_share_clustered
    interval = (f"95% {share.method} interval {percent(share.low)} to {percent(share.high)} over {result.items:,} items"
                if share is not None and not share.degenerate else "no proper interval")
    return (f"When one answer is longer, {who} picks the longer one in {percent(result.longer_win_share)} of "
            f"{unequal:,} decisive pairs of unequal length ({interval}); its length slope, clustered by "
            f"{report.cluster}, is {report.reading(result.judge)}"
            + ("." if result.control == "candidate" else ", without holding candidate quality fixed."))


def self_preference_sentences(result: SelfPreference) -> list[str]:
    """One sentence per family's in-family term over leniency and quality, with what the correction allows."""
    return [f"Judges of the {t.family} family give {t.family} candidates {t.odds_ratio:.2f} times the odds of winning "
            f"that their leniency and the candidates' quality predict ({t.pairs:,} pairs with a family match; "
            f"{result.tests.sentence(t.family) if result.tests else 'not tested'})."
            for t in result.in_family if not t.term.degenerate]


def _who(reader: StoreReader, judge: str) -> str:
    simulated = judge != ENSEMBLE_JUDGE and (is_simulated(judge) or judge_simulated(reader, judge))
    return f"{judge} (a simulated judge)" if simulated else judge


def other_biases_view(reader: StoreReader, dataset_id: str, studies: Sequence[str], judges: Sequence[str],
                      cluster: str = "item", control: str = "none", families: Mapping[str, str] | None = None,
                      with_self_preference: bool = True) -> OtherBiasesView:
    """Verbosity (slope clustered by ``cluster``, candidate fixed effects when ``control`` is "candidate") and, unless
    ``with_self_preference`` is False, self-preference under ``families`` (default: the stored mapping)."""
    report = verbosity(reader, dataset_id, list(studies), list(judges), cluster=cluster, control=control)
    real = [judge for judge in judges if judge != ENSEMBLE_JUDGE]
    mapping = dict(families) if families else default_family_mapping(reader, dataset_id, real)
    preference = self_preference(reader, dataset_id, list(studies), list(judges), mapping) \
        if with_self_preference else None
    who = {judge: _who(reader, judge) for judge in judges}
    report_tests = report.tests if ENSEMBLE_JUDGE not in judges else verbosity_report(
        [r for r in report.judges if r.judge != ENSEMBLE_JUDGE], dataset_id, studies, cluster, control).tests
    page_tests = report.tests if ENSEMBLE_JUDGE in judges or len(real) < 2 else verbosity_report(
        [*report.judges, ensemble_verbosity(reader, dataset_id, list(studies), cluster=cluster, control=control)],
        dataset_id, studies, cluster, control).tests
    ordered = sorted((r for r in report.judges if r.decisive_pairs > r.equal_length_pairs),
                     key=lambda r: -abs(r.longer_win_share - 0.5))
    return OtherBiasesView(
        dataset_id=dataset_id, studies=tuple(studies), judges=tuple(judges), cluster=cluster, control=control,
        report=report, preference=preference, families=mapping, who=who,
        verdicts=tuple(other_biases_verdicts(report, preference, who)),
        verbosity_sentences=tuple(verbosity_sentence(report, r, who[r.judge]) for r in ordered),
        self_preference_sentences=tuple(self_preference_sentences(preference)) if preference is not None else (),
        bins=bins_frame(report.judges), per_judge=verbosity_frame(report.judges),
        verbosity_family=family_sentence(report.tests, f"Length slopes (clustered by {cluster})"),
        self_preference_family=family_sentence(preference.tests, "In-family terms")
        if preference is not None and preference.tests is not None else None,
        report_tests=report_tests, page_tests=page_tests)
