"""The prediction-powered mean score block of the Calibration page (rubric runs; issue 14): what the judge's
scores are worth as a stand-in for human labels. It reads through ``analyses.calibration.prediction_powered_score``
and draws only; the pairwise win-rate block stays on the page."""

from __future__ import annotations

import streamlit as st

from judgebias_core.analyses.calibration import (
    FEW_LABELS,
    PredictionPoweredMeanScore,
    PredictionPoweredWinRate,
    default_label_fraction,
    labels_worth_sentence,
    prediction_powered_score,
)
from judgebias_core.charts.calibration import ppi_forest
from ui.share import chart_downloads, escape_markdown
from ui.state import load_or_stop
from ui.tables import show_table


def ppi_score_block(dataset: str, judge: str, scope: str | None, items: int) -> None:
    """Share slider and seed, the three estimates with intervals and counts, and a reading of their widths for
    the judge's runs in ``scope`` (None: every run) on ``items`` labelled items."""
    st.subheader("What the judge's scores are worth: prediction-powered mean score")
    st.caption("Suppose only a random share of the items had a human score. Prediction-powered inference "
               "(Angelopoulos et al. 2023, power-tuned as PPI++) combines the judge's scores on every item with those "
               "labels into an estimate of the human mean score whose interval stays valid however biased the judge "
               "is; it is shown next to the labels alone (human-only) and the judge's own mean (not an estimate of "
               "the human one). This dataset is labelled throughout, so the dotted line shows what every label "
               "gives.")
    left, right = st.columns(2)
    share = left.slider("Share of items with a human score kept", 0.05, 0.5, default_label_fraction(items), 0.01,
                        key="cal_ppi_score_share",
                        help=f"Below {FEW_LABELS} labelled items the result carries a caution: its interval rests on few "
                        "independent units and can cover less often than 95%.")
    seed = right.number_input("Seed of the labelled sample", min_value=0, value=0, step=1, key="cal_ppi_score_seed")
    ppi = load_or_stop(prediction_powered_score, dataset, judge, None, scope, float(share), int(seed))
    ppi_estimates(ppi, f"ppi-score-{dataset}-{judge}", "cal-ppi-score", judge)
    e = ppi.estimate
    if ppi.caveat:
        st.warning(f"Caution: {ppi.caveat}.")
    st.info(labels_worth_sentence(e))
    raters = str(ppi.raters_min) if ppi.raters_min == ppi.raters_max else f"{ppi.raters_min} to {ppi.raters_max}"
    st.caption(f"Rubric {escape_markdown(ppi.rubric_id)} · runs {escape_markdown(', '.join(ppi.runs))}. "
               f"{ppi.labelled:,} of {ppi.items:,} items keep their {ppi.label_source} score ({ppi.sampling}). "
               f"Units are items: the judge's {ppi.calls:,} parsed calls are averaged per item"
               f"{f' ({ppi.unparsed_calls:,} unparsed left out)' if ppi.unparsed_calls else ''}, and the "
               f"{raters} raters' scores of an item are averaged into its label. PPI++ tuning {e.tuning:.2f} (0: the "
               f"judge adds nothing, 1: full trust in its rectified scores); interval: {e.interval}. All labels give "
               f"{ppi.all_labels_human_mean:.3f}.")


def ppi_estimates(ppi: PredictionPoweredWinRate | PredictionPoweredMeanScore, name: str, key: str,
                  judge: str) -> None:
    """The forest of the three estimates (with its downloads) and their table: value, 95% bounds, items, meaning."""
    figure = ppi_forest(ppi, judges=[judge])
    st.plotly_chart(figure, width="stretch", key=key)
    chart_downloads(figure, name, key=key)
    value = "mean score" if isinstance(ppi, PredictionPoweredMeanScore) else "win rate"
    e = ppi.estimate
    show_table([{"estimate": label, value: row.estimate, "95% low": row.low, "95% high": row.high,
                 "items (n)": row.n, "what it is": row.label}
                for label, row in (("prediction-powered", e.ppi), ("human labels only", e.human_only),
                                   ("judge only", e.judge_only))],
               column_config={c: st.column_config.NumberColumn(format="%.3f") for c in (value, "95% low", "95% high")})
