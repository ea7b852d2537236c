"""Agreement between judges on the same judge calls, per-prompt disagreement, and the majority-vote ensemble.

An instance is one judge call: (item, first slot, second slot, repetition). Studies are not part of the key, so
judges run in separate studies on the same pairs can be compared.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judgebias_core.errors import InvalidArgument
from judgebias_core.identity import model_family
from judgebias_core.stats.agreement import (
    AgreementEstimate,
    EffectiveJudges,
    cohens_kappa,
    effective_judges,
    krippendorff_alpha,
)

ENSEMBLE_JUDGE = "majority-vote"
ENSEMBLE_FAMILY = "ensemble"
ENSEMBLE_RULE = ("the verdict most judges gave on the call (A, B or tie); no verdict when the top count is shared "
                 "(e.g. one A, one B, one tie) or when no judge parsed")
LEAVE_ONE_OUT_RULE = ("each judge is compared with the majority vote of the OTHER judges (leave-one-out), so the "
                      "judge's own verdict never counts towards the majority it is scored against")
EFFECTIVE_JUDGES_BASIS = ("correlation of the judges' verdicts scored A = 1, tie = 1/2, B = 0 (no human labels here, "
                          "so errors cannot be separated from the shared true signal: agreement on the right answer "
                          "counts as redundancy, and the figure is a lower bound on the independent information)")
INSTANCE_KEY = ["item_id", "first_candidate", "second_candidate", "repetition"]
VERDICTS = ("A", "B", "C")


@dataclass(frozen=True)
class JudgePairAgreement:
    """Agreement of two judges over the calls both answered with a parsed verdict."""

    a: str
    b: str
    n: int
    agreement: float
    n_without_ties: int
    agreement_without_ties: float
    kappa: AgreementEstimate | None = None
    kappa_without_ties: AgreementEstimate | None = None
    without_majority: float | None = None  # ensemble rows: share of the judge's parsed calls without a majority


@dataclass(frozen=True)
class FamilyAgreement:
    """Pooled agreement over every pair of distinct judges drawn from two families."""

    family_a: str
    family_b: str
    judge_pairs: int
    n: int
    agreement: float


def family_agreement_sentence(cells: Sequence[FamilyAgreement]) -> str:
    """The pooled family agreements in words, each with its counts (instead of a mostly blank heatmap)."""
    parts = [f"{c.family_a} with {c.family_b} {c.agreement:.3f} over {c.n:,} calls "
             f"({c.judge_pairs} judge pair{'s' if c.judge_pairs != 1 else ''})"
             for c in sorted(cells, key=lambda c: -c.n)]
    within = {c.family_a for c in cells if c.family_a == c.family_b}
    alone = sorted(({c.family_a for c in cells} | {c.family_b for c in cells}) - within)
    text = "Agreement pooled by judge family: " + "; ".join(parts) + "."
    if alone:
        text += f" No within-family figure for {', '.join(alone)}: it needs two judges of the family."
    return text


@dataclass(frozen=True)
class DisagreementDistribution:
    """How many judges differ from the most common verdict, over calls every judge answered."""

    judges: int
    instances: int
    counts: dict[int, int]
    mean: float


@dataclass(frozen=True)
class AgreementResult:
    dataset_id: str
    studies: list[str]
    repetition: int | None
    judges: list[str]
    families: dict[str, str]
    pairs: list[JudgePairAgreement]
    ensemble_pairs: list[JudgePairAgreement]
    family_agreement: list[FamilyAgreement]
    disagreement: DisagreementDistribution
    instances: int
    ensemble_instances: int
    krippendorff_alpha: AgreementEstimate | None = None
    effective_judges: EffectiveJudges | None = None
    ensemble_rule: str = ENSEMBLE_RULE
    ensemble_comparison: str = LEAVE_ONE_OUT_RULE
    effective_judges_basis: str = EFFECTIVE_JUDGES_BASIS
    kappa_scope: str = ("Cohen's kappa over the calls both judges parsed (the calls the agreement counts), "
                        "without ties over those where neither said tie; intervals resample whole items")
    notes: list[str] = field(default_factory=list)

    def display_order(self) -> list[str]:
        """Judges grouped by family (then by name), so agreement that clusters by family shows as blocks."""
        return sorted(self.judges, key=lambda judge: (self.families.get(judge, ""), judge))

    def matrix(self, without_ties: bool = False, with_ensemble: bool = True, kappa: bool = False) -> pd.DataFrame:
        """Square judge x judge table of raw agreement, or Cohen's kappa (``kappa``), diagonal 1, judges grouped by
        family, ensemble (leave-one-out) last."""
        names = self.display_order() + ([ENSEMBLE_JUDGE] if with_ensemble else [])
        table = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
        for pair in self.pairs + (self.ensemble_pairs if with_ensemble else []):
            if kappa:
                estimate = pair.kappa_without_ties if without_ties else pair.kappa
                value = estimate.estimate if estimate is not None else float("nan")
            else:
                value = pair.agreement_without_ties if without_ties else pair.agreement
            table.loc[pair.a, pair.b] = table.loc[pair.b, pair.a] = value
        return table

    def counts_matrix(self, without_ties: bool = False) -> pd.DataFrame:
        """The number of shared instances behind each cell of :meth:`matrix`."""
        names = self.display_order() + [ENSEMBLE_JUDGE]
        table = pd.DataFrame(0, index=names, columns=names)
        for pair in self.pairs + self.ensemble_pairs:
            value = pair.n_without_ties if without_ties else pair.n
            table.loc[pair.a, pair.b] = table.loc[pair.b, pair.a] = value
        return table


def agreement_pairs_frame(result: AgreementResult) -> pd.DataFrame:
    """One row per judge pair (the leave-one-out ensemble rows last): raw agreement and Cohen's kappa with its
    interval, with and without ties, under readable column names."""
    rows = []
    for p in result.pairs + result.ensemble_pairs:
        row: dict[str, object] = {"judge A": p.a, "judge B": p.b, "calls both answered (n)": p.n,
                                  "agreement": p.agreement}
        for label, estimate in (("kappa", p.kappa), ("kappa without ties", p.kappa_without_ties)):
            if estimate is not None:
                row.update({label: estimate.estimate, f"{label} low": estimate.low,
                            f"{label} high": estimate.high})
        row.update({"calls without ties (n)": p.n_without_ties, "agreement without ties": p.agreement_without_ties})
        if p.without_majority is not None:
            row["no majority among the others"] = p.without_majority
        rows.append(row)
    return pd.DataFrame(rows)


def label_judges(calls: pd.DataFrame) -> pd.Series:
    """A judge's name, or 'name [study]' when the same judge appears in several of the chosen studies."""
    studies_per_judge = calls.groupby("judge")["study"].transform("nunique")
    return calls["judge"].where(studies_per_judge == 1, calls["judge"] + " [" + calls["study"] + "]")


