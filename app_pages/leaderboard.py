"""Leaderboard: candidates ranked by win rate and Bradley-Terry strength, flagged where position could decide."""

from __future__ import annotations

import streamlit as st

from judgebias_core.analyses.leaderboard_view import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    leaderboard_judges,
    leaderboard_view,
)
from judgebias_core.charts.judges import leaderboard_forest
from ui.judge_scope import pick_pairwise_dataset, pick_study
from ui.share import (
    chart_downloads,
    escape_markdown,
    explain,
    permalink_hint,
    report_button,
    synced_selectbox,
    table_downloads,
)
from ui.state import load_or_stop
from ui.tables import show_table
from ui.verdict import verdict_block

COLUMNS = {"rank_win_rate": "rank", "candidate": "candidate", "pairs": "pairs (n)", "wins": "wins",
           "ties": "ties or inconsistent", "losses": "losses", "win_rate": "win rate",
           "win_rate_ci_low": "win rate low", "win_rate_ci_high": "win rate high", "strength": "BT strength",
           "strength_ci_low": "BT low", "strength_ci_high": "BT high", "rank_strength": "BT rank",
           "gap_to_next": "gap to next", "rank_first_slot": "rank shown first",
           "rank_second_slot": "rank shown second", "order_holds_share": "order holds (share of resamples)",
           "order_holds_call": "order holds in 95%?",
           "order_changes_with_presentation": "order changes with slot",
           "position_artefact": "order with next unsure", "unsure_reason": "why unsure", "is_reference": "reference"}

st.title("Leaderboard")
st.caption("Candidates ranked by one judge's verdicts on swap pairs. A pair whose verdict changes with the order "
           "counts as a tie, so a position-biased judge cannot hand out wins by slot.")
top = st.columns(3)
dataset, studies_frame = pick_pairwise_dataset(top[0], key="lb_dataset")
study, _ = pick_study(top[1], studies_frame, key="lb_study")
with top[2]:  # the judge with the most readable verdicts first, so the page opens on the best-supported board
    judge = synced_selectbox("Judge", load_or_stop(leaderboard_judges, dataset, study), key="lb_judge",
                             help="Ordered by readable verdicts in this study, most first.")
with st.expander("Bootstrap settings"):
    left, right = st.columns(2)
    resamples = left.number_input("Resamples", min_value=100, max_value=20_000, value=DEFAULT_RESAMPLES, step=100)
    seed = right.number_input("Seed", min_value=0, value=DEFAULT_SEED, step=1)
permalink_hint()

view = load_or_stop(leaderboard_view, dataset, [study], judge, int(resamples), int(seed))
board = view.board
if view.simulated_notice:
    st.warning(escape_markdown(view.simulated_notice), icon=":material/science:")
verdict_block([view.verdict])

cols = st.columns(4)
frame = board.candidates_frame()
cols[0].metric("Candidates", len(frame))
cols[1].metric("Classified pairs (n)", f"{board.pairs:,}")
cols[2].metric("Items", f"{board.items:,}")
cols[3].metric("Flip rate, upper bound", f"{board.flip_rate_clustered_high:.3f}",
               help="The top of the two-sided 95% interval: a one-sided 97.5% upper bound.")
cols[3].caption(f"flip rate {board.flip_rate:.3f} over {board.pairs:,} pairs ({board.flip_bound_method})")
st.caption(f"Dataset {escape_markdown(dataset)} · study {escape_markdown(study)} · judge {escape_markdown(judge)} · "
           f"{board.failed_pairs:,} pairs with a parse failure left out · bootstrap over items, {board.resamples:,} "
           f"resamples, seed {board.seed} · reference (strength 0): {escape_markdown(board.reference)}, the candidate "
           "in the most classified pairs (ties broken by name).")
if board.baseline_design:
    st.caption(f"Every pair includes the reference candidate {escape_markdown(board.reference)}, so each win rate is "
               "against it and the Bradley-Terry strength is the log-odds of beating it. It is left out of its own "
               "leaderboard (its win rate is 1/2 by definition); the ranks count the other candidates.")
st.caption(f"Bradley-Terry strengths: ridge-penalised maximum likelihood (penalty {board.ridge} x the sum of "
           "squared strengths), the same fit for the estimate and every bootstrap resample "
           f"({board.converged_resamples:,} of {board.resamples:,} resamples converged). Tie rule: a consistent tie "
           "or a pair whose verdict changed with the order counts half a win for each side.")
for note in (view.small_sample_note, view.separation_note):
    if note:
        st.warning(escape_markdown(note))

report_button(dataset, view.report_judges, key="lb-report")

explain("ranking_safety")
st.caption("What the flag fires on: a candidate is marked when its order with the **next one down** is unsure, for "
           "either of two reasons. (1) Position: ranked from the calls with each candidate shown first alone, or "
           "shown second alone, the two change places. (2) Items: over bootstrap resamples of the items (all pairs "
           "of an item drawn together) their order is not shown to hold in at least 95% of resamples (it holds in "
           "fewer, or is too close to call within the Monte Carlo error), so the items cannot separate them. Each pair is checked on its own; the count established after Holm's correction over "
           "all neighbour pairs is given apart.")
if board.flagged_pairs:
    st.warning(escape_markdown(view.safety_note))
else:
    st.success(escape_markdown(view.safety_note))
if view.top_two_note:
    st.caption(escape_markdown(view.top_two_note))

frame = frame[list(COLUMNS)].rename(columns=COLUMNS)
show_table(frame,
           column_config={c: st.column_config.NumberColumn(format="%.3f") for c in
                          ("win rate", "win rate low", "win rate high", "BT strength", "BT low", "BT high",
                           "order holds (share of resamples)",
                           "gap to next")})
table_downloads(frame, f"leaderboard-{dataset}-{study}-{judge}", key="lb-table", judges=[judge])

win_tab, bt_tab = st.tabs(["By win rate", "By Bradley-Terry strength"])
with win_tab:
    explain("overall_win_rate")
    figure = leaderboard_forest(board, "win_rate")
    st.plotly_chart(figure, width="stretch")
    chart_downloads(figure, f"leaderboard-win-rate-{dataset}-{study}", key="lb-win")
with bt_tab:
    explain("bradley_terry")
    figure = leaderboard_forest(board, "strength")
    st.plotly_chart(figure, width="stretch")
    chart_downloads(figure, f"leaderboard-strength-{dataset}-{study}", key="lb-bt")
