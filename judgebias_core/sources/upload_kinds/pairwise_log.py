"""Judge log, pairwise calls: one judge call per row on a pairwise dataset (the candidates in both slots, the reply
or its verdict), stored as one run whose pairs are classified like an engine run's."""

from __future__ import annotations

from judgebias_core.sources.upload_kind import UploadKind, UploadOption, log_check_and_build, log_options
from judgebias_core.sources.upload_log_checks import check_pairwise_log
from judgebias_core.sources.upload_mapping import JUDGE, LOG_ITEM_ID, PROMPT_SHOWN, RAW_OUTPUT, REPETITION, FieldSpec
from judgebias_core.sources.upload_records import pairwise_log_batch
from judgebias_core.sources.upload_validate import PairCallRow

PARSERS = ("mtbench", "devbench", "json")

UPLOAD_KIND = UploadKind(
    name="pairwise-log",
    label="Judge log: pairwise calls",
    fields=(
        LOG_ITEM_ID,
        FieldSpec("first_candidate", "Candidate in the first slot", True,
                  ("first_candidate", "first", "model_a", "candidate_a", "slot_a", "position_a", "first_model")),
        FieldSpec("second_candidate", "Candidate in the second slot", True,
                  ("second_candidate", "second", "model_b", "candidate_b", "slot_b", "position_b", "second_model")),
        JUDGE, RAW_OUTPUT,
        FieldSpec("verdict", "Parsed verdict", False, ("verdict", "decision", "winner", "choice", "result"),
                  "A / B / C (tie), or first / second / tie, relative to the slots."),
        REPETITION, PROMPT_SHOWN,
    ),
    row_model=PairCallRow,
    dataset_kind="pairwise",
    creates_dataset=False,
    check_and_build=log_check_and_build(check_pairwise_log, pairwise_log_batch),
    preview_table="judge_calls",
    outcome="verdict",
    parsers=PARSERS,
    options=(
        *log_options("verdict", PARSERS),
        UploadOption("--options", "3 if the judge could answer tie (C), 2 if not",
                     {"type": int, "choices": (2, 3), "default": 3}),
        UploadOption("--original-first",
                     "the call with CANDIDATE in the first slot is a pair's original order (default: the dataset's "
                     "baseline); pairs without it take the order seen first in the file as original",
                     {"metavar": "CANDIDATE"}),
    ),
    settings=("judge", "parser", "options", "original_first"),
    analysis_protocol="pairwise-swap",
    order_note="Order: the call with the original-order candidate (default: the dataset's baseline) in the first "
               "slot is 'original', its mirror 'swapped'; pairs without it take the order seen first in the file.",
)