def verdict_table(calls: pd.DataFrame) -> pd.DataFrame:
    """Instances as rows, judges as columns, parsed verdicts as values (NaN: not answered or not parsed)."""
    labelled = calls.assign(judge=label_judges(calls)).drop_duplicates([*INSTANCE_KEY, "judge"])
    return labelled.pivot(index=INSTANCE_KEY, columns="judge", values="verdict")


def majority_vote(table: pd.DataFrame) -> pd.Series:
    """The plurality verdict of each row; NaN when the top count is shared or nothing parsed."""
    counts = pd.DataFrame({verdict: (table == verdict).sum(axis=1) for verdict in VERDICTS})
    top = counts.max(axis=1)
    unique_top = counts.eq(top, axis=0).sum(axis=1) == 1
    return counts.idxmax(axis=1).where(unique_top & (top > 0))


def _agreement(first: pd.Series, second: pd.Series, a: str, b: str) -> JudgePairAgreement:
    both = first.notna() & second.notna()
    same = (first == second) & both
    no_tie = both & (first != "C") & (second != "C")
    n, n_no_tie = int(both.sum()), int(no_tie.sum())
    return JudgePairAgreement(
        a=a, b=b, n=n, agreement=float(same.sum() / n) if n else float("nan"),
        n_without_ties=n_no_tie,
        agreement_without_ties=float((same & no_tie).sum() / n_no_tie) if n_no_tie else float("nan"),
    )


