"""Measuring two projects alternately: `perftui compare A B --measure` in the dashboard."""
