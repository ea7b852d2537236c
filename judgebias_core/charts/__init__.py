"""Charts: plotly figures from metric result objects; never queries the store."""