def pairwise_agreements(table: pd.DataFrame) -> list[JudgePairAgreement]:
    """Agreement of every pair of judges (columns of ``table``), in column order."""
    return [_agreement(table[a], table[b], a, b) for a, b in itertools.combinations(table.columns, 2)]


def disagreement_distribution(table: pd.DataFrame) -> DisagreementDistribution:
    """Per call answered by every judge: judges whose verdict differs from the most common one."""
    complete = table.dropna()
    if complete.empty:
        return DisagreementDistribution(judges=table.shape[1], instances=0, counts={}, mean=float("nan"))
    top = pd.DataFrame({verdict: (complete == verdict).sum(axis=1) for verdict in VERDICTS}).max(axis=1)
    differing = complete.shape[1] - top
    counts = differing.value_counts().sort_index()
    return DisagreementDistribution(
        judges=complete.shape[1], instances=len(complete),
        counts={int(k): int(v) for k, v in counts.items()}, mean=float(differing.mean()),
    )


def family_agreements(pairs: list[JudgePairAgreement], families: dict[str, str]) -> list[FamilyAgreement]:
    """Pool pair agreement counts by the two judges' families (ratio of sums)."""
    if not pairs:
        return []
    frame = pd.DataFrame([{"a": p.a, "b": p.b, "n": p.n, "same": p.agreement * p.n if p.n else 0.0} for p in pairs])
    fam_a, fam_b = frame["a"].map(families), frame["b"].map(families)
    frame["family_a"] = np.where(fam_a <= fam_b, fam_a, fam_b)
    frame["family_b"] = np.where(fam_a <= fam_b, fam_b, fam_a)
    pooled = frame.groupby(["family_a", "family_b"]).agg(judge_pairs=("n", "size"), n=("n", "sum"),
                                                          same=("same", "sum")).reset_index()
    return [
        FamilyAgreement(r.family_a, r.family_b, int(r.judge_pairs), int(r.n),
                        float(r.same / r.n) if r.n else float("nan"))
        for r in pooled.itertuples()
    ]


def families_for(judges: list[str], known: dict[str, str]) -> dict[str, str]:
    """Each judge label's family: the judges table's (``known``), else from the name (``name [study]`` labels
    use the name)."""
    plain = {judge: judge.split(" [")[0] for judge in judges}
    return {judge: known.get(name) or model_family(name) for judge, name in plain.items()}


TIE_CODE = VERDICTS.index("C") + 1  # codes from verdict_code_matrix: 0 missing, 1..3 for A, B, C


def _code_majority(codes: np.ndarray) -> np.ndarray:
    """:func:`majority_vote` on a code matrix: the plurality code of each row, 0 when shared or nothing parsed."""
    counts = np.stack([(codes == code).sum(axis=1) for code in range(1, len(VERDICTS) + 1)], axis=1)
    top = counts.max(axis=1)
    unique_top = (counts == top[:, None]).sum(axis=1) == 1
    return np.where(unique_top & (top > 0), counts.argmax(axis=1) + 1, 0).astype(np.int8)


