"""AppTest of the Data page: browsing the bundled data, and uploads through the Upload tab."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_helpers import open_page
from tests.upload_helpers import rows

HOSTILE_PAIRS = (
    b"id,Prompt,Response (ChatGPT),Response (Claude),Winner\n"
    b"h1,Say **hi** <script>alert(1)</script>,<b>Hi!</b>,# Hello,CHATGPT\n"
    b"h2,Count [link](http://x),1 2 3,one two,TIE\n"
)


def _select(at: AppTest, label: str, value: object) -> None:
    next(box for box in at.selectbox if box.label == label).set_value(value).run()
    assert not at.exception


def _markdown_texts(at: AppTest) -> str:
    return "\n".join(str(element.value) for element in [*at.markdown, *at.caption, *at.success, *at.info])


def test_browse_search_and_a_pre_parsed_call(app_env: Path) -> None:
    at = open_page("data.py")
    assert not at.exception
    datasets = at.dataframe[0].value
    assert {"mtbench", "devbench", "autoj", "prometheus-vicuna", "prometheus-mt-bench", "summeval"} <= set(
        datasets["dataset"])
    assert int(datasets.set_index("dataset").loc["mtbench", "judge calls"]) == 19584
    _select(at, "Dataset", "autoj")
    next(t for t in at.text_input if t.label.startswith("Search")).set_value("Boyer-Moore").run()
    assert not at.exception
    assert "1 item match." in [c.value for c in at.caption]
    # Auto-J's verdicts were published without replies: the page says so instead of showing a raw reply.
    assert any("pre-parsed" in info.value for info in at.info)
    assert any(j.value and '"parser": "pre-parsed"' in str(j.value).replace("'", '"') for j in at.json)


def test_upload_tab_lists_every_kind(app_env: Path) -> None:
    at = open_page("data.py")
    kinds = at.selectbox(key="upload_kind")
    assert kinds.options == ["Pointwise items (instruction, response, optional human scores)",
                             "Pairwise items (prompt, two or more candidate answers, optional human preference)",
                             "Judge log: pairwise calls", "Judge log: rubric trials",
                             "Judge log: list-wise calls (one pick among 3 or more candidates)",
                             "Rubric (YAML or JSON)"]
    assert len(at.file_uploader) == 1


@pytest.fixture
def writable_app(bundled_db: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUDGEBIAS_DB", str(bundled_db))
    return bundled_db


def test_upload_pairs_through_the_panel(writable_app: Path) -> None:
    at = open_page("data.py")
    at.selectbox(key="upload_kind").set_value("pairs").run()
    at.file_uploader[0].set_value(("hostile_pairs.csv", HOSTILE_PAIRS, "text/csv")).run()
    assert not at.exception
    assert next(t for t in at.text_input if t.label == "New dataset id").value == "hostile_pairs"
    labels = {box.label: box.value for box in at.selectbox}
    assert labels["Prompt *"] == "Prompt" and labels["Human preference"] == "Winner"
    assert labels["CHATGPT means"] == "ChatGPT" and labels["TIE means"] == "tie"
    write = next(b for b in at.button if b.label == "Write to the store")
    assert not write.disabled and not at.error
    # The preview shows the rows as they will be stored; uploaded text never reaches markdown.
    preview = next(f.value for f in at.dataframe if list(f.value.columns[:3]) == ["item_id", "candidate", "answer"])
    assert set(preview["candidate"]) == {"ChatGPT", "Claude"} and "<b>Hi!</b>" in set(preview["answer"])
    assert "human_labels: first 2 of 2 rows" in [t.value for t in at.text]
    shown = _markdown_texts(at)
    assert "<script>" not in shown and "**hi**" not in shown and "<b>Hi!</b>" not in shown
    write.click().run()
    assert not at.exception
    assert any("hostile" in s.value and "9 new row" in s.value for s in at.success)
    assert "hostile_pairs" in set(at.dataframe[0].value["dataset"])
    assert rows(writable_app, "SELECT preference FROM human_labels WHERE dataset_id = 'hostile_pairs' "
                              "ORDER BY item_id") == [("ChatGPT",), ("tie",)]
    # The same file again: the panel says it is already stored.
    assert any("already in the store" in info.value for info in at.info)


def test_problems_are_shown_and_block_the_write(writable_app: Path) -> None:
    at = open_page("data.py")
    at.selectbox(key="upload_kind").set_value("items").run()
    bad = b"item_id,instruction,response,score_ann\na,Q,R,7\na,,R,2\n"
    at.file_uploader[0].set_value(("bad.csv", bad, "text/csv")).run()
    assert not at.exception
    _select(at, "Rubric the human scores are levels of (and the items' default rubric)", "summeval-coherence")
    assert [box.value for box in at.multiselect] == [["score_ann"]]
    problems = next(f.value for f in at.dataframe if list(f.value.columns) == ["row", "column", "problem"])
    assert {(r.row, r.column) for r in problems.itertuples()} == {("1", "score_ann"), ("2", "instruction"),
                                                                   ("2", "item_id")}
    assert next(b for b in at.button if b.label == "Write to the store").disabled
    assert rows(writable_app, "SELECT count(*) FROM datasets WHERE dataset_id = 'bad'") == [(0,)]


def test_unreadable_file_and_rubric_upload(writable_app: Path) -> None:
    at = open_page("data.py")
    at.selectbox(key="upload_kind").set_value("pairwise-log").run()
    at.file_uploader[0].set_value(("log.csv", "a,b\n1,é\n".encode("latin-1"), "text/csv")).run()
    assert not at.exception
    assert any("Nothing was written" in e.value for e in at.error)
    at.selectbox(key="upload_kind").set_value("rubric").run()
    rubric = b"id: tidy-3\ncriterion: Is it tidy?\nlevels: {1: messy, 2: so-so, 3: tidy}\n"
    at.file_uploader[0].set_value(("tidy.yaml", rubric, "application/yaml")).run()
    assert not at.exception
    assert "tidy-3 (k = 3): Is it tidy?" in [t.value for t in at.text]
    next(b for b in at.button if b.label == "Write rubric(s) to the store").click().run()
    assert not at.exception
    assert rows(writable_app, "SELECT level, description FROM rubric_levels WHERE rubric_id = 'tidy-3' "
                              "ORDER BY level") == [(1, "messy"), (2, "so-so"), (3, "tidy")]


def test_a_log_uploaded_through_the_panel_links_to_its_analysis(writable_app: Path) -> None:
    at = open_page("data.py")
    at.selectbox(key="upload_kind").set_value("pairwise-log").run()
    log = (b"item,first,second,judge,reply\n81,vicuna-13b-v1.3,gpt-4,panel-judge,[[B]]\n"
           b"81,gpt-4,vicuna-13b-v1.3,panel-judge,[[A]]\n")
    at.file_uploader[0].set_value(("log.csv", log, "text/csv")).run()
    _select(at, "Dataset the log's items belong to", "mtbench")
    next(b for b in at.button if b.label == "Write to the store").click().run()
    assert not at.exception
    assert any("now in the analysis pages" in s.value for s in at.success)
    (link,) = at.get("page_link")
    assert link.proto.label.startswith("Open `upload:mtbench:") and link.proto.label.endswith("` in Pairwise bias")
    run_id = link.proto.label.split("`")[1]  # the uploaded run itself is preselected, not just the page
    assert link.proto.query_string == urlencode({"pw_dataset": "mtbench", "pw_study": run_id})
    assert rows(writable_app, "SELECT classification, winner FROM pair_outcomes WHERE judge = 'panel-judge'") == [
        ("consistent", "gpt-4")]


def test_a_listwise_log_through_the_panel(writable_app: Path) -> None:
    at = open_page("data.py")
    at.selectbox(key="upload_kind").set_value("listwise-log").run()
    log = (b"item_id,slots,judge,reply,pick\n"
           b'81,"vicuna-13b-v1.3,gpt-4,claude-v1",panel-lw,[[B]],\n'
           b'81,"gpt-4,claude-v1,vicuna-13b-v1.3",panel-lw,,gpt-4\n'
           b'81,"[""claude-v1"", ""vicuna-13b-v1.3"", ""gpt-4""]",panel-lw,,3\n'
           b'82,"vicuna-13b-v1.3,gpt-4,nobody",panel-lw,no pick here,\n')
    at.file_uploader[0].set_value(("lw.csv", log, "text/csv")).run()
    assert not at.exception
    _select(at, "Dataset the log's items belong to", "mtbench")
    labels = {box.label: box.value for box in at.selectbox}
    assert labels["Candidates in slot order *"] == "slots" and labels["Parsed pick"] == "pick"
    assert labels["Parser for raw replies"] == "listwise"
    # A candidate without an answer blocks the write, with its row and column.
    problems = next(f.value for f in at.dataframe if list(f.value.columns) == ["row", "column", "problem"])
    assert [(r.row, r.column, r.problem) for r in problems.itertuples()] == [
        ("4", "slots", "candidate 'nobody' has no answer to item '82' in 'mtbench'")]
    assert next(b for b in at.button if b.label == "Write to the store").disabled
    fixed = log.replace(b"nobody", b"claude-v1")
    at.file_uploader[0].set_value(("lw.csv", fixed, "text/csv")).run()
    _select(at, "Dataset the log's items belong to", "mtbench")
    assert not at.error
    preview = next(f.value for f in at.dataframe if "verdict" in f.value.columns)
    assert list(preview["verdict"]) == ["B", "A", "C", ""]  # a missing verdict shows empty, not "None"
    assert list(preview["parse_status"]) == ["ok", "ok", "ok", "failed"]
    assert any("rotation-k" in c.value for c in at.caption)
    next(b for b in at.button if b.label == "Write to the store").click().run()
    assert not at.exception
    assert any("now in the analysis pages" in s.value for s in at.success)
    assert [link.proto.label.endswith("in Pairwise bias") for link in at.get("page_link")] == [True]
    assert rows(writable_app, "SELECT order_label, verdict, parser FROM judge_calls WHERE judge = 'panel-lw' "
                              "AND item_id = '81' ORDER BY order_label") == [
        ("original", "B", "listwise"), ("rotation-1", "A", "pre-parsed"), ("rotation-2", "C", "pre-parsed")]
    # The uploaded run is a study of the Pairwise bias page, whose list-wise section counts its groups.
    [(run_id,)] = rows(writable_app, "SELECT DISTINCT run_id FROM judge_calls WHERE judge = 'panel-lw'")
    page = open_page("pairwise_bias.py")
    next(box for box in page.selectbox if box.label == "Dataset").set_value("mtbench").run()
    next(box for box in page.selectbox if box.label == "Study (or run id)").set_value(run_id).run()
    assert not page.exception and "List-wise calls" in [s.value for s in page.subheader]
    table = next(f.value for f in page.dataframe if "groups" in f.value.columns).set_index("judge")
    # item 81: gpt-4 picked in all three orders (consistent); item 82: one order of three (failed)
    assert (table.loc["panel-lw", "groups"], table.loc["panel-lw", "consistent"],
            table.loc["panel-lw", "failed_groups"]) == (2, 1, 1)
