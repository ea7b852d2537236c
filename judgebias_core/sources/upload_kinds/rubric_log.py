"""Judge log, rubric trials: one trial per row on a pointwise dataset (the ordering of the rubric's scores shown,
the reply or its score), stored as one run."""

from __future__ import annotations

from judgebias_core.sources.upload_kind import UploadKind, UploadOption, log_check_and_build, log_options
from judgebias_core.sources.upload_log_checks import check_rubric_log
from judgebias_core.sources.upload_mapping import JUDGE, LOG_ITEM_ID, PROMPT_SHOWN, RAW_OUTPUT, REPETITION, FieldSpec
from judgebias_core.sources.upload_records import rubric_log_batch
from judgebias_core.sources.upload_validate import RubricTrialRow

PARSERS = ("prometheus", "json-score")

UPLOAD_KIND = UploadKind(
    name="rubric-log",
    label="Judge log: rubric trials",
    fields=(
        LOG_ITEM_ID,
        JUDGE,
        FieldSpec("ordering", "Ordering shown", True, ("ordering", "order", "permutation", "score_order",
                                                        "option_order"),
                  'The scores in position order as shown: a JSON list [3,4,5,1,2] or "3,4,5,1,2".'),
        RAW_OUTPUT,
        FieldSpec("score", "Parsed score", False, ("score", "rating", "grade", "judge_score")),
        REPETITION, PROMPT_SHOWN,
    ),
    row_model=RubricTrialRow,
    dataset_kind="pointwise",
    creates_dataset=False,
    check_and_build=log_check_and_build(check_rubric_log, rubric_log_batch),
    preview_table="judge_calls",
    outcome="score",
    parsers=PARSERS,
    reads_levels=True,
    options=(
        *log_options("score", PARSERS),
        UploadOption("--rubric", "rubric id for every trial (default: each item's own rubric)",
                     to_settings=lambda rubric: {"rubric_id": rubric}),
    ),
    settings=("judge", "parser", "rubric_id"),
    analysis_protocol="rubric-permutation",
)