def _code_agreement(first: np.ndarray, second: np.ndarray, a: str, b: str,
                    items: np.ndarray | None = None) -> JudgePairAgreement:
    """:func:`_agreement` on two code columns (0: no parsed verdict); with ``items`` (each row's item), Cohen's
    kappa over the same calls with item-bootstrap intervals."""
    both = (first > 0) & (second > 0)
    same = (first == second) & both
    no_tie = both & (first != TIE_CODE) & (second != TIE_CODE)
    n, n_no_tie = int(both.sum()), int(no_tie.sum())
    kappa = kappa_no_tie = None
    if items is not None:
        kappa = cohens_kappa(first[both].tolist(), second[both].tolist(), items[both].tolist())
        kappa_no_tie = cohens_kappa(first[no_tie].tolist(), second[no_tie].tolist(), items[no_tie].tolist())
    return JudgePairAgreement(
        a=a, b=b, n=n, agreement=float(same.sum() / n) if n else float("nan"),
        n_without_ties=n_no_tie,
        agreement_without_ties=float((same & no_tie).sum() / n_no_tie) if n_no_tie else float("nan"),
        kappa=kappa, kappa_without_ties=kappa_no_tie,
    )


def _leave_one_out_agreements(judges: list[str], codes: np.ndarray,
                              items: np.ndarray | None) -> list[JudgePairAgreement]:
    """Each judge against the majority vote of the other judges, with the share of its parsed calls on which the
    others have no majority."""
    rows = []
    for i, judge in enumerate(judges):
        others = _code_majority(np.delete(codes, i, axis=1)) if len(judges) > 1 else np.zeros(len(codes), np.int8)
        pair = _code_agreement(codes[:, i], others, judge, ENSEMBLE_JUDGE, items)
        parsed = codes[:, i] > 0
        share = float((others[parsed] == 0).mean()) if parsed.any() else float("nan")
        rows.append(JudgePairAgreement(**{**pair.__dict__, "without_majority": share}))
    return rows


def _verdict_scores(codes: np.ndarray, judges: list[str]) -> pd.DataFrame:
    """Verdict codes as scores for the first answer (A 1, tie 1/2, B 0; anything else missing)."""
    scores = np.full(codes.shape, np.nan)
    for code, score in ((1, 1.0), (2, 0.0), (TIE_CODE, 0.5)):
        scores[codes == code] = score
    return pd.DataFrame(scores, columns=judges)


def _code_disagreement(codes: np.ndarray) -> DisagreementDistribution:
    """:func:`disagreement_distribution` on a code matrix."""
    complete = codes[(codes > 0).all(axis=1)]
    if len(complete) == 0:
        return DisagreementDistribution(judges=codes.shape[1], instances=0, counts={}, mean=float("nan"))
    top = np.stack([(complete == code).sum(axis=1) for code in range(1, len(VERDICTS) + 1)], axis=1).max(axis=1)
    differing = complete.shape[1] - top
    values, counts = np.unique(differing, return_counts=True)
    return DisagreementDistribution(
        judges=complete.shape[1], instances=len(complete),
        counts={int(k): int(v) for k, v in zip(values, counts, strict=True)}, mean=float(differing.mean()),
    )


def check_studies(studies: list[str]) -> None:
    if not studies:
        raise InvalidArgument("choose at least one study")


def agreement_from_codes(judges: list[str], codes: np.ndarray, families: dict[str, str], dataset_id: str,
                         studies: list[str], repetition: int | None = None,
                         items: np.ndarray | None = None) -> AgreementResult:
    """Agreement of every pair of judges, each judge against the majority of the others, and per-call
    disagreement, from the verdict code matrix (``verdict_code_matrix``: one row per call, one column per judge;
    0 missing, 1..3 for A, B, C). With ``items`` (each row's item id): Cohen's kappa per pair, Krippendorff's alpha
    across all judges (nominal) with item-bootstrap intervals, and the effective number of judges."""
    notes = []
    if len(judges) < 2:
        notes.append("only one judge in the chosen studies: agreement needs two")
    if len(judges) == 2:
        notes.append("two judges: the majority of the other judges is the other judge, so each ensemble row "
                     "repeats the pair's agreement")
    ensemble = _code_majority(codes)
    pairs = [_code_agreement(codes[:, i], codes[:, j], judges[i], judges[j], items)
             for i, j in itertools.combinations(range(len(judges)), 2)]
    alpha = effective = None
    if items is not None:
        alpha = krippendorff_alpha(np.where(codes > 0, codes, np.nan).astype(np.float64), "nominal", items.tolist())
        effective = effective_judges(_verdict_scores(codes, judges))
    return AgreementResult(
        dataset_id=dataset_id, studies=list(studies), repetition=repetition, judges=judges, families=families,
        pairs=pairs, ensemble_pairs=_leave_one_out_agreements(judges, codes, items),
        family_agreement=family_agreements(pairs, families),
        disagreement=_code_disagreement(codes), instances=len(codes),
        ensemble_instances=int((ensemble > 0).sum()), krippendorff_alpha=alpha, effective_judges=effective,
        notes=notes,
    )


