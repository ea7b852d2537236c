"""Streamlit-side helpers shared by app.py and the pages (the core never imports Streamlit)."""
