"""Shared helpers for the benchmark scripts: timing and one table format.

Every benchmark module ``bench/bench_*.py`` exposes ``main() -> None`` that prints
one table with :func:`print_table`; ``bench/run.py`` runs them all in one process
so peers are measured in the same run (ratios, not absolute times).
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """One line of a benchmark table."""

    name: str  # what was measured, e.g. "poker_env FiveCardDraw-v0 (single env)"
    value: float  # the figure, e.g. steps per second
    unit: str  # e.g. "steps/s", "evals/s", "ms"
    note: str = ""  # e.g. "1 thread", "peer", "target >= 60,000"


def fmt_value(value: float) -> str:
    if value != value:  # NaN: not measured
        return "n/a"
    if abs(value) >= 1e6:
        return f"{value / 1e6:,.2f} M"
    if abs(value) >= 1e4:
        return f"{value / 1e3:,.1f} k"
    return f"{value:,.3g}"


def print_table(title: str, rows: list[Row]) -> None:
    """Print rows as an aligned text table (markdown-compatible)."""
    print(f"\n### {title}\n")
    w = max([len(r.name) for r in rows] + [len("what")])
    print(f"| {'what':<{w}} | {'value':>12} | {'unit':<8} | note")
    print(f"|{'-' * (w + 2)}|{'-' * 14}|{'-' * 10}|------")
    for r in rows:
        print(f"| {r.name:<{w}} | {fmt_value(r.value):>12} | {r.unit:<8} | {r.note}")
    print(flush=True)


def rate(fn: Callable[[], int], min_seconds: float = 1.0, warmup: bool = True) -> float:
    """Items per second: ``fn()`` does some work and returns how many items it did.

    Repeats ``fn`` until ``min_seconds`` have passed; the best of the repeats wins
    (the machines are shared and noisy).
    """
    if warmup:
        fn()
    best = 0.0
    start_all = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        n = fn()
        dt = time.perf_counter() - t0
        best = max(best, n / dt if dt > 0 else float("inf"))
        if time.perf_counter() - start_all >= min_seconds:
            return best


def best_time(fn: Callable[[], object], repeats: int = 5) -> float:
    """Best wall time of ``fn()`` in seconds over ``repeats`` runs (after one warm-up)."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def machine_line() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
