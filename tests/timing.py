"""Deadlines that stretch with the machine's load.

A test waits for a condition, never for a fixed sleep; its deadline is how long the condition
may take on a free machine, and :func:`scaled` stretches it by how much busier than its cores
the machine is right now (the suite runs on shared 2-core machines, beside other jobs). The
stretch is capped, so a test that really hangs still ends well within its pytest timeout.
"""

from __future__ import annotations

import os

MOST = 3.0  # the longest stretch: a deadline never grows past three times its free figure


def load_factor() -> float:
    """The one-minute load average per core, at least 1 (1 on a system without one)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def scaled(seconds: float) -> float:
    """``seconds`` of a free machine, as long as the same work takes on this one now."""
    return seconds * min(load_factor(), MOST)
