"""The CPU's feature flags as Linux reports them, for tests that depend on them."""

from __future__ import annotations


def cpu_flags() -> set[str]:
    """The ``flags`` line of ``/proc/cpuinfo`` (empty where there is none)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()
