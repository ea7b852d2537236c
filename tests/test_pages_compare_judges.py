"""AppTest of the Compare judges page: an LLMBar dataset (labels: a recommendation, the table, the chart), MTBench
(no labels: says so and points to the labelled datasets and the upload) and the adversarial group."""

from __future__ import annotations

from pathlib import Path

from tests.app_helpers import open_page


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [e.value for e in at.success] + \
        [e.value for e in at.info] + [e.value for e in at.warning]
    return "\n".join(parts).replace("\\", "")


def test_llmbar_dataset_names_a_configuration(app_env: Path) -> None:
    at = open_page("compare_judges.py", query={"cj_dataset": "llmbar-gptout"})
    assert not at.exception
    (success,) = at.success
    assert success.value.replace("\\", "").startswith("Use GPT-4 [")
    assert "Use GPT-4 [" in success.value.replace("\\", "")
    table = at.dataframe[0].value
    assert len(table) == 65 and list(table["#"]) == list(range(1, 66))
    first = table.iloc[0]
    assert first["vs best"] == "best" and first["items"] == 47
    assert first["labels"] == "gold (set by the authors, not raters)"  # never called people's ratings
    assert table["vs best"].str.contains("clearly worse").sum() > 0
    assert set(table["cost per 1,000"]) == {"not recorded"}
    assert len(at.get("plotly_chart")) == 1
    assert "Each point carries its row number" in _texts(at)


def test_mtbench_says_it_has_no_labels_and_where_to_find_them(app_env: Path) -> None:
    at = open_page("compare_judges.py", query={"cj_dataset": "mtbench"})
    assert not at.exception
    text = _texts(at)
    assert "No recommendation: these pairs carry no labels" in text
    assert "`autoj`" in text and "`llmbar-natural`" in text and "Upload" in text
    table = at.dataframe[0].value
    # every judge of the dataset across both studies, the study named beside each
    assert len(table) == 12 and set(table["study"]) == {"full", "repetition"}
    gpt4 = table[table["judge"] == "gpt-4-0613"].set_index("study")
    assert gpt4.loc["full", "flip rate"] == "18.5% (443/2,400) [16.2%–21.0%]"  # as the Overview and Pairwise bias
    assert "cover different items" in gpt4.loc["repetition", "note"]
    assert set(table["accuracy (swap-averaged)"]) == {"no labels"}
    assert "(estimated)" in gpt4.loc["full", "cost per 1,000"]


def test_adversarial_group_pools_four_subsets(app_env: Path) -> None:
    at = open_page("compare_judges.py", query={"cj_dataset": "llmbar-adversarial"})
    assert not at.exception
    table = at.dataframe[0].value
    assert (table["items"] == 319).sum() > 0  # 134 + 92 + 47 + 46 items pooled
    assert "Group of 4 datasets" in _texts(at)


def test_calibration_says_which_datasets_have_no_labels(app_env: Path) -> None:
    at = open_page("calibration.py")
    assert not at.exception
    text = _texts(at)
    assert "Not listed: devbench, mtbench: their judge calls have no labels" in text
    assert "llmbar-natural" in text and "Upload" in text
