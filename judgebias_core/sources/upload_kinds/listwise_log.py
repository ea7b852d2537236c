"""Judge log, list-wise calls: one pick among 3 or more candidates in slot order per row, on a pairwise dataset,
stored as one run."""

from __future__ import annotations

from judgebias_core.sources.upload_kind import UploadKind, UploadOption, log_check_and_build, log_options
from judgebias_core.sources.upload_listwise_checks import check_listwise_log
from judgebias_core.sources.upload_mapping import JUDGE, LOG_ITEM_ID, PROMPT_SHOWN, RAW_OUTPUT, REPETITION, FieldSpec
from judgebias_core.sources.upload_records import listwise_log_batch
from judgebias_core.sources.upload_validate import ListwiseCallRow

PARSERS = ("listwise",)

UPLOAD_KIND = UploadKind(
    name="listwise-log",
    label="Judge log: list-wise calls (one pick among 3 or more candidates)",
    fields=(
        LOG_ITEM_ID,
        FieldSpec("slots", "Candidates in slot order", True,
                  ("slots", "candidates", "order", "candidate_order", "slot_order", "models", "shown", "ordering"),
                  'The candidates as shown, first slot first: a JSON list ["gpt4","claude","llama"] or '
                  '"gpt4,claude,llama"; 3 or more, each with an answer to the item.'),
        JUDGE, RAW_OUTPUT,
        FieldSpec("pick", "Parsed pick", False, ("pick", "verdict", "choice", "winner", "best", "selected",
                                                  "decision", "result"),
                  "A slot letter (A, B, C, ...), a slot number (1, 2, 3, ...) or a candidate in the slots; "
                  "none for no clear winner (with 'no clear winner' allowed)."),
        REPETITION, PROMPT_SHOWN,
    ),
    row_model=ListwiseCallRow,
    dataset_kind="pairwise",
    creates_dataset=False,
    check_and_build=log_check_and_build(check_listwise_log, listwise_log_batch),
    preview_table="judge_calls",
    outcome="pick",
    parsers=PARSERS,
    options=(
        *log_options("pick", PARSERS),
        UploadOption("--original-first",
                     "the first order of a candidate set with CANDIDATE in the first slot is its original order "
                     "(default: the dataset's baseline); sets without it take the order seen first in the file; the "
                     "others are labelled rotation-k (the original shifted by k) or permutation",
                     {"metavar": "CANDIDATE"}),
        UploadOption("--allow-none", "the judge could answer 'no clear winner' ([[NONE]], or the pick none)",
                     {"action": "store_true"}),
    ),
    settings=("judge", "parser", "allow_none", "original_first"),
    analysis_protocol="listwise",
    order_note="Order: per item, judge and candidate set, the first order with the original-order candidate "
               "(default: the dataset's baseline) in the first slot is 'original' (else the first order in the "
               "file); the others are 'rotation-k' (the original shifted by k) or 'permutation'. A pick is "
               "stored as its slot letter (A = first slot), as the engine stores list-wise verdicts.",
)
