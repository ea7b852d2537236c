"""Render a Report as one self-contained HTML file: plotly.js embedded, every data string escaped, no network."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly
from plotly.offline import get_plotlyjs

from judgebias_core.charts.safe_text import literal_spec
from judgebias_core.charts.style import TEMPLATE
from judgebias_core.explanations import explanation
from judgebias_core.report.model import Provenance, Report, ReportSection, ReportTable
from judgebias_core.wording.verdict import DECIDED, Verdict

# Inline scripts and styles only; nothing may be fetched (a dataset string can never load or run anything).
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                           "img-src data: blob:; font-src data:")

FOLDED_TABLE_ROWS = 15  # longer tables start folded, so the sentences and charts stay in view

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:24px;
color:#1f2328;line-height:1.5}
h1{font-size:1.7em;margin-bottom:4px}h2{border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:40px}
.meta{color:#57606a;font-size:.9em}.summary{background:#f6f8fa;border-left:4px solid #4c72b0;padding:8px 20px}
.summary li{margin:6px 0}.warning{background:#fff8c5;border-left:4px solid #bf8700;padding:8px 20px}
table{border-collapse:collapse;margin:8px 0 4px;font-size:.85em;display:block;overflow-x:auto}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa}
.note{color:#57606a;font-size:.85em;margin-top:0}.chart{margin:16px 0}details{margin:12px 0}
summary{cursor:pointer;font-weight:600}dt{font-weight:600;margin-top:10px}dd{margin-left:16px}
.verdict{border:1px solid #d0d7de;border-radius:6px;padding:8px 16px;margin:10px 0}.verdict p{margin:4px 0}
.rule{color:#57606a;font-size:.85em;display:block}.labels{font-size:.8em}
.formula{white-space:pre-wrap;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em;background:#f6f8fa;
padding:6px;margin:4px 0}
"""


def esc(value: object) -> str:
    """Any value as HTML text: escaped, missing values as a dash."""
    if value is None or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d %H:%M")
    return html.escape(str(value), quote=True)


def table_html(table: ReportTable) -> str:
    """A table whose headers and cells are all escaped, with its title and the note on what is counted."""
    frame = table.frame
    head = "".join(f"<th>{esc(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{esc(v)}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False, name=None))
    note = f'<p class="note">{esc(table.note)}</p>' if table.note else ""
    grid = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if len(frame) > FOLDED_TABLE_ROWS:
        grid = f"<details><summary>Show the {len(frame):,} rows</summary>{grid}</details>"
    return f"<h3>{esc(table.title)}</h3>{grid}{note}"


# The pinned template goes into the page once; each figure refers to it instead of carrying its own copy, and
# whatever template the building process had made the default (Streamlit's, in the dashboard) is dropped.
TEMPLATE_SCRIPT = f"window.JUDGEBIAS_TEMPLATE={to_json_plotly(TEMPLATE)};"
FIGURE_CONFIG = to_json_plotly({"displaylogo": False, "responsive": True})
SIGNIFICANT_DIGITS = 6  # hover shows at most 3 decimals; 17-digit floats only made the file bigger


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT_DIGITS}g}")
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def figure_spec(fig: go.Figure) -> dict[str, Any]:
    """The figure as plotly.js reads it: displayed text literal, floats rounded, no template of its own."""
    spec = literal_spec(fig.to_dict())
    spec["layout"].pop("template", None)
    return _rounded(spec)


