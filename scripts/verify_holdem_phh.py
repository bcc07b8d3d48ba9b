"""Check the Hold'em PHH export against PokerKit over many random hands.

Plays seeded random ``rules="standard"`` hands (random folds, calls, raises of
every size and all-ins, players busting and sitting down again), writes each with
:func:`poker_env.games.holdem_phh.to_phh`, loads it with PokerKit
(``pokerkit.notation.HandHistory.loads``) and compares PokerKit's final stacks
with this engine's; each hand is also read back with
:func:`poker_env.games.holdem_phh.from_phh` and compared the same way. Prints a
table (player count, hands, mismatches (those of PokerKit and of ``from_phh``),
CPU seconds) and, on any mismatch, the first
failing PHH text; exits with status 1 then.

PokerKit plays a few thousand actions a second, so the default (100,000 hands for
each of 2..10 players) takes a while; CI runs a small sample of the same check
(``tests/games/test_holdem_phh.py``). Same ``--seed``, same hands, whatever
``--workers``.

    python scripts/verify_holdem_phh.py --hands 1000 --players 2 6 10
    nice -n 10 python scripts/verify_holdem_phh.py --workers 1 > /tmp/verify_phh.log
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

import numpy as np

from poker_env.games.holdem import HoldemConfig, HoldemGame
from poker_env.games.holdem_phh import from_phh, phh_player_seats, to_phh

CHUNK = 250  # hands per unit of work (each seeded on its own)


@dataclass
class Result:
    """What one chunk of hands found."""

    players: int
    hands: int = 0
    mismatches: int = 0  # hands where PokerKit or from_phh disagrees
    pokerkit_mismatches: int = 0
    from_phh_mismatches: int = 0
    seconds: float = 0.0
    first_failure: str = ""


def _random_hand(game: HoldemGame, rng: np.random.Generator) -> None:
    game.start_hand()
    while not game.is_hand_over:
        la = game.legal_actions()
        r = rng.random()
        if la.can_fold and r < 0.2:
            game.fold()
        elif la.min_raise_to is not None and r < 0.45:
            assert la.max_raise_to is not None
            lo, hi = la.min_raise_to, la.max_raise_to
            game.raise_to(lo if rng.random() < 0.4 else int(rng.integers(lo, hi + 1)))
        elif la.can_all_in and r < 0.5:
            game.all_in()
        else:
            game.check_or_call()


def _hands(n: int, seed: int, chunk: int, num_hands: int) -> Iterator[dict[str, Any]]:
    """Hand records of a seeded random standard-profile table of ``n`` seats."""
    rng = np.random.default_rng([seed, n, chunk])
    game = HoldemGame(HoldemConfig(num_seats=n, rules="standard"), rng=rng)
    for _ in range(num_hands):
        game._close_hand()
        if sum(1 for x in game.stacks() if x > 0) < 2:
            for q in range(n):
                if q not in game.seats():
                    game.join(q)
        _random_hand(game, rng)
        yield game.hand_record()


def run_chunk(n: int, seed: int, chunk: int, num_hands: int) -> Result:
    """Check ``num_hands`` hands of chunk ``chunk``: PokerKit and ``from_phh`` stacks."""
    from pokerkit.notation import HandHistory

    out = Result(players=n)
    t0 = time.process_time()
    for record in _hands(n, seed, chunk, num_hands):
        text = to_phh(record)
        expected = [record["final_stacks"][q] for q in phh_player_seats(record)]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                *_, last = iter(HandHistory.loads(text))
            pokerkit_stacks = [int(x) for x in last.stacks]
        except Exception as exc:  # PokerKit refusing the text is a mismatch too
            pokerkit_stacks = [f"PokerKit error: {exc}"]  # type: ignore[list-item]
        try:
            ours = from_phh(text).stacks()
        except ValueError as exc:
            ours = [f"from_phh error: {exc}"]  # type: ignore[list-item]
        out.hands += 1
        bad = False
        if pokerkit_stacks != expected:
            out.pokerkit_mismatches += 1
            bad = True
        if ours != expected:
            out.from_phh_mismatches += 1
            bad = True
        out.mismatches += bad
        if bad and not out.first_failure:
            out.first_failure = (
                f"# {n} players, seed {seed}, chunk {chunk}: engine {expected},"
                f" PokerKit {pokerkit_stacks}, from_phh {ours}\n{text}"
            )
    out.seconds = time.process_time() - t0
    return out


def _chunks(players: list[int], hands: int) -> list[tuple[int, int, int]]:
    return [
        (n, i, min(CHUNK, hands - i * CHUNK))
        for n in players
        for i in range((hands + CHUNK - 1) // CHUNK)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000, help="hands per player count")
    parser.add_argument(
        "--players", type=int, nargs="+", default=list(range(2, 11)), help="player counts"
    )
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.hands < 1 or args.workers < 1 or any(not 2 <= n <= 10 for n in args.players):
        parser.error("--hands and --workers must be >= 1, --players from 2 to 10")
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        print("PokerKit is not installed: pip install pokerkit", file=sys.stderr)
        return 2
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    chunks = _chunks(args.players, args.hands)
    totals = {n: Result(players=n) for n in args.players}
    print(
        f"PokerKit {version('pokerkit')}, seed {args.seed}, {args.hands} hands per player"
        f" count, {args.workers} worker(s)",
        flush=True,
    )
    bar = tqdm(total=args.hands * len(args.players), unit="hand", file=sys.stderr) if tqdm else None
    start = time.perf_counter()

    def add(res: Result) -> None:
        tot = totals[res.players]
        tot.hands += res.hands
        tot.mismatches += res.mismatches
        tot.pokerkit_mismatches += res.pokerkit_mismatches
        tot.from_phh_mismatches += res.from_phh_mismatches
        tot.seconds += res.seconds
        tot.first_failure = tot.first_failure or res.first_failure
        if bar is not None:
            bar.update(res.hands)

    if args.workers == 1:
        for n, i, k in chunks:
            add(run_chunk(n, args.seed, i, k))
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            futures = [pool.submit(run_chunk, n, args.seed, i, k) for n, i, k in chunks]
            for f in futures:
                add(f.result())
    if bar is not None:
        bar.close()
    wall = time.perf_counter() - start
    print(
        f"{'players':>7} {'hands':>8} {'mismatches':>10} {'PokerKit':>9} {'from_phh':>9}"
        f" {'seconds':>8}"
    )
    for n in args.players:
        t = totals[n]
        print(
            f"{n:>7} {t.hands:>8} {t.mismatches:>10} {t.pokerkit_mismatches:>9}"
            f" {t.from_phh_mismatches:>9} {t.seconds:>8.1f}"
        )
    print(f"total {sum(t.hands for t in totals.values())} hands, {wall:.1f} s wall", flush=True)
    failures = [t.first_failure for t in totals.values() if t.first_failure]
    if failures:
        print("\nFirst failing hand:\n" + failures[0])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
