"""Comparing two projects (A and B): the sweet spot under a latency threshold, the layer-type
table side by side, the kernel-level join of every layer of both versions, and the series
of the compare screen's charts.

Pure functions over stored records, shared by `perftui compare` and the dashboard:
- sides: `Side` and the latency statistic of a run;
- projects: the sweet spot, each side's compared run and the `Comparison` of two projects;
- layers: layer types and the kernel-level join of the two versions' layers;
- chart: the latency/throughput chart and the inference-time bars;
- verdicts: B/A with its interval in words, runs within noise of the sweet spot, and a
  profile that contradicts the measurement.
"""

from perftui.domain.compare.chart import (
    METRICS,
    SWEET_MARK,
    ChartLine,
    ChartMark,
    ChartPoint,
    CompareChart,
    InferenceBar,
    InferenceTime,
    compare_chart,
    config_lines,
    inference_time,
    line_label,
    run_marks,
)
from perftui.domain.compare.layers import (
    LAYER_SORT_KEYS,
    TYPE_SORT_KEYS,
    DetailRow,
    LayerDetail,
    LayerPair,
    LayerTypeComparison,
    compare_layer_types,
    distribution,
    filter_pairs,
    join_layers,
    layer_detail,
    normalised_name,
    parse_min_delta,
    sort_layer_types,
    sort_pairs,
)
from perftui.domain.compare.projects import (
    Comparison,
    compare_projects,
    default_projects,
    default_threshold,
    pick_run,
)
from perftui.domain.compare.ranking import Candidate, SweetSpot, sweet_spot
from perftui.domain.compare.sides import Side, run_latency
from perftui.domain.compare.verdicts import NO_DIFFERENCE, Difference, difference

__all__ = [
    "LAYER_SORT_KEYS",
    "METRICS",
    "NO_DIFFERENCE",
    "SWEET_MARK",
    "TYPE_SORT_KEYS",
    "Candidate",
    "ChartLine",
    "ChartMark",
    "ChartPoint",
    "CompareChart",
    "Comparison",
    "DetailRow",
    "Difference",
    "InferenceBar",
    "InferenceTime",
    "LayerDetail",
    "LayerPair",
    "LayerTypeComparison",
    "Side",
    "SweetSpot",
    "compare_chart",
    "compare_layer_types",
    "compare_projects",
    "config_lines",
    "default_projects",
    "default_threshold",
    "difference",
    "distribution",
    "filter_pairs",
    "inference_time",
    "join_layers",
    "layer_detail",
    "line_label",
    "normalised_name",
    "parse_min_delta",
    "pick_run",
    "run_latency",
    "run_marks",
    "sort_layer_types",
    "sort_pairs",
    "sweet_spot",
]