def _full_labels_html(spec: dict[str, Any]) -> str:
    labels = (spec["layout"].get("meta") or {}).get("full_labels") or {}
    if not labels:
        return ""
    rows = "".join(f"<tr><td>{esc(html.unescape(short.replace('<br>', ' ')))}</td><td>{esc(html.unescape(full))}</td></tr>"
                   for short, full in labels.items())
    return (f'<table class="labels"><thead><tr><th>shortened in the chart</th><th>full name</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def figure_html(fig: go.Figure, div_id: str) -> str:
    """One chart: a div and the script that draws it with the page's template (serialised once)."""
    spec = figure_spec(fig)
    height = spec["layout"].get("height") or 450
    script = (f'Plotly.newPlot("{div_id}",{to_json_plotly(spec["data"])},'
              f"Object.assign({{template:window.JUDGEBIAS_TEMPLATE}},{to_json_plotly(spec['layout'])}),"
              f"{FIGURE_CONFIG});")
    return (f'<div class="chart"><div id="{div_id}" class="plotly-graph-div" style="height:{height}px;width:100%">'
            f'</div><script type="text/javascript">{script}</script>{_full_labels_html(spec)}</div>')


def verdict_html(verdict: Verdict) -> str:
    """One verdict: the plain statements, then the rule behind each folded under "How this was decided"."""
    lines = "".join(f"<p><strong>{esc(line.heading)}:</strong> {esc(line.text)}</p>" for line in verdict.lines)
    rules = "".join(f'<p class="rule"><strong>{esc(line.heading)}:</strong> {esc(line.rule)}</p>'
                    for line in verdict.lines)
    return (f'<div class="verdict"><p><strong>{esc(verdict.subject)}</strong></p>{lines}'
            f'<details class="decided"><summary>{esc(DECIDED)}</summary>{rules}</details></div>')


def _list(items: Iterable[str], css: str = "") -> str:
    entries = "".join(f"<li>{esc(item)}</li>" for item in items)
    return f'<ul class="{css}">{entries}</ul>' if entries else ""


def explanations_html(metric_keys: Iterable[str]) -> str:
    """The "how this was measured" block: each metric's meaning, formula and source."""
    entries = []
    for key in metric_keys:
        entry = explanation(key)
        entries.append(f"<dt>{esc(entry.name)}</dt><dd>{esc(entry.meaning)}<div class=\"formula\">"
                       f"{esc(entry.formula)}</div><span class=\"note\">Source: {esc(entry.source)}</span></dd>")
    return f"<details><summary>How this was measured</summary><dl>{''.join(entries)}</dl></details>"


def section_html(section: ReportSection, index: int) -> str:
    figures = "".join(figure_html(fig, f"chart-{index}-{n}") for n, fig in enumerate(section.figures))
    tables = "".join(table_html(table) for table in section.tables)
    notes = "".join(f'<p class="note">{esc(note)}</p>' for note in section.notes)
    return (f'<section id="{esc(section.key)}"><h2>{esc(section.title)}</h2>{_list(section.sentences)}{notes}'
            f"{figures}{tables}{explanations_html(section.metric_keys)}</section>")


def _readable(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.rename(columns=lambda name: str(name).replace("_", " "))


def provenance_html(provenance: Provenance) -> str:
    dataset = provenance.dataset
    facts = [("Dataset", f"{dataset.name} ({dataset.id}), {dataset.dataset_kind}"), ("Source", dataset.source),
             ("Licence", dataset.licence), ("Description", dataset.description),
             ("Size", f"{dataset.items:,} items, {dataset.candidates:,} candidates, {dataset.judge_calls:,} judge "
                      f"calls, {dataset.human_labels:,} items with human labels"),
             ("Baseline candidate", dataset.baseline_candidate),
             ("Software", f"judgebias {provenance.version}"), ("Report built", provenance.generated_at)]
    facts_html = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts if v)
    templates = provenance.templates.assign(template_id=provenance.templates["template_id"].fillna(
        "not stored (recorded data: the original authors' prompts)"))
    runs = provenance.runs.assign(template_id=provenance.runs["template_id"].str[:12])
    tables = [ReportTable("Judges", _readable(provenance.judges),
                          "Calls and parse failures within this report's scope; times are when the calls were stored."),
              ReportTable("Runs", _readable(runs), "Bundled data is stored as runs named bundled:<dataset>:<study>; "
                          "created_at is when it was imported. Template ids are shortened: the full hash is below."),
              ReportTable("Prompt templates (sha256 of the template text)", _readable(templates))]
    return (f'<section id="provenance"><h2>Where these numbers come from</h2><dl>{facts_html}</dl>'
            + "".join(table_html(t) for t in tables) + "</section>")


def _simulated_warning(report: Report) -> str:
    if not report.simulated_judges:
        return ""
    return (f'<p class="warning">Some results here come from a simulated judge, not a real model: '
            f"{esc(', '.join(report.simulated_judges))}. They show how the analysis works, not how any model "
            "behaves.</p>")


def render_html(report: Report) -> str:
    """The whole report as one HTML document that opens offline in any browser."""
    sentences = [s for section in report.sections for s in section.headline]
    if not report.sections:
        sentences.append("No judge has results on this selection yet: launch a run, then build the report again.")
    judges = ", ".join(report.request.judges) or "every judge of the dataset"
    runs = ", ".join(report.request.runs) or "every run"
    contents = "".join(f'<li><a href="#{esc(s.key)}">{esc(s.title)}</a></li>' for s in report.sections)
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{esc(report.title)}</title>'
        f"<style>{STYLE}</style><script>{get_plotlyjs()}\n{TEMPLATE_SCRIPT}</script></head><body>"
        f"<header><h1>{esc(report.title)}</h1><p class=\"meta\">Dataset {esc(report.provenance.dataset.id)} · "
        f"judges: {esc(judges)} · runs: {esc(runs)} · built {esc(report.provenance.generated_at)} with judgebias "
        f"{esc(report.provenance.version)}</p></header>"
        f'<section id="summary"><h2>In short</h2>{_simulated_warning(report)}'
        f'<div class="summary">{_list(sentences)}</div>'
        + "".join(verdict_html(v) for section in report.sections for v in section.verdicts) +
        f'{_list(report.skipped, "note")}<ul>{contents}<li><a href="#provenance">Where these numbers come from</a>'
        f"</li></ul></section>"
        + "".join(section_html(section, i) for i, section in enumerate(report.sections))
        + provenance_html(report.provenance) + "</body></html>"
    )
