#!/usr/bin/env python
"""Evaluate policies head to head: mean per hand with a 95% interval, duplicate deals.

Examples::

    python scripts/evaluate.py draw runs/draw-seed0/policy.npz heuristic --hands 200000
    python scripts/evaluate.py holdem --option num_players=6 policy.npz call random
    python scripts/evaluate.py draw a.npz b.npz heuristic --round-robin
    python scripts/evaluate.py draw a.npz heuristic --target-width 0.05 --hands 2000000

Players: ``random``, ``call``, ``heuristic``, an exported ``FILE.npz`` (``@sample`` or
``@t=0.5`` to sample), or an SB3 checkpoint ``FILE.zip``. With two players the first
plays the second; with more, the first plays each of the others (``--round-robin``:
every pair). ``--json FILE`` writes the results.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

# The numpy runtime's batched inference: on a busy 2-core machine OpenBLAS with two
# threads was 4x slower than with one (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from agents.catalog import parse_option
from agents.games import GAMES
from poker_env.errors import ConfigError


def _key_value(text: str) -> tuple[str, object]:
    try:
        return parse_option(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("players", nargs="+", help="two or more players")
    p.add_argument("--option", type=_key_value, action="append", default=[], metavar="K=V")
    p.add_argument("--hands", type=int, default=100_000, help="hand budget per match")
    p.add_argument("--target-width", type=float, help="stop when the 95%% interval is narrower")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tables", type=int, default=1024, help="tables per round")
    p.add_argument("--no-duplicate", action="store_true", help="A in seat 0 only")
    p.add_argument("--round-robin", action="store_true")
    p.add_argument("--json", type=Path, help="write the results here")
    args = p.parse_args(argv)
    if len(args.players) < 2:
        p.error("give at least two players")
    from agents.catalog import resolve_policy
    from agents.evaluate import head_to_head, results_table

    opts = dict(args.option)
    try:
        pols = {
            n: resolve_policy(n, args.game, opts, seed=args.seed + 17 * k)
            for k, n in enumerate(args.players)
        }
        names = list(pols)
        if args.round_robin:
            pairs = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
        else:
            pairs = [(names[0], y) for y in names[1:]]
        results = []
        for x, y in pairs:
            r = head_to_head(
                pols[x],
                pols[y],
                game=args.game,
                options=opts,
                hands=args.hands,
                seed=args.seed,
                num_tables=args.tables,
                duplicate=not args.no_duplicate,
                target_width=args.target_width,
                names=(x, y),
            )
            print(r, flush=True)
            results.append(r)
    except (ConfigError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print()
    print(results_table(results, title=f"{args.game} head to head"))
    if args.json:
        args.json.write_text(json.dumps([dataclasses.asdict(r) for r in results], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
