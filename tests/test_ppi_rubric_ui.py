"""The prediction-powered mean score on the SummEval demo runs (issue 14): the Calibration page block and the
report's calibration section."""

from __future__ import annotations

from pathlib import Path

from judgebias_core.analyses.calibration import prediction_powered_score
from judgebias_core.report import ReportRequest
from judgebias_core.store.handle import Store
from tests.app_helpers import open_page
from tests.test_report import _report, _section

JUDGE = "simulated:demo-judge"
RUN = "demo-summeval-coherence-permutation"


def test_calibration_page_shows_the_prediction_powered_mean_score(app_env: Path) -> None:
    at = open_page("calibration.py")
    next(box for box in at.selectbox if box.label == "Dataset").set_value("summeval").run()
    assert not at.exception
    assert any("people's mean score from a few labels" in h.value for h in at.subheader)
    share = next(s for s in at.slider if s.label.startswith("Share of items with a human score"))
    assert share.value == 0.25  # the default keeps 10 of the 40 items labelled
    table = next(d.value for d in at.dataframe if "mean score" in d.value.columns)
    with Store(app_env).reader() as reader:
        expected = prediction_powered_score(reader, "summeval", JUDGE, None, RUN, 0.25, 0)
    assert table["estimate"].tolist() == ["prediction-powered", "human labels only", "judge only"]
    assert table["items (n)"].tolist() == [40, 10, 40]
    assert table["mean score"].tolist()[0] == expected.estimate.ppi.estimate
    reading = " ".join(i.value for i in at.info)
    assert "as wide as from the 10 human labels alone" in reading
    captions = " ".join(c.value for c in at.caption)
    assert "10 of 40 items keep their human score" in captions and "400 parsed calls are averaged" in captions
    share.set_value(0.1).run()
    assert not at.exception
    assert any("only 4 labelled items" in w.value for w in at.warning)
    share.set_value(0.25).run()
    assert any("only 10 labelled items: below 30" in w.value for w in at.warning)


def test_report_calibration_reads_the_prediction_powered_mean_score(bundled_db_master: Path) -> None:
    calibration = _section(_report(bundled_db_master, ReportRequest("summeval")), "calibration")
    sentence = next(s for s in calibration.sentences if s.startswith("What the scores of"))
    with Store(bundled_db_master).reader() as reader:
        expected = prediction_powered_score(reader, "summeval", JUDGE, None, RUN)
    e = expected.estimate
    assert "10 random items of 40" in sentence and "prediction-powered estimate (PPI++" in sentence
    assert f"{e.ppi.estimate:.2f} ({e.ppi.low:.2f} to {e.ppi.high:.2f})" in sentence
    assert "extra labels" in sentence and "Caution: only 10 labelled items: below 30" in sentence  # issue 23
    assert any("corrected with a sample of people's labels" in (f.layout.title.text or "") for f in calibration.figures)
