"""Plain-language explanations of every metric of docs/METHODS.md: what it means and how it is computed.

Pages show them through ``ui.share.explain``; the HTML report prints them as "how this was measured".
Formulas are plain text (no LaTeX) so they read the same in the dashboard, the report and a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetricExplanation:
    """One metric: a one-line meaning for a non-coder, the formula, and where the method comes from."""

    key: str
    name: str
    meaning: str
    formula: str
    source: str


SHI = "Shi et al., Judging the Judges (arXiv 2406.07791)"
RUBRIC_PAPER = "Am I More Pointwise or Pairwise? (arXiv 2602.02219)"
SWAP_PRACTICE = "practitioners' swap-consistency write-ups"
CALIBRATION = "LLM-as-judge calibration notes"
PROJECT = "judgebias project rule (docs/METHODS.md)"

_PAIR_CLASSES = (
    "A pair is judged twice, with the two answers swapped. Verdicts (original order, swapped order): "
    "consistent = (A,B), (B,A), (C,C); primacy = (A,A), (A,C), (C,A); recency = (B,B), (B,C), (C,B). "
    "Pairs with a parse failure on either side are left out and counted apart."
)

_ENTRIES: tuple[MetricExplanation, ...] = (
    # Pairwise swap runs
    MetricExplanation(
        "position_consistency", "Position consistency",
        "Share of answer pairs where the judge picks the same winner (or tie) whichever answer is shown first.",
        f"{_PAIR_CLASSES}\nPC = consistent / (consistent + primacy + recency), counted in pairs; groups are pooled "
        "by adding counts (ratio of sums), not by averaging ratios.",
        SHI,
    ),
    MetricExplanation(
        "flip_rate", "Flip rate",
        "Share of answer pairs where swapping the two answers changes the judge's verdict.",
        "flip rate = 1 - PC = (primacy + recency) / n, with n = consistent + primacy + recency pairs. A change to or "
        "from a tie is a flip; a tie in both orders is consistent.\nDecision interval (gate, ranking safety, sentences): "
        "item-clustered, a bootstrap that resamples items (all pairs of an item together, 2,000 resamples, seed 0), "
        "Wilson on the design-effect-adjusted effective n below 20 items, the exact bound with no flips; its method "
        "is named next to it. The 95% Wilson interval over n pairs assumes the pairs independent and is shown beside "
        "it with the design effect (METHODS.md section 8).",
        SWAP_PRACTICE,
    ),
    MetricExplanation(
        "first_slot_share", "First-slot share (direction)",
        "Among the verdicts that changed, the share that favoured the answer shown first.",
        "first-slot share = primacy / (primacy + recency). 0.5 means no preferred side. Its 95% interval is "
        "item-clustered (flips of an item resampled together; Wilson on the effective n below 20 items). Whether the "
        "lean could be chance is the position test's to say, not a binomial test on the pairs.",
        SWAP_PRACTICE,
    ),
    MetricExplanation(
        "position_test", "Position test",
        "Whether the judge picks one slot more than the other beyond what chance allows, with pairs on the same "
        "question counted as related.",
        "Per pair d = s1 + s2 - 1, where a call scores 1 for picking the first slot, 0 for the second and 1/2 for a "
        "tie (the tie rule): +1 for (A,A), +1/2 for (A,C) and (C,A), 0 for a consistent pair, -1/2 and -1 for the "
        "recency mirror images. d does not depend on which answer is called x, so the test is symmetric in the two "
        "candidates. Test of mean(d) = 0 by the cluster-robust t statistic with items as clusters (CR1, G - 1 degrees "
        "of freedom); slot-pick share = 1/2 + mean(d)/2 with an item-bootstrap interval (20 items or more). The "
        "p-values a page or report shows are corrected together (Holm by default, Benjamini-Hochberg on the page), "
        "and a lean is called only when the corrected p is below 0.05.",
        "Cameron & Miller 2015, cluster-robust inference; Holm 1979; Benjamini & Hochberg 1995",
    ),
    MetricExplanation(
        "preference_fairness", "Preference fairness",
        "How far the judge leans to one slot: negative leans to the first answer, positive to the second, 0 is fair.",
        "Raw (judgebias): per unit (judge, candidate, task), PF = (recency - primacy) / N, where N counts every pair "
        "of the unit including parse failures; in [-1, 1]. Scaled (Shi et al.): the unit's recency - primacy min-max "
        "scaled per judge and task between -T and +T, T = the judge's pairs in that task / its units there (equal to "
        "the raw form when a task's units are equally large). The judge's PF is the unweighted mean over its units "
        "with a classified pair; units whose every pair failed are left out and counted apart, and a judge with no "
        "classified pair has no PF.",
        SHI,
    ),
    MetricExplanation(
        "mcnemar", "McNemar test (pairs assumed independent)",
        "Whether an answer wins more often when shown first than when shown second, if every pair were independent.",
        "2 x 2 table of paired outcomes of each pair: 'x wins when first' (yes/no) against 'x wins when second' "
        "(yes/no); statsmodels' exact McNemar test (always exact here) on the discordant cells, with x the pair's "
        "candidate (not its opponent). It treats pairs as independent and, with ties, depends on which answer is x; "
        "with two options it is the binomial test again. Kept in JSON only for compatibility: sentences and pages use "
        "the position test.",
        SWAP_PRACTICE,
    ),
    MetricExplanation(
        "repetition_stability", "Repetition stability",
        "How often the judge gives the same verdict when asked the very same question several times.",
        "Per prompt (one order of one pair) judged R times: count of its most frequent verdict / R (failed parses "
        "stay in R and never count as the mode). RS = mean over prompts; prompts with no parsed repetition are "
        "left out and counted apart.",
        SHI,
    ),
    MetricExplanation(
        "judge_difference", "Difference between two judges",
        "How much more often one judge changes its verdict with the order than another, on the very same pairs.",
        "Over the pairs both judges classified (same repetition, item and answers): flip rate of A - flip rate of B. "
        "95% cluster-robust t interval on the per-item difference (both judges' pairs of an item together, so what "
        "the shared pairs have in common cancels), at every number of items; p-value from the cluster-robust t "
        "test of no difference (items as clusters, G - 1 degrees of freedom).",
        "Miller 2024, Adding Error Bars to Evals (arXiv 2411.00640), paired differences",
    ),
    MetricExplanation(
        "repetition_floor", "Repetition floor",
        "How often the verdict changes with nothing swapped at all: the noise the flip rate should be read against.",
        "Among prompts whose repetitions 1 and 2 both parsed: share whose two verdicts differ. The positional "
        "effect worth reporting is the flip rate in excess of this floor: flip rate - floor, with a paired "
        "item-clustered interval (items in both paired; the cluster-robust t interval at every size) and its "
        "cluster-robust t test, corrected with the other tests shown.",
        SWAP_PRACTICE,
    ),
    MetricExplanation(
        "overall_win_rate", "Overall win rate",
        "How often a candidate beats the baseline answer, counting pairs the judge could not decide on as half.",
        "win rate = (consistent wins + (consistent ties + inconsistent pairs) / 2) / classified pairs, against the "
        "pair's opponent: the dataset's baseline, or in all-pairs designs the answer whose name sorts first (a "
        "declared reference first). Its 95% interval is item-clustered (a candidate's pairs on one item resampled "
        "together).",
        SHI,
    ),
    MetricExplanation(
        "quality_gap", "Answer quality gap",
        "How clearly one answer is better than the other: 0 means evenly matched, 0.5 means one always wins.",
        "quality gap = |overall win rate - 1/2|. Published finding: the larger the gap, the higher the "
        "position consistency.",
        SHI,
    ),
    MetricExplanation(
        "ranking_safety", "Ranking safety",
        "Whether the order of the top of a leaderboard could be an artefact of where answers were shown.",
        "Candidates are ranked three ways: from the swap-aggregated verdicts, from the call with the candidate shown "
        "first alone, and from the call with it shown second alone. A neighbour pair is flagged when its order "
        "changes in either single-slot ranking, or is not shown to hold in at least 95% of item bootstrap resamples "
        "(it holds in fewer, or is too close to call within the Monte Carlo error of that share). Separately, the "
        "top two are compared with the top of the item-clustered two-sided 95% interval of the judge's flip rate "
        "(a one-sided 97.5% upper bound).",
        PROJECT,
    ),
    MetricExplanation(
        "listwise_consistency", "List-wise consistency",
        "Share of items where the judge picks the same best answer whatever the order of the list.",
        "p candidates shown in p cyclic orders (each in each position once). Consistent if the same candidate wins in "
        "all p orders. Direction: one-vs-all, choosing the first slot counts as primacy.",
        SHI,
    ),
    # Rubric balanced permutation
    MetricExplanation(
        "position_share", "Position selection distribution",
        "How often the judge's chosen score sat at each place of the rubric; an unbiased judge gives each place 1/k.",
        "Share of parsed trials whose chosen position is p, for p = 1..k; no-bias line 1/k. Valid only when the parsed "
        "trials are balanced (every score shown equally often at every position among them); parse failures can "
        "unbalance a balanced set: then every ordering is weighted to count equally, or, when that cannot restore "
        "balance, the page says score and position are confounded and by how much. Intervals: item-clustered (all "
        "calls of an item together); each position tested against 1/k by a cluster-robust t test, Holm-corrected "
        "over the k positions.",
        RUBRIC_PAPER,
    ),
    MetricExplanation(
        "position_given_score", "Score-by-position table P(position | score)",
        "For each score the judge gave, where that score option sat in the list when it was chosen.",
        "P(p | s) = trials choosing score s at position p / trials choosing score s. Each row sums to 1; no bias "
        "means every cell is 1/k.",
        RUBRIC_PAPER,
    ),
    MetricExplanation(
        "permutation_vs_repeat", "Human correlation: permutation vs repeat",
        "Whether averaging over shuffled rubric orders brings the judge closer to people than asking the same "
        "order repeatedly.",
        "Per item: mean of its 2k permutation scores and mean of its 2k repeat scores (canonical order). Pearson r "
        "and Spearman rho of each against the human mean score, and their difference, with bootstrap intervals over "
        "items. Against a reference judge where no human labels exist (labelled as such).",
        RUBRIC_PAPER,
    ),
    MetricExplanation(
        "within_item_spread", "Within-item spread",
        "How much one item's score moves when only the order of the rubric options changes.",
        "Per item: the population standard deviation (ddof = 0, dividing by the number of calls) of its parsed "
        "scores, over its 2k calls in a balanced run; reported as the mean over items, for each run, with the "
        "number of items and of calls per item.",
        RUBRIC_PAPER,
    ),
    MetricExplanation(
        "ordering_rank", "Per-ordering correlation rank",
        "Which order of the rubric options gives scores closest to people's.",
        "For each ordering: Pearson correlation of its single-run scores with the human scores; orderings ranked "
        "(1 = highest). The canonical order's rank is highlighted.",
        RUBRIC_PAPER,
    ),
    MetricExplanation(
        "bias_cost", "Bias cost",
        "How much a given order of rubric options would push the judge off, estimated from a small probing run.",
        "Cost(pi) = sum over positions p of |P(p | pi_p) - 1/k|, with P(p | s) from the probing run. Lower is less "
        "biased; the lowest-cost ordering among the candidates is recommended. Undefined at k = 2 (every ordering "
        "gets the same cost) and when orderings tie: nothing is recommended then. Item bootstrap (all calls of an "
        "item resampled together): an interval on each cost and on its difference from the lowest, and the "
        "stability, the share of resamples in which the recommended ordering is still the lowest.",
        RUBRIC_PAPER,
    ),
    MetricExplanation(
        "g_eval_score", "Expected score (G-Eval style)",
        "The score the judge expects on average, from its own probabilities for each score.",
        "expected score = sum over valid scores s of s * P(s), from the token log-probabilities the provider "
        "returns, next to the sampled score: per-item means of each against the labels (Pearson, Spearman and "
        "their difference, item-bootstrap intervals), and the position pull, per position the within-item slope of "
        "the score on the score option shown there (0 for a judge blind to the order).",
        "Liu et al., G-Eval (arXiv 2303.16634); the comparison and the position pull: " + PROJECT,
    ),
    # Several judges
    MetricExplanation(
        "agreement", "Agreement between judges",
        "How often two judges give the same verdict on the same question.",
        "Over instances (item, first slot, second slot, repetition) both judges answered with a parsed verdict: "
        "identical verdicts / instances. Variant: leave out every instance where either judge said tie.",
        SHI,
    ),
    MetricExplanation(
        "disagreement", "Disagreement",
        "How many judges break from the majority on a question.",
        "Per prompt: number of judges whose verdict differs from the majority verdict; shown as a distribution over "
        "prompts. The majority verdict also serves as an ensemble judge.",
        SHI,
    ),
    # The judge scorecard
    MetricExplanation(
        "scorecard_accuracy", "Accuracy (swap-averaged) and the paired difference from the best",
        "How often a judge configuration (judge x prompting strategy x protocol) picks the labelled better answer "
        "when each pair is judged in both orders and the two verdicts are combined.",
        "swap-averaged verdict = the verdict when both orders agree, else a tie; accuracy = (pairs where it is the "
        "label + 1/2 x pairs where it is a tie and the label is not) / labelled pairs (a failed order makes a tie). "
        "Each order's accuracy and 'right in both orders' are shown beside it. 95% intervals resample items. The "
        "difference from the most accurate row is taken on the labelled pairs both judged, items resampled once for "
        "both rows (paired item bootstrap with the shown resamples and seed, its standard error used with Student's "
        "t on items - 1); Holm over the comparisons shown decides "
        "'clearly worse', and each interval is at the Bonferroni level 1 - 0.05 / comparisons.",
        "Miller 2024, 'Adding Error Bars to Evals' (arXiv 2411.00640), sec. 4; Zeng et al. 2024 (LLMBar) for the "
        "swap protocol and the per-order statistics",
    ),
    # Agreement with humans
    MetricExplanation(
        "kappa", "Cohen's kappa",
        "Agreement between judge and people beyond what chance alone would give: 1 is perfect, 0 is chance level.",
        "kappa = (p_o - p_e) / (1 - p_e): p_o observed agreement, p_e agreement expected from the two label "
        "distributions (confusion matrix, human labels as rows). Unweighted for pairwise labels. Where several raters "
        "score an item, their median rating is used.",
        CALIBRATION,
    ),
    MetricExplanation(
        "kappa_quadratic", "Quadratic-weighted kappa",
        "Like Cohen's kappa, but a near miss on a score scale (4 for 5) costs less than a far miss (1 for 5).",
        "kappa_w = 1 - sum(w_ij * o_ij) / sum(w_ij * e_ij) with w_ij = (i - j)^2 / (k - 1)^2, o observed and e "
        "chance-expected cell shares. For ordinal scores; median rating of several raters.",
        CALIBRATION,
    ),
    MetricExplanation(
        "precision_recall", "Precision and recall per label",
        "For each label: how often the judge is right when it says it (precision), and how many of the people's "
        "uses of it the judge finds (recall).",
        "With the human label as truth: precision(l) = both say l / judge says l; recall(l) = both say l / human "
        "says l.",
        CALIBRATION,
    ),
    MetricExplanation(
        "confusion_matrix", "Confusion matrix",
        "Counts of each (human label, judge label) combination: the diagonal is agreement.",
        "Rows: human labels, columns: judge labels, in a fixed order (pairwise: response_1, response_2, tie; "
        "rubric: 1..k). Never summarised by raw accuracy alone.",
        CALIBRATION,
    ),
    MetricExplanation(
        "pearson", "Pearson correlation",
        "How closely the judge's scores rise and fall with people's scores, in a straight line.",
        "r = cov(x, y) / (sd(x) sd(y)), x judge scores, y the mean of the human raters; 95% confidence interval.",
        CALIBRATION,
    ),
    MetricExplanation(
        "spearman", "Spearman correlation",
        "Whether the judge ranks items in the same order people do.",
        "rho = Pearson correlation of the ranks of x and y (ties get average ranks); 95% confidence interval.",
        CALIBRATION,
    ),
    MetricExplanation(
        "kendall", "Kendall's tau",
        "Of all pairs of items, how much more often judge and people order them the same way than the opposite way.",
        "tau-b = (concordant - discordant) / sqrt((n0 - n1)(n0 - n2)), corrected for ties; 95% confidence interval.",
        CALIBRATION,
    ),
    # Other biases and rankings
    MetricExplanation(
        "verbosity", "Verbosity bias",
        "Whether the judge prefers the longer answer regardless of quality.",
        "Share of decisive pairs won by the longer answer (lengths in characters) per bin of the length difference, "
        "with item-bootstrap intervals; a logistic slope per 1,000 characters with cluster-robust standard errors "
        "(by item, or by candidate), optionally with candidate fixed effects for quality; Holm over the judges.",
        PROJECT,
    ),
    MetricExplanation(
        "self_preference", "Self-preference",
        "Whether a judge favours answers written by models of its own family.",
        "Per family, the in-family term of a fractional logit of each pair's score over judge effects (leniency) "
        "and candidate fixed effects (quality), item-clustered, Holm over the families; the raw family matrix "
        "alone mixes leniency with self-preference.",
        PROJECT,
    ),
    MetricExplanation(
        "bradley_terry", "Bradley-Terry strength",
        "A single strength score per candidate, estimated from who beat whom, to rank them.",
        "P(i beats j) = s_i / (s_i + s_j); log-strengths fitted by ridge-penalised maximum likelihood on the "
        "pairwise outcomes (a tie or a pair whose verdict changed with the order counts as half a win for each "
        "side), the same fit for the estimate and each bootstrap resample. When a candidate never lost (or never "
        "won) the plain maximum is infinite; the page then warns that the penalty sets that strength.",
        PROJECT,
    ),
    MetricExplanation(
        "stepwise_aic", "Stepwise regression (AIC)",
        "Which factors (judge, candidate, task, quality gap, lengths) best explain where the position bias is.",
        "Units (judge, candidate, task); target PC or PF. From the empty model, at each step add or drop the one "
        "predictor that lowers AIC = 2k - 2 ln L the most; stop when none does. Final model: OLS (or WLS by pairs) "
        "coefficients with post-selection intervals (optionally cluster-robust); per predictor, the AIC rise when it "
        "alone is removed; a permutation baseline of what the quality gap's bound (at most PC / 2) alone produces.",
        SHI,
    ),
    MetricExplanation(
        "parse_failures", "Parse failures",
        "Judge replies from which no verdict or score could be read; kept and counted, never guessed.",
        "Count of calls with parse_status = failed (a reply came back, no verdict matched the parser's rule), shown "
        "next to every rate they are excluded from.",
        PROJECT,
    ),
)

EXPLANATIONS: dict[str, MetricExplanation] = {entry.key: entry for entry in _ENTRIES}

# Other names page code may reasonably use for the same metric.
ALIASES: dict[str, str] = {
    "pc": "position_consistency",
    "consistency": "position_consistency",
    "flip_rate_wilson": "flip_rate",
    "flip_rate_bootstrap": "flip_rate",
    "direction": "first_slot_share",
    "binomial_test": "position_test",
    "direction_test": "position_test",
    "pf": "preference_fairness",
    "win_rate": "overall_win_rate",
    "answer_quality_gap": "quality_gap",
    "position_selection": "position_share",
    "score_by_position": "position_given_score",
    "human_correlation": "permutation_vs_repeat",
    "cohen_kappa": "kappa",
    "kappa_unweighted": "kappa",
    "weighted_kappa": "kappa_quadratic",
    "kendall_tau": "kendall",
    "stepwise": "stepwise_aic",
}


def explanation(key: str) -> MetricExplanation:
    """The explanation of a metric by key or alias; KeyError naming the known keys otherwise."""
    canonical = ALIASES.get(key, key)
    if canonical not in EXPLANATIONS:
        raise KeyError(f"no explanation for metric {key!r}; known: {', '.join(sorted(EXPLANATIONS))}")
    return EXPLANATIONS[canonical]