def disagreeing_calls_from_calls(calls: pd.DataFrame, minimum_differing: int = 1) -> pd.DataFrame:
    """Calls (``pairwise_calls`` rows) on which at least ``minimum_differing`` judges differ from the majority,
    most disputed first."""
    table = verdict_table(calls)
    answered = table.notna().sum(axis=1)
    top = pd.DataFrame({verdict: (table == verdict).sum(axis=1) for verdict in VERDICTS}).max(axis=1)
    frame = table.assign(**{ENSEMBLE_JUDGE: majority_vote(table), "judges answering": answered,
                            "differing from majority": answered - top})
    frame = frame[frame["differing from majority"] >= minimum_differing]
    return frame.sort_values("differing from majority", ascending=False, kind="stable").reset_index()


def classify_pairs(calls: pd.DataFrame) -> pd.DataFrame:
    """Pair each original-order call with its mirror and classify it, as the store does for ``pair_outcomes``."""
    original = calls[calls["order_label"] == "original"]
    swapped = calls[calls["order_label"] == "swapped"].rename(
        columns={"first_candidate": "second_candidate", "second_candidate": "first_candidate",
                 "verdict": "verdict_swapped"})
    pairs = original.merge(swapped[[*INSTANCE_KEY, "judge", "study", "verdict_swapped"]],
                           on=[*INSTANCE_KEY, "judge", "study"])
    first, second = pairs["verdict"], pairs["verdict_swapped"]
    failed = ~first.isin(VERDICTS) | ~second.isin(VERDICTS)
    consistent = (((first == "A") & (second == "B")) | ((first == "B") & (second == "A"))
                  | ((first == "C") & (second == "C")))
    primacy = (first == "A") | ((first == "C") & (second == "A"))
    classification = np.select([failed, consistent, primacy], ["failed", "consistent", "primacy"], "recency")
    winner = np.select(
        [failed, (first == "A") & (second == "B"), (first == "B") & (second == "A"), (first == "C") & (second == "C")],
        [None, pairs["first_candidate"], pairs["second_candidate"], "tie"], np.array(None))
    return pd.DataFrame({
        "judge": pairs["judge"], "study": pairs["study"], "repetition": pairs["repetition"],
        "item_id": pairs["item_id"], "task": pairs["task"], "candidate": pairs["second_candidate"],
        "opponent": pairs["first_candidate"], "verdict_original": first, "verdict_swapped": second,
        "classification": classification, "winner": winner,
    })


def ensemble_calls(calls: pd.DataFrame) -> pd.DataFrame:
    """The majority-vote ensemble as a judge of its own: one call per instance, verdict NaN without a majority."""
    table = verdict_table(calls)
    keys = calls.groupby(INSTANCE_KEY, as_index=False).agg(task=("task", "first"), order_label=("order_label", "first"))
    votes = majority_vote(table).rename("verdict").reset_index()
    studies = "+".join(sorted(calls["study"].unique()))
    return keys.merge(votes, on=INSTANCE_KEY).assign(judge=ENSEMBLE_JUDGE, study=studies)


def no_outcomes_error(dataset_id: str, studies: list[str], judge: str) -> InvalidArgument:
    """What :func:`load_outcomes` raises for a judge without a classified pair."""
    return InvalidArgument(f"judge {judge!r} has no classified pair on {dataset_id!r} in studies {studies}")
