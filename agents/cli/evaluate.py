"""Evaluate policies head to head: mean per hand with a 95% interval, duplicate deals.

Examples::

    python scripts/evaluate.py draw runs/draw-seed0/policy.npz heuristic --hands 200000
    python scripts/evaluate.py holdem --option num_players=6 policy.npz call random
    python scripts/evaluate.py draw a.npz b.npz heuristic --round-robin
    python scripts/evaluate.py draw a.npz heuristic --target-width 0.05 --hands 2000000

    python scripts/evaluate.py red-dog agents/models/red_dog.npz heuristic --decision-value 100000
    python scripts/evaluate.py draw agents/models/draw52.npz heuristic --discards 100000

Players: ``random``, ``call``, ``heuristic``, an exported ``FILE.npz`` (``@sample`` or
``@t=0.5`` to sample), or an SB3 checkpoint ``FILE.zip``. With two players the first
plays the second; with more, the first plays each of the others (``--round-robin``:
every pair). ``--hands 0`` plays no match (for the measures below alone).

The held-out panel: ``--panel`` plays the first player against every panel bot of
the game (duplicate deals; 6-max both ways: the bot in one seat among copies of the
policy, and the policy in one seat among copies of the bot; draw-match: whole matches,
the bot in the human seat), ``--hands`` per bot, each result with its 95% interval
and hand count, then the WORST CASE lines. A panel bot is also a player:
``panel:nit``, ``panel:pot-bully``, ... (``docs/agents.md`` lists them)::

    python scripts/evaluate.py draw agents/models/draw52.npz --panel --hands 20000
    python scripts/evaluate.py holdem --option num_players=6 agents/models/holdem_6max.npz --panel
    python scripts/evaluate.py draw-match agents/models/draw_match52.npz --panel --hands 200

``--measures N``: the first player's folds with nothing to call (dominated) per
phase and its bet sizes (fractions of the pot), against a never-betting opponent
and the panel, N decisions each.

Measures of the first player beside the matches: ``--decision-value N`` (Red Dog: its
exact expected chips per decision against the reference policy's on the same N
decisions), ``--discards N`` (five-card draw: the share of its N draws that take the
best-equity discard, against the second player).

``--json FILE`` writes ``{"game", "options", "matches": [...], "decision_value",
"discards", "panel", "measures"}`` (null when not asked for).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable
from typing import Any

# The numpy runtime's batched inference: on a busy 2-core machine OpenBLAS with two
# threads was 4x slower than with one (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from poker_env.policy import BatchPolicy
from poker_env_agents.cli._args import (
    USER_ERRORS,
    float_above,
    game_name,
    int_at_least,
    needs_extras,
    output_file,
    say_error,
)
from poker_env_agents.registry import GAMES, parse_option


def _key_value(text: str) -> tuple[str, object]:
    try:
        return parse_option(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _progress(label: str) -> Callable[[int, int], None] | None:
    """A match's count after each round, on one line of a terminal's stderr (a large
    match ran for minutes without a word); nothing where stderr is not a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(played: int, hands: int) -> None:
        print(f"\r  {label}: {played:,} of {hands:,} played", end="", file=sys.stderr, flush=True)

    return show


def _progress_done() -> None:
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)  # the line cleared


