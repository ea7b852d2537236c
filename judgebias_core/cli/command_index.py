"""The built-in CLI commands: one ``Command`` record each (cli/commands.py), the only list of them.

A command's help is written here only: ``--help`` lists every command from these records without importing the
command modules, which pull in what their handlers need (pandas, scipy, statsmodels, the engine); the module named
in ``arguments`` is imported only for the command being run. Registration order is the order ``--help`` lists them.
A new command is its ``*_arguments`` function in a command module plus one record here (or ``COMMANDS.register``).
"""

from __future__ import annotations

from judgebias_core.cli.commands import Command

BUILT_IN_COMMANDS: tuple[Command, ...] = (
    Command("import-bundled", "judgebias_core.cli.data_commands:import_bundled_arguments",
     "load the bundled real datasets into the store (idempotent)"),
    Command("datasets", "judgebias_core.cli.data_commands:datasets_arguments",
     "list the datasets in the store with their counts"),
    Command("runs", "judgebias_core.cli.data_commands:runs_arguments", "list runs with status, counts and cost"),
    Command("check-store", "judgebias_core.cli.data_commands:check_store_arguments",
     "check the store file: every table read back (DuckDB verifies each block's checksum), "
     "schema version, tables, unique primary keys, pair outcomes against their calls; exit 2 on any problem"),
    Command("upload", "judgebias_core.cli.upload_commands:upload_arguments",
     "upload items, pairs, judge logs or rubrics from a file (all rows valid or nothing written)"),
    Command("metrics pairwise", "judgebias_core.cli.pairwise_commands:metrics_pairwise_arguments",
     "swap consistency per (dataset, study, judge, repetition): PC, flip rate with its item-clustered "
     "decision interval and Wilson (pairs assumed independent), direction with the clustered position test "
     "(corrected over the rows printed), preference fairness raw and Shi-scaled, excess over the repetition floor"),
    Command("metrics pairwise-compare", "judgebias_core.cli.pairwise_commands:metrics_pairwise_compare_arguments",
     "two judges' flip rates on the pairs both classified: the difference with its paired cluster-robust t interval "
     "and test"),
    Command("metrics repetition", "judgebias_core.cli.pairwise_commands:metrics_repetition_arguments",
     "repetition stability and repetition floor per (dataset, study, judge) with repetitions"),
    Command("metrics listwise", "judgebias_core.cli.pairwise_commands:metrics_listwise_arguments",
     "list-wise consistency and first-slot share per (dataset, study, judge, repetition, p)"),
    Command("gate", "judgebias_core.cli.pairwise_commands:gate_arguments",
     "exit 1 when a judge's flip-rate upper bound (one-sided 97.5%%, the top of the two-sided 95%% interval; "
     "item-clustered by default) exceeds a threshold or is too close to it to call with the resamples drawn (0 when "
     "it is clearly below, 2 when the dataset or judge is unknown)"),
    Command("metrics rubric", "judgebias_core.cli.rubric_commands:metrics_rubric_arguments",
     "rubric position bias of a run: position shares, P(position | score), Bias Cost, correlations"),
    Command("export trials", "judgebias_core.cli.rubric_commands:export_trials_arguments",
     "export every judge call of a run (CSV, JSON Lines, Parquet)"),
    Command("metrics calibration", "judgebias_core.cli.judges_commands:metrics_calibration_arguments",
     "a judge against human labels: confusion, Cohen's kappa, correlations"),
    Command("metrics agreement", "judgebias_core.cli.judges_commands:metrics_agreement_arguments",
     "agreement of every pair of judges on the same judge calls, with and without ties"),
    Command("metrics ppi", "judgebias_core.cli.judges_commands:metrics_ppi_arguments",
     "prediction-powered estimate from judge calls plus a fraction of human labels: a candidate's human win rate "
     "(pairwise) or the human mean score (rubric)"),
    Command("metrics verbosity", "judgebias_core.cli.judges_commands:metrics_verbosity_arguments",
     "does a judge prefer the longer answer (swap pairs): longer-answer share by length bin and a logistic slope, "
     "item-clustered, Holm-corrected over the judges"),
    Command("metrics leaderboard", "judgebias_core.cli.judges_commands:metrics_leaderboard_arguments",
     "candidates ranked by win rate and Bradley-Terry strength, with ranking-safety flags"),
    Command("analysis", "judgebias_core.cli.stepwise_commands:analysis_arguments",
     "model-based analyses of the stored judgments"),
    Command("run", "judgebias_core.cli.run_commands:run_arguments",
     "launch a judge run (the same --run-id resumes it)"),
    Command("adopt-run-folder", "judgebias_core.cli.run_commands:adopt_run_folder_arguments",
     "let this store replay a run folder written for another store"),
    Command("plan", "judgebias_core.cli.plan_commands:plan_arguments",
     "plan a pairwise swap study: expected and 80%%-assured interval width, items for a target width, cost"),
    Command("scorecard", "judgebias_core.cli.scorecard_commands:scorecard_arguments",
     "which judge to use: every judge configuration of a pairwise dataset (or dataset group) with accuracy against "
     "the labels, flip rate, first-slot lean, longer-answer share, failures, cost, the paired difference from the "
     "best row and a recommendation"),
    Command("report", "judgebias_core.cli.report_commands:report_arguments",
     "write one self-contained HTML report of a dataset (opens offline in any browser)"),
    Command("export runs", "judgebias_core.cli.transfer_commands:export_runs_arguments",
     "export runs' judge calls (with run, prompt template, judge and dataset references) as Parquet"),
    Command("import-runs", "judgebias_core.cli.transfer_commands:import_runs_arguments",
     "import runs exported as Parquet (a file or a folder of them); idempotent"),
)
