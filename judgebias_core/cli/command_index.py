"""Every CLI command's group, name, module and help, so the parser can list commands without importing them.

A command module pulls in what its handlers need (pandas, scipy, statsmodels, the engine): importing only the
module of the command being run keeps ``--help`` and argument errors cheap. tests/test_cli_startup.py checks this
table against what the modules register.
"""

from __future__ import annotations

from typing import NamedTuple


class IndexedCommand(NamedTuple):
    group: str  # root | metrics | export
    name: str
    module: str  # in judgebias_core.cli
    help: str


COMMAND_INDEX: tuple[IndexedCommand, ...] = tuple(IndexedCommand(*row) for row in (
    ("root", "import-bundled", "data_commands", "load the bundled real datasets into the store (idempotent)"),
    ("root", "datasets", "data_commands", "list the datasets in the store with their counts"),
    ("root", "runs", "data_commands", "list runs with status, counts and cost"),
    ("root", "check-store", "data_commands", "check the store file: every table read back (DuckDB verifies each block's checksum), "
     "schema version, tables, unique primary keys, pair outcomes against their calls; exit 2 on any problem"),
    ("root", "upload", "upload_commands",
     "upload items, pairs, judge logs or rubrics from a file (all rows valid or nothing written)"),
    ("metrics", "pairwise", "pairwise_commands",
     "swap consistency per (dataset, study, judge, repetition): PC, flip rate with its item-clustered "
     "decision interval and Wilson (pairs assumed independent), direction with the clustered position test "
     "(corrected over the rows printed), preference fairness raw and Shi-scaled, excess over the repetition floor"),
    ("metrics", "pairwise-compare", "pairwise_commands",
     "two judges' flip rates on the pairs both classified: the difference with its paired cluster-robust t interval "
     "and test"),
    ("metrics", "repetition", "pairwise_commands",
     "repetition stability and repetition floor per (dataset, study, judge) with repetitions"),
    ("metrics", "listwise", "pairwise_commands",
     "list-wise consistency and first-slot share per (dataset, study, judge, repetition, p)"),
    ("root", "gate", "pairwise_commands",
     "exit 1 when a judge's flip-rate upper bound (one-sided 97.5%%, the top of the two-sided 95%% interval; "
     "item-clustered by default) exceeds a threshold or is too close to it to call with the resamples drawn (0 when "
     "it is clearly below, 2 when the dataset or judge is unknown)"),
    ("metrics", "rubric", "rubric_commands",
     "rubric position bias of a run: position shares, P(position | score), Bias Cost, correlations"),
    ("export", "trials", "rubric_commands", "export every judge call of a run (CSV, JSON Lines, Parquet)"),
    ("metrics", "calibration", "judges_commands",
     "a judge against human labels: confusion, Cohen's kappa, correlations"),
    ("metrics", "agreement", "judges_commands",
     "agreement of every pair of judges on the same judge calls, with and without ties"),
    ("metrics", "ppi", "judges_commands",
     "prediction-powered estimate from judge calls plus a fraction of human labels: a candidate's human win rate "
     "(pairwise) or the human mean score (rubric)"),
    ("metrics", "verbosity", "judges_commands",
     "does a judge prefer the longer answer (swap pairs): longer-answer share by length bin and a logistic slope, "
     "item-clustered, Holm-corrected over the judges"),
    ("metrics", "leaderboard", "judges_commands",
     "candidates ranked by win rate and Bradley-Terry strength, with ranking-safety flags"),
    ("root", "analysis", "stepwise_commands", "model-based analyses of the stored judgments"),
    ("root", "run", "run_commands", "launch a judge run (the same --run-id resumes it)"),
    ("root", "adopt-run-folder", "run_commands", "let this store replay a run folder written for another store"),
    ("root", "plan", "plan_commands",
     "plan a pairwise swap study: expected and 80%%-assured interval width, items for a target width, cost"),
    ("root", "scorecard", "scorecard_commands",
     "which judge to use: every judge configuration of a pairwise dataset (or dataset group) with accuracy against "
     "the labels, flip rate, first-slot lean, longer-answer share, failures, cost, the paired difference from the "
     "best row and a recommendation"),
    ("root", "report", "report_commands",
     "write one self-contained HTML report of a dataset (opens offline in any browser)"),
    ("export", "runs", "transfer_commands",
     "export runs' judge calls (with run, prompt template, judge and dataset references) as Parquet"),
    ("root", "import-runs", "transfer_commands",
     "import runs exported as Parquet (a file or a folder of them); idempotent"),
))