@needs_extras("poker-evaluate", "train")
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="poker-evaluate",
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", type=game_name, choices=sorted(GAMES))
    p.add_argument("players", nargs="+", help="two or more players")
    p.add_argument("--option", type=_key_value, action="append", default=[], metavar="K=V")
    p.add_argument(
        "--hands",
        type=int_at_least(1),
        default=100_000,
        help="the first player's hands per match (default 100,000); play ends with the round "
        "that spends them: a round is --tables tables x 16 episodes, from every seat",
    )
    p.add_argument(
        "--target-width",
        type=float_above(0),
        help="stop early once the 95%% interval is narrower than this",
    )
    p.add_argument("--seed", type=int_at_least(0), default=0, help="default 0")
    p.add_argument(
        "--tables",
        type=int_at_least(1),
        default=None,
        help="tables per round (default 1024, fewer when --hands is under one round)",
    )
    p.add_argument("--no-duplicate", action="store_true", help="A in seat 0 only")
    p.add_argument("--round-robin", action="store_true")
    p.add_argument("--json", type=output_file, help="write the results here (a .json file)")
    p.add_argument(
        "--decision-value",
        type=int_at_least(0),
        default=0,
        metavar="N",
        help="Red Dog: the first player's exact EV per decision against the reference's",
    )
    p.add_argument(
        "--discards",
        type=int_at_least(0),
        default=0,
        metavar="N",
        help="five-card draw: share of the first player's N discards that are the best",
    )
    p.add_argument(
        "--panel", action="store_true", help="play the first player against the held-out panel"
    )
    p.add_argument(
        "--measures",
        type=int_at_least(0),
        default=0,
        metavar="N",
        help="dominated folds and bet sizes of the first player, N decisions per opponent",
    )
    args = p.parse_args(argv)
    if args.decision_value and args.game != "red-dog":
        p.error("--decision-value is a Red Dog measure")
    if args.discards and not args.game.startswith("draw"):
        p.error("--discards is a five-card draw measure")
    panel_game = args.game in ("draw", "draw-match", "holdem")
    if (args.panel or args.measures) and not panel_game:
        p.error("--panel and --measures are for draw, draw-match and holdem")
    if len(args.players) < 2 and not (args.panel or args.measures):
        p.error("give at least two players (or one with --panel / --measures)")
    from poker_env_agents.analysis.panel import (
        evaluate_panel,
        measures_lines,
        play_measures,
    )
    from poker_env_agents.baselines.heldout import PANEL_PREFIX
    from poker_env_agents.baselines.panel import make_panel_bot
    from poker_env_agents.evaluate import (
        draw_discard_agreement,
        head_to_head,
        red_dog_decision_value,
        results_table,
    )
    from poker_env_agents.registry import get_game, resolve_policy

    opts = dict(args.option)

    def resolve(name: str, seed: int) -> BatchPolicy:
        if name.startswith(PANEL_PREFIX):
            return make_panel_bot(args.game, name, seed=seed, **get_game(args.game).options(opts))
        return resolve_policy(name, args.game, opts, seed=seed)

    panel = measures = None
    results: list[Any] = []
    try:
        # A player named twice (a mirror match: the same bot both ways) is told apart.
        labels = [
            n if args.players[:k].count(n) == 0 else f"{n}#{args.players[:k].count(n) + 1}"
            for k, n in enumerate(args.players)
        ]
        pols = {
            label: resolve(n, args.seed + 17 * k)
            for k, (label, n) in enumerate(zip(labels, args.players, strict=True))
        }
        names = list(pols)
        if args.round_robin:
            pairs = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
        else:
            pairs = [(names[0], y) for y in names[1:]]
        for x, y in pairs if args.hands > 0 else []:
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
                progress=_progress(f"{x} vs {y}"),
            )
            _progress_done()
            print(r, flush=True)
            results.append(r)
        value = discards = None
        if args.decision_value:
            value = red_dog_decision_value(
                pols[names[0]],
                num_players=int(opts.get("num_players", 4)),
                decisions=args.decision_value,
                seed=args.seed,
            )
            print(value, flush=True)
        if args.discards:
            discards = draw_discard_agreement(
                pols[names[0]],
                pols[names[1]],
                game=args.game,
                options=opts,
                decisions=args.discards,
                seed=args.seed,
            )
            print(discards, flush=True)
        if args.panel:
            per = "matches" if args.game == "draw-match" else "duplicate hands"
            print(f"{names[0]} against the held-out panel ({args.hands:,} {per} per bot):")
            panel = evaluate_panel(
                pols[names[0]], args.game, opts, hands=args.hands, seed=args.seed, progress=True
            )
            print()
            print(panel.table(title=f"{names[0]} against the panel ({args.game})"))
            print()
            for line in panel.worst_lines():
                print(line, flush=True)
        if args.measures:
            measures = play_measures(
                pols[names[0]], args.game, opts, decisions=args.measures, seed=args.seed
            )
            for line in measures_lines(measures):
                print(line, flush=True)
    except USER_ERRORS as exc:
        return say_error(p.prog, exc)
    except KeyboardInterrupt:
        print(f"\n{p.prog}: interrupted", file=sys.stderr)
        if results:
            print(results_table(results, title=f"{args.game} head to head (before the interrupt)"))
        return 130
    if results:
        print()
        print(results_table(results, title=f"{args.game} head to head"))
    if args.json:
        doc = {
            "game": args.game,
            "options": opts,
            "players": names,
            "seed": args.seed,
            "matches": [dataclasses.asdict(r) for r in results],
            "decision_value": None
            if value is None
            else {**dataclasses.asdict(value), "ratio": value.ratio},
            "discards": None if discards is None else dataclasses.asdict(discards),
            "panel": None if panel is None else panel.to_dict(),
            "measures": measures,
        }
        args.json.write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
