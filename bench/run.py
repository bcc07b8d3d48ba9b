"""Every benchmark in one run (peers measured in the same run: compare ratios).

Usage: ``python bench/run.py [evaluator|draw|red_dog|holdem|user-path|peers|training ...]``.
Threads: the vector envs' ``num_threads`` (their own threads); the evaluator's
multi-thread rows use numba's ``NUMBA_NUM_THREADS``. Single-thread rows are the
ones to compare across machines.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# For the evaluator's multi-thread rows (numba prange; the vector envs use their
# own threads): numba's OpenMP layer spins waiting threads, which on a busy 2-core
# machine made 2 threads slower than 1; the workqueue layer does not.
os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")
# The numpy runtime's batched inference (training suite): OpenBLAS with two threads was
# 4x slower than one on this busy 2-core machine.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from bench.common import machine_line

SUITES = ["evaluator", "draw", "red_dog", "holdem", "user-path", "copies", "peers", "training"]


def main(argv: list[str]) -> int:
    suites = argv or SUITES
    unknown = sorted(set(suites) - set(SUITES))
    if unknown:
        print(f"unknown benchmark(s) {unknown}; allowed: {SUITES}", file=sys.stderr)
        return 2
    print(f"# poker_env benchmarks ({machine_line()}, {time.strftime('%Y-%m-%d %H:%M')})")
    failed = 0
    for name in suites:
        try:
            module = importlib.import_module(f"bench.bench_{name.replace('-', '_')}")
        except ModuleNotFoundError as exc:
            print(f"\n### {name}: not available ({exc})")
            continue
        try:
            module.main()
        except Exception:  # one broken suite must not hide the others' figures
            failed += 1
            traceback.print_exc()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
