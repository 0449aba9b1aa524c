"""Tune: the form that builds a search (perftui.domain.forms.tune) and its live screen."""
