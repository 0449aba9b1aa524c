"""Tune: the form that builds a search (perftui.domain.tune_form) and its live screen."""
