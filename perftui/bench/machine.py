"""Reads how busy the machine is: the CPU counters of /proc/stat and this process's own CPU
time (domain.measurement.load keeps the differences, domain.measurement.verdict judges them).

Where /proc/stat cannot be read (not Linux), there is no reading and no judgement.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from perftui.domain.measurement.load import CpuReading, MachineLoad

PROC_STAT = Path("/proc/stat")
BUSY_CHECK_S = 0.3
"""How long the machine is watched before a benchmark starts, to warn when it is already busy."""


def cpu_reading(path: Path = PROC_STAT) -> CpuReading | None:
    """The machine's cumulative CPU times now, or None where they cannot be read.

    /proc/stat's first line sums every CPU: user nice system idle iowait irq softirq steal
    (guest time is already inside user and nice), in clock ticks."""
    try:
        first = path.read_text(encoding="ascii").splitlines()[0].split()
        ticks = [int(x) for x in first[1:9]]
    except (OSError, IndexError, ValueError):
        return None
    if first[0] != "cpu" or len(ticks) < 8:
        return None
    hz = float(os.sysconf("SC_CLK_TCK"))
    user, nice, system, idle, iowait, irq, softirq, steal = ticks
    own = os.times()
    return CpuReading(
        busy_s=(user + nice + system + irq + softirq) / hz,
        idle_s=(idle + iowait) / hz,
        steal_s=steal / hz,
        own_s=own.user + own.system,
    )


def load_between(before: CpuReading | None, after: CpuReading | None) -> MachineLoad | None:
    if before is None or after is None:
        return None
    return MachineLoad.between(before, after)


def sample_load(seconds: float = 0.5) -> MachineLoad | None:
    """The machine's load over the next `seconds` (this process idle meanwhile): what
    `perftui bench` checks before it starts."""
    before = cpu_reading()
    time.sleep(seconds)
    return load_between(before, cpu_reading())


def busy_reasons(seconds: float = BUSY_CHECK_S) -> list[str]:
    """Why other work already keeps the machine's CPUs busy before a benchmark starts ([]
    when it does not, or where it cannot be read): `bench`'s warning and the dashboard's."""
    from perftui.domain.measurement.verdict import load_findings

    return [reason for _, reason in load_findings(sample_load(seconds))]
