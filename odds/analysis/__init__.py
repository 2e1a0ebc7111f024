"""Ruleset-agnostic views of the outcome record: summaries, intervals, tables, CSV."""
