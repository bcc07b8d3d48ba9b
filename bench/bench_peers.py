"""Benchmark module for the peer engines (PokerKit, RLCard, OpenSpiel, PettingZoo).

Follows the ``bench/bench_*.py`` convention of :mod:`bench.common`: ``main()``
prints one table, so ``bench/run.py`` can measure the peers in the same run as
our envs. The measurements themselves live in :mod:`bench.peers`.

Run standalone: ``python bench/bench_peers.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import machine_line, print_table
from bench.peers import draw_peers, holdem_peers


def main() -> None:
    """Print one table: every installed peer, steps/s with random legal actions."""
    rows = draw_peers() + holdem_peers(2) + holdem_peers(6)
    print_table(f"Peer engines, random legal actions, resets included ({machine_line()})", rows)


if __name__ == "__main__":
    main()
