"""The words a reader sees: verdict blocks and the sentences of findings, from metric results.

Below ``analyses/`` (it reads only ``metrics/`` and ``stats/`` results), so a topic's view carries its verdicts and
the page, the report and the CLI read the same words.
"""
